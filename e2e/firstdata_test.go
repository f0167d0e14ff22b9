package e2e

// First data in the order users look, with the real binary at
// default flags against the fake enforcing the API's 100 requests an hour.

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/promtest"
)

// startSites starts the fake with n projects of paths paths each (rows out
// of order, so every walk reads every page) and the API's limit, and the
// exporter against it with the default flags.
func startSites(t *testing.T, prefix string, n, paths int) ([]string, *mintlifytest.Server, *process) {
	t.Helper()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	opts := []mintlifytest.Option{mintlifytest.WithRateLimit(100), mintlifytest.WithUnorderedPaths()}
	var projects []string
	for i := range n {
		p := fmt.Sprintf("%s-%d", prefix, i)
		projects = append(projects, p)
		opts = append(opts, mintlifytest.WithProject(p, mintlifytest.Generate(mintlifytest.GenerateOptions{
			Seed: int64(900 + i), Paths: paths, Days: 30, End: today.AddDate(0, 0, 1),
		})))
	}
	srv := apitest.Fake(t, opts...)
	args := []string{"--mintlify.api-url=" + srv.URL()}
	for _, p := range projects {
		args = append(args, "--mintlify.project-id="+p)
	}
	return projects, srv, startExporter(t, keyEnv, args...)
}

// missing returns the first of keys the scrape lacks, "" when it has all.
func missing(got map[string]float64, keys []string) string {
	for _, k := range keys {
		if _, ok := got[k]; !ok {
			return "no " + k
		}
	}
	return ""
}

// TestTenProjectsFirstData: 10 projects of 500 paths. First data comes in
// the order users look: the fake's request log shows every project's 1d
// visitors and views totals (one request each, limit=1) sent before any
// other 1d request, and then every 1d unit of every project (page
// breakdowns included) gets data, inside the first hour's budget and
// without a 429. The time limits only stop a test that would hang; the
// order is read from the request log, not from the clock.
func TestTenProjectsFirstData(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the exporter against 10 projects")
	}
	t.Parallel()
	projects, srv, p := startSites(t, "ten", 10, 500)
	start := time.Now()
	var totals, units []string
	for _, proj := range projects {
		totals = append(totals,
			key("mintlify_visitors", "project", proj, "window", "1d", "traffic", "human"),
			key("mintlify_views", "project", proj, "window", "1d", "traffic", "human"))
		units = append(units,
			key("mintlify_visitors_paths", "project", proj, "window", "1d"),
			key("mintlify_views_paths", "project", proj, "window", "1d"),
			key("mintlify_assistant_queries", "project", proj, "window", "1d", "caller", "web"),
			key("mintlify_searches", "project", proj, "window", "1d"),
			key("mintlify_feedback_pages_truncated", "project", proj, "window", "1d"))
	}
	scrapeNow := func() map[string]float64 {
		resp, body := p.get(t, "/metrics", scrapeHeaders)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("scrape: %d", resp.StatusCode)
		}
		return series(promtest.ParseText(t, body))
	}
	// Bounds on the test, not timing targets.
	eventually(t, 5*time.Minute, "every project's 1d visitors and views totals", func() string { return missing(scrapeNow(), totals) })
	t.Logf("every 1d total after %s", time.Since(start).Round(time.Millisecond))
	eventually(t, 5*time.Minute, "every 1d unit of every project", func() string { return missing(scrapeNow(), units) })
	reqs := srv.Requests()
	t.Logf("every 1d unit after %s, %d requests", time.Since(start).Round(time.Millisecond), len(reqs))
	if msg := totalsFirst(reqs, projects, start); msg != "" {
		t.Error(msg)
		for i, r := range reqs[:min(len(reqs), 40)] {
			t.Logf("request %d: %s %s limit=%s %s..%s", i, r.Endpoint, r.Project, r.Query.Get("limit"), r.Query.Get("dateFrom"), r.Query.Get("dateTo"))
		}
	}
	for _, r := range reqs {
		if r.Status == http.StatusTooManyRequests {
			t.Fatalf("the API answered 429 to %s", r.Path)
		}
	}
	if n := len(reqs); n > 90 {
		t.Errorf("%d requests, over the budget of 90", n)
	}
}

// totalsFirst checks the order of first data in a request log: the first
// requests answered are one 1d totals request (visitors and views, limit=1)
// per project and endpoint, before any other 1d request. It returns what
// is wrong, "" when nothing is.
func totalsFirst(reqs []mintlifytest.Request, projects []string, now time.Time) string {
	day := now.UTC().Truncate(24 * time.Hour)
	today, tomorrow := day.Format(time.DateOnly), day.AddDate(0, 0, 1).Format(time.DateOnly)
	isTotals := func(r mintlifytest.Request) bool {
		return (r.Endpoint == mintlifytest.EndpointVisitors || r.Endpoint == mintlifytest.EndpointViews) &&
			r.Query.Get("limit") == "1" && r.Query.Get("offset") == "0"
	}
	want := map[string]bool{}
	for _, proj := range projects {
		want[mintlifytest.EndpointVisitors+" "+proj] = true
		want[mintlifytest.EndpointViews+" "+proj] = true
	}
	for i, r := range reqs {
		if len(want) == 0 {
			return ""
		}
		// 1d is today alone, as of the test's start (a run across
		// midnight starts a new day's order, not checked here).
		if r.Query.Get("dateFrom") != today || r.Query.Get("dateTo") != tomorrow {
			continue
		}
		if !isTotals(r) {
			return fmt.Sprintf("request %d (%s %s, limit=%q) went out before the 1d totals of %d project endpoints", i, r.Endpoint, r.Project, r.Query.Get("limit"), len(want))
		}
		delete(want, r.Endpoint+" "+r.Project)
	}
	if len(want) > 0 {
		return fmt.Sprintf("no 1d totals request for %d project endpoints", len(want))
	}
	return ""
}

// TestLargeSiteSpendsTheHour: 3 projects of 2,000 paths. The hour's 90
// requests all go out at once (no idle budget), none is answered 429, and
// none reads a closed day for the day store while a unit has no data.
func TestLargeSiteSpendsTheHour(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the exporter against 6,000 paths")
	}
	t.Parallel()
	_, srv, p := startSites(t, "large", 3, 2000)
	eventually(t, 5*time.Minute, "90 requests answered", func() string {
		if n := len(srv.Requests()); n < 90 {
			return fmt.Sprintf("%d requests", n)
		}
		return ""
	})
	today := time.Now().UTC().Format(time.DateOnly)
	for _, r := range srv.Requests() {
		if r.Status == http.StatusTooManyRequests {
			t.Errorf("the API answered 429 to %s", r.Path)
		}
		if to := r.Query.Get("dateTo"); to != "" && to <= today {
			t.Errorf("a closed day read for the day store (%s to %s) while units have no data", r.Query.Get("dateFrom"), to)
		}
	}
	// The 90th answer reaches the fake's log before the exporter has taken
	// it in and marked the units left as waiting: ready follows at once,
	// not in the same instant.
	eventually(t, 30*time.Second, "/-/ready with every unit either done or waiting for the budget", func() string {
		if resp, _ := p.get(t, "/-/ready", nil); resp.StatusCode != http.StatusOK {
			return fmt.Sprintf("/-/ready is %d", resp.StatusCode)
		}
		return ""
	})
}
