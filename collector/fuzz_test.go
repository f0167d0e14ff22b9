package collector

import (
	"bytes"
	"compress/gzip"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// fuzzWindowShape is the form of every valid window.
var fuzzWindowShape = regexp.MustCompile(`^[1-9][0-9]{0,2}d$`)

// FuzzParseWindow: exactly "1d" to "366d", without sign or leading zero,
// are accepted, and an accepted window covers its number of days, ending
// tomorrow.
func FuzzParseWindow(f *testing.F) {
	for _, s := range []string{"1d", "7d", "30d", "366d", "367d", "0d", "07d", "-1d", "+7d", "7", "d", "1w", "7D", " 7d", "7d ", "١d", "9999999999999999999999d"} {
		f.Add(s, int64(1773144000))
	}
	f.Fuzz(func(t *testing.T, s string, unix int64) {
		w, err := ParseWindow(s)
		valid := false
		if fuzzWindowShape.MatchString(s) {
			n, _ := strconv.Atoi(strings.TrimSuffix(s, "d"))
			valid = n <= MaxWindowDays
		}
		if (err == nil) != valid {
			t.Fatalf("ParseWindow(%q) = %+v, %v; want valid %v", s, w, err, valid)
		}
		if err != nil {
			return
		}
		if w.Name != s || strconv.Itoa(w.Days)+"d" != s || w.Days < 1 || w.Days > MaxWindowDays {
			t.Fatalf("ParseWindow(%q) = %+v", s, w)
		}
		now := time.Unix(unix%(1<<35), 0)
		r := w.Range(now)
		if r.Days() != w.Days || r.To != client.DateOf(now).AddDays(1) {
			t.Fatalf("%s at %s covers %s (%d days)", s, now.UTC(), r, r.Days())
		}
	})
}

// FuzzSanitizePath: a sanitized path is valid UTF-8, unchanged when it
// already was, and stable; a snapshot of a fuzzed path renders an
// exposition that Prometheus' text parser accepts, whose path label is the
// sanitized path and whose values are the counts; the gzip copy holds the
// same text; and client_golang's Collect gives the same series.
func FuzzSanitizePath(f *testing.F) {
	for _, p := range []string{"/quickstart", `/a "quoted" path`, `/back\slash`, "/new\nline", "/bad\xff\xfe", "/\xed\xa0\x80", "/ok",
		"/tab\tcr\r", "/nul\x00", "/emoji/😀", "/{}=,", "/# HELP", "\uFFFD"} {
		f.Add(p, uint32(10), uint32(4), uint32(12))
	}
	f.Fuzz(func(t *testing.T, p string, human, ai, total uint32) {
		s := SanitizePath(p)
		if !utf8.ValidString(s) || SanitizePath(s) != s || (utf8.ValidString(p) && s != p) {
			t.Fatalf("SanitizePath(%q) = %q", p, s)
		}
		if p == "" {
			return // the decoder refuses empty paths
		}
		c := client.Counts{Human: float64(human), AI: float64(ai), Total: float64(total)}
		res := &client.VisitorsResult{Rows: []client.PathVisitors{{Path: p, Counts: c}}, Pages: 1}
		snap := NewSnapshot("docs", "7d", res, PathFilter{}, day0, time.Second)
		expo := newExposition([]*Snapshot{snap})
		var text bytes.Buffer
		if err := expo.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := parser.TextToMetricFamilies(bytes.NewReader(text.Bytes()))
		if err != nil {
			t.Fatalf("path %q: the exposition does not parse: %v\n%s", p, err, text.String())
		}
		want := map[string]float64{"human": float64(human), "ai": float64(ai), "": float64(total)}
		for _, name := range []string{"mintlify_page_visitors", "mintlify_page_visitors_deduplicated"} {
			ms := fams[name].GetMetric()
			if len(ms) == 0 {
				t.Fatalf("path %q: no %s", p, name)
			}
			for _, m := range ms {
				l := map[string]string{}
				for _, lp := range m.GetLabel() {
					l[lp.GetName()] = lp.GetValue()
				}
				if l["path"] != s || l["project"] != "docs" || l["window"] != "7d" {
					t.Fatalf("path %q: labels %v, want path %q", p, l, s)
				}
				if v := m.GetGauge().GetValue(); v != want[l["traffic"]] {
					t.Fatalf("path %q: %s{traffic=%q} = %v", p, name, l["traffic"], v)
				}
			}
		}
		var gz bytes.Buffer
		if err := expo.WriteGzip(&gz, nil); err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(&gz)
		if err != nil {
			t.Fatal(err)
		}
		unzipped, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(unzipped, text.Bytes()) {
			t.Fatalf("path %q: the gzip copy differs from the text (%v)", p, err)
		}
		v := &Visitors{walks: []*walk{{project: "docs", window: Window{Name: "7d", Days: 7}, snap: snap}}}
		if err := testutil.CollectAndCompare(v, bytes.NewReader(text.Bytes())); err != nil {
			t.Fatalf("path %q: Collect differs from the pre-rendered text: %v", p, err)
		}
	})
}
