package backfill_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"

	"github.com/mintlify-exporter/mintlify_exporter/backfill"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/stream"
	"github.com/mintlify-exporter/mintlify_exporter/stream/s3store"
)

var streamProjects = map[string]string{"acme": "p-acme", "globex": "p-globex", "initech": "p-initech"}

// streamHistory fills an S3 fake with a StreamWriter (every fault, events
// over two days, then events after the range), runs the history of the
// range and returns it, the writer's truth for the range and the range.
func streamHistory(t *testing.T) (*backfill.StreamHistory, mintlifytest.StreamTruth, time.Time, time.Time) {
	t.Helper()
	fake := mintlifytest.NewS3("events")
	t.Cleanup(fake.Close)
	w := mintlifytest.NewStreamWriter(fake, "mintlify/", 11)
	ctx := context.Background()
	faults := mintlifytest.AllStreamFaults()
	// The line over the length cap (10 MiB) is refused by the reader the
	// backfill shares with the live source; package stream's tests cover
	// it, and make test here too.
	faults.HugeLine = !testing.Short()
	if err := w.Write(ctx, mintlifytest.StreamOptions{Events: 700, PerObject: 90, Faults: faults}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, mintlifytest.StreamOptions{Events: 150, Subdomains: []string{"acme", "initech"}, Every: 10 * time.Minute,
		Faults: mintlifytest.StreamFaults{Duplicates: 2, Malformed: 1, Gzip: true, Late: true}}); err != nil {
		t.Fatal(err)
	}
	want := w.Expect()
	from := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	to := time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
	if !want.NewestEvent.Before(to) {
		t.Fatalf("the writer's events end at %s, after the range", want.NewestEvent)
	}
	// Events after the range, in objects whose keys sort after the range's:
	// not counted.
	if err := w.Write(ctx, mintlifytest.StreamOptions{Events: 100, Start: to.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}

	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	store, err := s3store.New(ctx, s3store.Options{Bucket: "events", Region: "us-east-1", Endpoint: fake.URL(),
		AccessKeyID: "AKIDTEST", SecretAccessKey: "not-a-secret"})
	if err != nil {
		t.Fatal(err)
	}
	labels, _ := backfill.MergeLabels(nil)
	h, err := backfill.NewStreamHistory(labels)
	if err != nil {
		t.Fatal(err)
	}
	cfg := stream.Config{Store: store, Prefix: "mintlify/", Projects: streamProjects, Logger: log.NewNopLogger()}
	stats, err := stream.History(ctx, cfg, from, to, 5*time.Minute, h.Add)
	if err != nil {
		t.Fatal(err)
	}
	if stats.OutOfRange != 100 {
		t.Errorf("%d events out of range, want the 100 written after it", stats.OutOfRange)
	}
	if stats.Duplicates != want.Duplicates {
		t.Errorf("%d duplicates, want %d", stats.Duplicates, want.Duplicates)
	}
	return h, want, from, to
}

// streamHistoryFile is streamHistory written to an OpenMetrics file.
func streamHistoryFile(t *testing.T) (string, mintlifytest.StreamTruth, time.Time, time.Time) {
	t.Helper()
	h, want, from, to := streamHistory(t)
	out := filepath.Join(t.TempDir(), "stream.om")
	if err := h.WriteFile(out); err != nil {
		t.Fatal(err)
	}
	return out, want, from, to
}

// wantSeries is the truth as series (name and labels without target
// labels) and values.
func wantSeries(tr mintlifytest.StreamTruth) map[string]float64 {
	m := map[string]float64{}
	add := func(name string, v int64, kv ...string) {
		if v == 0 {
			return
		}
		var ls []string // sorted by name, as the parser gives them
		for i := 0; i < len(kv); i += 2 {
			ls = append(ls, fmt.Sprintf("%s=%q", kv[i], kv[i+1]))
		}
		slices.Sort(ls)
		m[name+"{"+strings.Join(ls, ",")+"}"] += float64(v)
	}
	for sub, byType := range tr.Events {
		for typ, n := range byType {
			add("mintlify_stream_events_total", n, "project", streamProjects[sub], "event", typ)
		}
	}
	for sub, byPath := range tr.PageViews {
		for path, byClass := range byPath {
			for class, n := range byClass {
				add("mintlify_stream_page_views_total", n, "project", streamProjects[sub], "path", path, "traffic", class)
			}
		}
	}
	for sub, byRef := range tr.Referrals {
		for ref, n := range byRef {
			add("mintlify_stream_referrals_total", n, "project", streamProjects[sub], "referrer", ref)
		}
	}
	for sub, byPath := range tr.Feedback {
		for path, byKind := range byPath {
			for kind, n := range byKind {
				add("mintlify_stream_feedback_total", n, "project", streamProjects[sub], "path", path, "kind", kind)
			}
		}
	}
	for name, m := range map[string]map[string]int64{
		"mintlify_stream_searches_total":                tr.Searches,
		"mintlify_stream_search_result_clicks_total":    tr.SearchResultClicks,
		"mintlify_stream_assistant_conversations_total": tr.AssistantConversations,
		"mintlify_stream_assistant_errors_total":        tr.AssistantErrors,
	} {
		for sub, n := range m {
			add(name, n, "project", streamProjects[sub])
		}
	}
	for name, l := range map[string]struct {
		label string
		m     map[string]map[string]int64
	}{
		"mintlify_stream_mcp_tool_calls_total":       {"tool", tr.MCPToolCalls},
		"mintlify_stream_context_menu_actions_total": {"action", tr.ContextMenuActions},
	} {
		for sub, byLabel := range l.m {
			for v, n := range byLabel {
				add(name, n, "project", streamProjects[sub], l.label, v)
			}
		}
	}
	return m
}

// parsedSeries reads an OpenMetrics file with Prometheus' own parser (the
// one promtool's create-blocks-from uses) and returns every series' samples,
// keyed by name and labels without job, after checking each series has job="mintlify".
func parsedSeries(t *testing.T, path string) map[string][][2]float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := textparse.NewOpenMetricsParser(b, labels.NewSymbolTable())
	got := map[string][][2]float64{}
	types := map[string]string{}
	for {
		e, err := p.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s does not parse as OpenMetrics: %v", path, err)
		}
		switch e {
		case textparse.EntryType:
			name, typ := p.Type()
			types[string(name)] = string(typ)
		case textparse.EntrySeries:
			_, ts, v := p.Series()
			var ls labels.Labels
			p.Labels(&ls)
			if ls.Get("job") != "mintlify" {
				t.Fatalf("series %s without job=\"mintlify\"", ls)
			}
			if ts == nil {
				t.Fatalf("series %s without a timestamp", ls)
			}
			name := ls.Get("__name__")
			want := "counter"
			if name == "mintlify_stream_visitors" {
				want = "gauge"
			}
			if typ := types[strings.TrimSuffix(name, "_total")]; typ != want {
				t.Errorf("%s: type %q, want %s", name, typ, want)
			}
			var kv []string
			ls.Range(func(l labels.Label) {
				if l.Name != "__name__" && l.Name != "job" {
					kv = append(kv, fmt.Sprintf("%s=%q", l.Name, l.Value))
				}
			})
			k := name + "{" + strings.Join(kv, ",") + "}"
			got[k] = append(got[k], [2]float64{float64(*ts) / 1000, v})
		}
	}
	return got
}

// TestStreamHistoryOpenMetrics: the history of a range read from an S3
// bucket (every fault of the writer, objects out of order, events after
// the range) parses as OpenMetrics, every counter's last value is the
// writer's truth, and the samples are stamped with event time every 5
// minutes, never decreasing.
func TestStreamHistoryOpenMetrics(t *testing.T) {
	out, tr, from, to := streamHistoryFile(t)
	got := parsedSeries(t, out)
	want := wantSeries(tr)
	checkVisitors(t, got, tr, func(k string) string { return k })
	last := map[string]float64{}
	for k, pts := range got {
		if strings.HasPrefix(k, "mintlify_stream_visitors{") {
			continue
		}
		last[k] = pts[len(pts)-1][1]
		prev := [2]float64{}
		for i, pt := range pts {
			at := time.Unix(int64(pt[0]), 0)
			if at.Before(from) || at.After(to) || at.Sub(from)%(5*time.Minute) != 0 {
				t.Fatalf("%s: sample at %s, not a 5-minute step of %s..%s", k, at.UTC(), from, to)
			}
			if i > 0 && (pt[0] != prev[0]+300 || pt[1] < prev[1]) {
				t.Fatalf("%s: sample %v after %v: want the next step, not less", k, pt, prev)
			}
			prev = pt
		}
		if pts[len(pts)-1][0] != float64(to.Unix()) {
			t.Errorf("%s: last sample at %v, want the range's end", k, pts[len(pts)-1][0])
		}
	}
	if !maps.Equal(last, want) {
		for _, k := range slices.Sorted(maps.Keys(want)) {
			if last[k] != want[k] {
				t.Errorf("%s = %v, want %v", k, last[k], want[k])
			}
		}
		for _, k := range slices.Sorted(maps.Keys(last)) {
			if _, ok := want[k]; !ok {
				t.Errorf("%s = %v, not in the truth", k, last[k])
			}
		}
	}
	// The first events of the writer (2026-03-02 10:00) are counted at
	// the step after them, not at the range's start nor now.
	first := got[`mintlify_stream_events_total{event="docs.content.view",project="p-acme"}`]
	if len(first) == 0 {
		t.Fatal("no page view events for p-acme")
	}
	if at := time.Unix(int64(first[0][0]), 0).UTC(); !at.Equal(time.Date(2026, 3, 2, 10, 5, 0, 0, time.UTC)) {
		t.Errorf("first sample of acme's page view events at %s, want 10:05 (the step after the first event)", at)
	}
}

// TestStreamHistoryPromtool loads the history with the real promtool.
func TestStreamHistoryPromtool(t *testing.T) {
	promtool := promtoolForTSDB(t)
	out, _, _, _ := streamHistoryFile(t)
	blocks := filepath.Join(t.TempDir(), "blocks")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if b, err := exec.CommandContext(ctx, promtool, "tsdb", "create-blocks-from", "openmetrics", out, blocks).CombinedOutput(); err != nil {
		t.Fatalf("promtool: %v\n%s", err, b)
	}
	if ents, _ := os.ReadDir(blocks); len(ents) == 0 {
		t.Error("promtool wrote no block")
	}
}

// TestStreamHistoryRemoteWrite: the same history sent by remote write
// arrives in time order (the receiver checks it), in several requests of
// at most MaxSamplesPerRequest samples, every series at every 5-minute
// step from its first, and the last values are the writer's truth.
func TestStreamHistoryRemoteWrite(t *testing.T) {
	h, tr, from, to := streamHistory(t)
	r := newReceiver(t)
	n, reqs, err := h.Send(context.Background(), newWriter(t, r.url(), ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := r.samples()
	total := 0
	last := map[string]float64{}
	vis := map[string][][2]float64{}
	for k, pts := range got {
		total += len(pts)
		if strings.HasPrefix(k, "mintlify_stream_visitors{") {
			for _, p := range pts {
				vis[k] = append(vis[k], [2]float64{float64(p.ts), p.value})
			}
			continue
		}
		if !strings.Contains(k, `job="mintlify"`) {
			t.Fatalf("%s without job=\"mintlify\"", k)
		}
		for i, p := range pts {
			if p.ts%300 != 0 || p.ts < from.Unix() || p.ts > to.Unix() || i > 0 && p.ts != pts[i-1].ts+300 {
				t.Fatalf("%s: sample %d at %d, not the next 5-minute step in the range", k, i, p.ts)
			}
		}
		if pts[len(pts)-1].ts != to.Unix() {
			t.Errorf("%s: last sample at %d, want the range's end", k, pts[len(pts)-1].ts)
		}
		last[strings.Replace(k, `job="mintlify",`, "", 1)] = pts[len(pts)-1].value
	}
	checkVisitors(t, vis, tr, func(k string) string { return strings.Replace(k, `job="mintlify",`, "", 1) })
	if total != n || reqs != r.requests() || reqs < 2 {
		t.Errorf("sent %d samples in %d requests; the receiver got %d samples in %d requests (want several)", n, reqs, total, r.requests())
	}
	if want := wantSeries(tr); !maps.Equal(last, want) {
		t.Errorf("last values by remote write differ from the truth: %d series, want %d", len(last), len(want))
		for _, k := range slices.Sorted(maps.Keys(want)) {
			if last[k] != want[k] {
				t.Errorf("%s = %v, want %v", k, last[k], want[k])
			}
		}
	}
	for _, wr := range r.reqs {
		c := 0
		for _, ts := range wr.Timeseries {
			c += len(ts.Samples)
		}
		if c > backfill.MaxSamplesPerRequest {
			t.Errorf("a request of %d samples", c)
		}
	}
}

// checkVisitors: the visitor gauges are 1d only (the range is two days),
// one sample a day at its last second, within 3 standard errors (0.81 %)
// of the writer's distinct visitors that day, or 1.
func checkVisitors(t *testing.T, got map[string][][2]float64, tr mintlifytest.StreamTruth, key func(string) string) {
	t.Helper()
	seen := map[string]bool{}
	for k, pts := range got {
		if !strings.HasPrefix(k, "mintlify_stream_visitors{") {
			continue
		}
		seen[key(k)] = true
		for _, p := range pts {
			at := time.Unix(int64(p[0]), 0).UTC()
			if at.Add(time.Second).Truncate(24*time.Hour) != at.Add(time.Second) {
				t.Errorf("%s: sample at %s, want a day's last second", k, at)
			}
			day := at.Format(time.DateOnly)
			var want float64
			for sub, id := range streamProjects {
				if strings.Contains(k, `project="`+id+`"`) {
					want = float64(tr.Visitors[sub][day])
				}
			}
			if d := math.Abs(p[1] - want); d > max(1, 3*0.0081*want) {
				t.Errorf("%s on %s = %v, want %v", k, day, p[1], want)
			}
		}
	}
	for sub, id := range streamProjects {
		if len(tr.Visitors[sub]) > 0 && !seen[`mintlify_stream_visitors{project="`+id+`",window="1d"}`] {
			t.Errorf("no 1d visitors for %s; got %v", id, seen)
		}
	}
	if len(seen) != 3 {
		t.Errorf("visitor series %v, want 1d of the three projects only", seen)
	}
}
