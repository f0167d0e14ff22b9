package e2e

// The backfill end to end: the exporter's backfill command against the
// fake, promtool turning its output into blocks, Prometheus serving them.

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
)

// backfillDays is how many days the test backfills.
const backfillDays = 30

// TestBackfillEndToEnd backfills 30 days with per-page series from the
// fake, whose answers differ by day, loads the file with promtool into a
// fresh Prometheus, and checks that a range query over the 30 days returns
// one point per day per series, equal to the fake's answer for that day,
// and that the dashboards' 1d panels show data over that range.
func TestBackfillEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test with real promtool and Prometheus: skipped with -short")
	}
	tools := lookTools(t)
	begin := time.Now()
	dir := t.TempDir()

	today := time.Now().UTC().Truncate(24 * time.Hour)
	first := today.AddDate(0, 0, -backfillDays)
	srv := apitest.Fake(t, mintlifytest.WithProject(projectDocs, mintlifytest.Generate(mintlifytest.GenerateOptions{
		Seed: 7, Paths: 40, Days: backfillDays + 5, End: today.AddDate(0, 0, -1),
	})))

	// 30 days × 6 sources (views, assistant, feedback, searches with its
	// top terms and conversations beside visitors' 1 page of 40 paths):
	// 180 requests, within a budget of 400 an hour, so nothing waits. The
	// opt-in sources are on so that every dashboard panel has history.
	history := filepath.Join(dir, "history.om")
	r := runExporter(t, []string{"MINTLIFY_API_KEY=" + mintlifytest.DefaultKey}, "backfill",
		"--from="+first.Format(time.DateOnly), "--output="+history, "--backfill.pages", "--analytics.max-paths=25", "--mintlify.requests-per-hour=400",
		"--collector.conversations", "--searches.top-terms=5",
		"--mintlify.api-url="+srv.URL(), "--mintlify.project-id="+projectDocs)
	out := r.stdout + r.stderr
	if r.code != 0 {
		t.Fatalf("backfill: exit code %d\n%s", r.code, out)
	}
	if strings.Contains(out, mintlifytest.DefaultKey) {
		t.Error("the backfill printed the API key")
	}
	if n := srv.CountRequests(mintlifytest.EndpointVisitors); n != backfillDays {
		t.Errorf("the backfill sent %d requests, want %d (one page a day)", n, backfillDays)
	}

	blocks := filepath.Join(dir, "prometheus-data")
	if out, err := runTool(t, nil, tools.promtool, "tsdb", "create-blocks-from", "openmetrics", history, blocks); err != nil {
		t.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, out)
	}
	promConfig := writeFile(t, dir, "prometheus.yml", []byte("global:\n  scrape_interval: 1m\n"))
	prom := startProcess(t, "prometheus", tools.prometheus, environ(), func(addr string) []string {
		return []string{
			"--config.file=" + promConfig,
			"--storage.tsdb.path=" + blocks,
			"--storage.tsdb.retention.time=3650d",
			"--web.listen-address=" + addr,
		}
	}, "/-/ready")
	api := promAPI{base: "http://" + prom.addr}

	// Every sample sits at the last second of its day: a query at those
	// times with a step of one day finds exactly one sample each.
	start := first.AddDate(0, 0, 1).Add(-time.Second)
	end := start.AddDate(0, 0, backfillDays-1)
	series, err := api.queryRange(`{__name__=~"mintlify_(visitors|page_visitors|views|page_views|assistant_queries|searches).*", window="1d"}`, start, end, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	want := expectedBackfill(srv, first, backfillDays, 25)
	site := 0
	for _, s := range series {
		name := s.Metric["__name__"]
		if s.Metric["project"] != projectDocs {
			t.Errorf("series %s: unexpected project", formatLabels(s.Metric))
		}
		if s.Metric["job"] != "mintlify" {
			t.Errorf("series %s: no job=\"mintlify\", the live series' job", formatLabels(s.Metric))
		}
		delete(s.Metric, "job")
		if strings.HasPrefix(name, "mintlify_visitors") {
			site++
			if len(s.Values) != backfillDays {
				t.Errorf("%s: %d points, want %d", formatLabels(s.Metric), len(s.Values), backfillDays)
			}
		}
		for _, v := range s.Values {
			ts, _ := v[0].(float64)
			day := time.Unix(int64(ts), 0).UTC().Truncate(24 * time.Hour)
			k := seriesKey(s.Metric, day)
			w, ok := want[k]
			got, _ := strconv.ParseFloat(fmt.Sprint(v[1]), 64)
			if !ok || got != w {
				t.Errorf("%s on %s: %v, want %v (known: %v)", formatLabels(s.Metric), day.Format(time.DateOnly), got, w, ok)
			}
			delete(want, k)
		}
	}
	// mintlify_visitors{human,ai}, _deduplicated, _paths, _paths_exported.
	if site != 5 {
		t.Errorf("%d site-wide series, want 5", site)
	}
	for k := range want {
		t.Errorf("no point for %s", k)
	}

	// The dashboards' 1d panels show the history.
	vars := map[string]string{}
	for k, v := range grafanaValues {
		vars[k] = v
	}
	vars["window"] = "1d"
	_, rows := srv.Visitors(projectDocs, end.Truncate(24*time.Hour), end.Truncate(24*time.Hour).AddDate(0, 0, 1))
	if len(rows) == 0 {
		t.Fatal("no page on the last day")
	}
	vars["path"] = rows[0].Path
	checked := 0
	for _, q := range dashboardQueries(t, vars) {
		if q.variable != "" || !strings.Contains(q.expr, `window="1d"`) {
			continue
		}
		checked++
		got, err := api.queryRange(q.expr, start, end, 24*time.Hour)
		switch {
		case err != nil:
			t.Errorf("%s: %s: %v", q.key, q.expr, err)
		case len(got) == 0:
			t.Errorf("%s: no data over the backfilled days: %s", q.key, q.expr)
		}
	}
	if checked < 10 {
		t.Errorf("only %d dashboard queries use the 1d window; the test looks for window=\"1d\" after substitution", checked)
	}
	t.Logf("backfill end to end took %s (%d dashboard queries checked)", time.Since(begin).Round(time.Millisecond), checked)
}

// queryRange runs a range query.
func (p promAPI) queryRange(expr string, start, end time.Time, step time.Duration) ([]sample, error) {
	q := url.Values{"query": {expr}, "start": {promTime(start)}, "end": {promTime(end)},
		"step": {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)}}
	var r queryResult
	if err := p.get("/api/v1/query_range", q, &r); err != nil {
		return nil, err
	}
	return r.series()
}

// seriesKey names one day of one series: name{labels sorted} @ day.
func seriesKey(labels map[string]string, day time.Time) string {
	return formatLabels(labels) + " @ " + day.Format(time.DateOnly)
}

// expectedBackfill computes, from the fake's answers for each of days days
// from first, every point the backfill should have written (maxPaths pages
// kept per day), without the target labels.
func expectedBackfill(srv *mintlifytest.Server, first time.Time, days, maxPaths int) map[string]float64 {
	want := map[string]float64{}
	for i := range days {
		day := first.AddDate(0, 0, i)
		totals, rows := srv.Visitors(projectDocs, day, day.AddDate(0, 0, 1))
		set := func(v int64, name string, kv ...string) {
			l := map[string]string{"__name__": name, "project": projectDocs, "window": "1d"}
			for j := 0; j+1 < len(kv); j += 2 {
				l[kv[j]] = kv[j+1]
			}
			want[seriesKey(l, day)] = float64(v)
		}
		views, viewRows := srv.Views(projectDocs, day, day.AddDate(0, 0, 1))
		setTraffic := func(name string, c mintlifytest.Counts, kv ...string) {
			set(c.Human, name, append(kv, "traffic", "human")...)
			set(c.AI, name, append(kv, "traffic", "ai")...)
			if other := c.Total - c.Human - c.AI; other > 0 {
				set(other, name, append(kv, "traffic", "other")...)
			}
		}
		setTraffic("mintlify_views", views)
		set(int64(len(viewRows)), "mintlify_views_paths")
		keptViews := viewRows[:min(maxPaths, len(viewRows))]
		set(int64(len(keptViews)), "mintlify_views_paths_exported")
		for _, r := range keptViews {
			setTraffic("mintlify_page_views", r.Counts, "path", r.Path)
		}
		cs := srv.CallerStats(projectDocs, day, day.AddDate(0, 0, 1))
		set(cs.Web, "mintlify_assistant_queries", "caller", "web")
		set(cs.API, "mintlify_assistant_queries", "caller", "api")
		set(cs.Other, "mintlify_assistant_queries", "caller", "other")
		if unknown := cs.Total - cs.Web - cs.API - cs.Other; unknown > 0 {
			set(unknown, "mintlify_assistant_queries", "caller", "unknown")
		}
		_, searches := srv.Searches(projectDocs, day, day.AddDate(0, 0, 1))
		set(searches, "mintlify_searches")
		set(totals.Human, "mintlify_visitors", "traffic", "human")
		set(totals.AI, "mintlify_visitors", "traffic", "ai")
		set(totals.Total, "mintlify_visitors_deduplicated")
		set(int64(len(rows)), "mintlify_visitors_paths")
		kept := rows[:min(maxPaths, len(rows))] // the fake sorts as the exporter keeps: by total, then path
		set(int64(len(kept)), "mintlify_visitors_paths_exported")
		for _, r := range kept {
			set(r.Human, "mintlify_page_visitors", "path", r.Path, "traffic", "human")
			set(r.AI, "mintlify_page_visitors", "path", r.Path, "traffic", "ai")
			set(r.Total, "mintlify_page_visitors_deduplicated", "path", r.Path)
		}
	}
	return want
}

// TestBackfillDemoQuickStart: docs/backfill.md's quick start, 30 days
// of the demo, finishes within the harness's minute (the demo's fake has
// no hourly limit for backfill) and writes every fetch.
func TestBackfillDemoQuickStart(t *testing.T) {
	out := filepath.Join(t.TempDir(), "history.om")
	from := time.Now().UTC().AddDate(0, 0, -30).Format(time.DateOnly)
	r := runExporter(t, nil, "backfill", "--demo", "--from="+from, "--output="+out)
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"cost: 240 requests", "time: no waiting", "done: 240 fetches, 240 requests"} {
		if !strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("the output lacks %q:\n%s\n%s", want, r.stdout, r.stderr)
		}
	}
	if !strings.Contains(r.stderr, "the synthetic API has no hourly limit for backfill") {
		t.Errorf("the lifted budget is not explained:\n%s", r.stderr)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() == 0 {
		t.Errorf("no history written: %v", err)
	}
}
