package collector

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/exposition"
)

// FuzzSanitizeLabel: a sanitized path is valid UTF-8, unchanged when it
// already was, and stable; a path longer than client.MaxLabelBytes once
// sanitized (the client cuts such a path; this test feeds rows past it) is
// dropped when the engine restores it; any other path's snapshot of a fuzzed path renders an
// exposition that Prometheus' text parser accepts, whose path label is the
// sanitized path and whose values are the counts; the gzip copy holds the
// same text; and client_golang's Collect gives the same series.
func FuzzSanitizeLabel(f *testing.F) {
	for _, p := range []string{"/quickstart", `/a "quoted" path`, `/back\slash`, "/new\nline", "/bad\xff\xfe", "/\xed\xa0\x80", "/ok",
		"/tab\tcr\r", "/nul\x00", "/emoji/😀", "/{}=,", "/# HELP", "\uFFFD",
		"/" + strings.Repeat("a", client.MaxLabelBytes-1), "/" + strings.Repeat("a", client.MaxLabelBytes), "/" + strings.Repeat("\xff", 400)} {
		f.Add(p, uint32(10), uint32(4), uint32(12))
	}
	f.Fuzz(func(t *testing.T, p string, human, ai, total uint32) {
		s := exposition.SanitizeLabel(p)
		if !utf8.ValidString(s) || exposition.SanitizeLabel(s) != s || (utf8.ValidString(p) && s != p) {
			t.Fatalf("SanitizeLabel(%q) = %q", p, s)
		}
		if p == "" {
			return // the decoder refuses empty paths
		}
		c := client.Counts{Human: float64(human), AI: float64(ai), Total: float64(total)}
		res := &client.PathsResult{Rows: []client.PathCounts{{Path: p, Counts: c}}, Pages: 1}
		src := NewVisitors(StaticVisitors{Res: res}.PathsPage, Options{})
		u := engine.Unit{Source: "visitors", Project: "docs", Window: Window{Name: "7d", Days: 7}}
		r, err := src.Fetch(context.Background(), u, u.Window.Range(day0), 0)
		if err != nil {
			t.Fatal(err)
		}
		v := RestoredEngine(t, src, day0, UnitResult{Unit: u, Result: r})
		expo := v.Exposition()
		var text bytes.Buffer
		if err := expo.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := parser.TextToMetricFamilies(bytes.NewReader(text.Bytes()))
		if err != nil {
			t.Fatalf("path %q: the exposition does not parse: %v\n%s", p, err, text.String())
		}
		if len(s) > client.MaxLabelBytes {
			if len(fams["mintlify_page_visitors"].GetMetric()) != 0 {
				t.Fatalf("a path of %d bytes was restored; the engine drops labels over client.MaxLabelBytes", len(s))
			}
			return
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
		if err := testutil.CollectAndCompare(v, bytes.NewReader(text.Bytes())); err != nil {
			t.Fatalf("path %q: Collect differs from the pre-rendered text: %v", p, err)
		}
	})
}
