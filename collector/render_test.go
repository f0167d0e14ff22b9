package collector_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/exposition"
	"github.com/mintlify-exporter/mintlify_exporter/internal/promtest"
)

// renderSnapshot is the visitors source's result for a walk that returned
// rows, current at benchNow.
func renderSnapshot(project, window string, totals client.Counts, rows ...client.PathCounts) collector.UnitResult {
	w, err := engine.ParseWindow(window)
	if err != nil {
		panic(err)
	}
	res := &client.PathsResult{Totals: totals, Rows: rows, Pages: 1}
	u := engine.Unit{Source: "visitors", Project: project, Window: w}
	r, err := visitorsSource(res).Fetch(context.Background(), u, w.Range(benchNow()), 0)
	if err != nil {
		panic(err)
	}
	return collector.UnitResult{Unit: u, Result: r}
}

func visitorsSource(res *client.PathsResult) *collector.Paths {
	return collector.NewVisitors(collector.StaticVisitors{Res: res}.PathsPage, collector.Options{})
}

// restoredVisitors returns an engine serving the results, in their order.
func restoredVisitors(tb testing.TB, results ...collector.UnitResult) *engine.Engine {
	return collector.RestoredEngine(tb, visitorsSource(nil), benchNow(), results...)
}

func row(path string, human, ai, total float64) client.PathCounts {
	return client.PathCounts{Path: path, Counts: client.Counts{Human: human, AI: ai, Total: total}}
}

// renderRows are paths that stress escaping and sanitizing, with distinct
// totals so that their order is known.
var renderRows = []client.PathCounts{
	row(`/say-"hello"`, 90, 9, 95),
	row(`/back\slash`, 80, 8, 85),
	row(`/literal\n-not-a-newline`, 70, 7, 75),
	row("/new\nline", 60, 6, 65),
	row("/tab\tand\rreturn", 50, 5, 55),
	row("/unicode/文档/é/😀", 40, 4, 45),
	row(`/"\`+"\n"+`"all-at-once\\`, 30, 3, 35),
	row("/bad\xffpath", 20, 2, 25),
	row("/bad\xfepath", 10, 1, 15), // equal to the previous one once sanitized
	row("/", 5, 0, 5),
}

func writeText(t *testing.T, e *exposition.Exposition) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := e.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != e.TextLen() {
		t.Fatalf("TextLen %d, WriteText wrote %d bytes", e.TextLen(), buf.Len())
	}
	return buf.Bytes()
}

// TestRenderEscapesAndSanitizesPaths: every path label parses back to the
// sanitized path, with its counts, three series a path.
func TestRenderEscapesAndSanitizesPaths(t *testing.T) {
	s := renderSnapshot(`proj-"x"`, "7d", client.Counts{Human: 300, AI: 40, Total: 320}, renderRows...)
	fams := promtest.ParseText(t, writeText(t, restoredVisitors(t, s).Exposition()))

	want := map[string]client.Counts{}
	for _, r := range renderRows {
		p := exposition.SanitizeLabel(r.Path)
		if _, dup := want[p]; !dup {
			want[p] = r.Counts
		}
	}
	if len(want) != len(renderRows)-1 || want["/bad\uFFFDpath"].Total != 25 {
		t.Fatalf("test set-up: %v", want)
	}
	got := map[string]client.Counts{}
	for _, fam := range []string{"mintlify_page_visitors", "mintlify_page_visitors_deduplicated"} {
		for _, m := range fams[fam].GetMetric() {
			l := promtest.Labels(m)
			if l["project"] != `proj-"x"` || l["window"] != "7d" {
				t.Errorf("%s: labels %v", fam, l)
			}
			c := got[l["path"]]
			v := m.GetGauge().GetValue()
			switch l["traffic"] {
			case "human":
				c.Human = v
			case "ai":
				c.AI = v
			case "":
				c.Total = v
			}
			got[l["path"]] = c
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("series by path:\n got %+v\nwant %+v", got, want)
	}
	if n := len(fams["mintlify_page_visitors"].GetMetric()); n != 2*len(want) {
		t.Errorf("%d mintlify_page_visitors series, want %d", n, 2*len(want))
	}
	if n := len(fams["mintlify_page_visitors_deduplicated"].GetMetric()); n != len(want) {
		t.Errorf("%d mintlify_page_visitors_deduplicated series, want %d", n, len(want))
	}
	for fam, v := range map[string]float64{"mintlify_visitors_paths": 9, "mintlify_visitors_paths_exported": 9, "mintlify_visitors_deduplicated": 320} {
		if ms := fams[fam].GetMetric(); len(ms) != 1 || ms[0].GetGauge().GetValue() != v {
			t.Errorf("%s = %v, want one series of %v", fam, ms, v)
		}
	}
}

// TestExpositionMatchesCollect: the pre-rendered text and the collector's
// Collect (the slow path) carry the same families, for several projects
// and windows; each family is one block in the text.
func TestExpositionMatchesCollect(t *testing.T) {
	snaps := []collector.UnitResult{
		renderSnapshot("docs", "1d", client.Counts{Human: 10, AI: 3, Total: 12}, renderRows[:4]...),
		renderSnapshot("docs", "7d", client.Counts{Human: 300, AI: 40, Total: 320}, renderRows...),
		renderSnapshot("api", "1d", client.Counts{Human: 1, AI: 1, Total: 1}, row("/a", 1, 1, 1)),
		renderSnapshot("api", "7d", client.Counts{}, row("/a", 1_000_000, 123_456_789, 123_456_789), row("/b", 0, 1, 1)),
	}
	v := restoredVisitors(t, snaps...)
	text := writeText(t, v.Exposition())
	promtest.CheckBlocks(t, text)

	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(v)
	gathered, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	slow := map[string]*dto.MetricFamily{}
	for _, mf := range gathered {
		slow[mf.GetName()] = mf
	}
	fast := promtest.ParseText(t, text)
	if got, want := slices.Sorted(maps.Keys(fast)), slices.Sorted(maps.Keys(slow)); !slices.Equal(got, want) {
		t.Fatalf("families %v, Collect gives %v", got, want)
	}
	for name := range slow {
		if got, want := familyText(t, fast[name]), familyText(t, slow[name]); got != want {
			t.Errorf("family %s:\n got %s\nwant %s", name, got, want)
		}
	}
}

// familyText renders a family with sorted labels and series.
func familyText(t *testing.T, mf *dto.MetricFamily) string {
	t.Helper()
	key := func(m *dto.Metric) string {
		var b strings.Builder
		for _, l := range m.Label {
			fmt.Fprintf(&b, "%s=%q,", l.GetName(), l.GetValue())
		}
		return b.String()
	}
	for _, m := range mf.Metric {
		slices.SortFunc(m.Label, func(a, b *dto.LabelPair) int { return strings.Compare(a.GetName(), b.GetName()) })
	}
	slices.SortFunc(mf.Metric, func(a, b *dto.Metric) int { return strings.Compare(key(a), key(b)) })
	var buf bytes.Buffer
	if _, err := expfmt.MetricFamilyToText(&buf, mf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestExpositionLeavesOutEmptyFamilies: a site without traffic has no page
// series, and its page families are left out, headers included.
func TestExpositionLeavesOutEmptyFamilies(t *testing.T) {
	v := restoredVisitors(t, renderSnapshot("quiet", "1d", client.Counts{}))
	text := writeText(t, v.Exposition())
	promtest.CheckBlocks(t, text)
	for _, fam := range []string{"mintlify_page_visitors", "mintlify_page_visitors_deduplicated"} {
		if bytes.Contains(text, []byte(fam+" ")) || bytes.Contains(text, []byte(fam+"{")) {
			t.Errorf("%s present without series:\n%s", fam, text)
		}
	}
	for _, fam := range []string{"mintlify_visitors", "mintlify_visitors_deduplicated", "mintlify_visitors_paths", "mintlify_visitors_paths_exported"} {
		if !bytes.Contains(text, []byte("# TYPE "+fam+" gauge\n")) {
			t.Errorf("%s missing", fam)
		}
	}
}

// TestExpositionWriteGzip: one gzip member holding the text then the tail,
// for empty and non-empty expositions and tails, written more than once.
func TestExpositionWriteGzip(t *testing.T) {
	big := make([]client.PathCounts, 3000)
	for i := range big {
		big[i] = row(fmt.Sprintf("/docs/section-%d/page-%d", i%37, i), float64(i), float64(i/3), float64(i+i/7))
	}
	exps := map[string]*exposition.Exposition{
		"zero":    {},
		"one":     restoredVisitors(t, renderSnapshot("docs", "1d", client.Counts{Human: 1, AI: 2, Total: 2}, renderRows...)).Exposition(),
		"several": restoredVisitors(t, renderSnapshot("docs", "1d", client.Counts{}, big...), renderSnapshot("api", "1d", client.Counts{}, renderRows...)).Exposition(),
	}
	tails := map[string][]byte{
		"no tail":    nil,
		"short tail": []byte("# HELP mintlify_up Up.\n# TYPE mintlify_up gauge\nmintlify_up 1\n"),
		"long tail":  bytes.Repeat([]byte("go_info{version=\"go1.26\"} 1\n"), 5000),
	}
	for en, e := range exps {
		var text bytes.Buffer
		if err := e.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		for tn, tail := range tails {
			t.Run(en+"/"+tn, func(t *testing.T) {
				want := append(slices.Clip(text.Bytes()), tail...)
				for range 2 { // an Exposition is written by many scrapes
					var buf bytes.Buffer
					if err := e.WriteGzip(&buf, tail); err != nil {
						t.Fatal(err)
					}
					if got := promtest.GunzipOne(t, buf.Bytes()); !bytes.Equal(got, want) {
						t.Fatalf("decompressed %d bytes, want %d", len(got), len(want))
					}
				}
			})
		}
	}
}

// failingWriter fails once it has accepted n bytes.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		n := w.n
		w.n = 0
		return n, io.ErrClosedPipe
	}
	w.n -= len(p)
	return len(p), nil
}

// TestExpositionWriteErrors: a failing client connection is reported, at
// any point of the answer.
func TestExpositionWriteErrors(t *testing.T) {
	e := restoredVisitors(t, renderSnapshot("docs", "1d", client.Counts{}, renderRows...)).Exposition()
	var full bytes.Buffer
	if err := e.WriteGzip(&full, []byte("tail 1\n")); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 5, 10, full.Len() / 2, full.Len() - 3} {
		if err := e.WriteGzip(&failingWriter{n: n}, []byte("tail 1\n")); err == nil {
			t.Errorf("WriteGzip after %d of %d bytes: no error", n, full.Len())
		}
	}
	for _, n := range []int{0, e.TextLen() / 2, e.TextLen() - 1} {
		if err := e.WriteText(&failingWriter{n: n}); err == nil {
			t.Errorf("WriteText after %d of %d bytes: no error", n, e.TextLen())
		}
	}
}
