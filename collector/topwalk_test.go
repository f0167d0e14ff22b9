package collector

import (
	"context"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
)

// topWalk fetches the 1d unit of a site of paths paths through the views
// source with --analytics.max-paths maxPaths, and returns the result, the
// requests it sent and the fake's true rows.
func topWalk(t *testing.T, paths, maxPaths int, opts ...mintlifytest.Option) (*engine.Result, int, []mintlifytest.Row) {
	t.Helper()
	data := mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 9, Paths: paths, Days: 2, End: day0})
	srv := mintlifytest.NewServer(append([]mintlifytest.Option{mintlifytest.WithClock(fixedDay0), mintlifytest.WithProject("docs", data)}, opts...)...)
	t.Cleanup(srv.Close)
	c := apitest.Client(t, srv, client.Config{Now: fixedDay0})
	src := newPaths(views, c.PathsPage, Options{PageSize: 250, MaxPages: 1000, Filter: PathFilter{MaxPaths: maxPaths}})
	w := windowOf(t, "1d")
	r := w.Range(day0)
	res, err := src.Fetch(context.Background(), engine.Unit{Source: "views", Project: "docs", Window: w}, r, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, truth := srv.Views("docs", r.From.Time(), r.To.Time())
	return res, srv.CountRequests(mintlifytest.EndpointViews), truth
}

// fixedDay0 is the tests' clock.
func fixedDay0() time.Time { return day0 }

// exportedPaths is the set of paths of the views source's per-page series.
func exportedPaths(res *engine.Result) map[string]bool {
	out := map[string]bool{}
	for _, s := range res.Samples[viewsPage] {
		out[s.Labels[0]] = true
	}
	return out
}

// TestTopWalkStopsWhenRowsAreSorted: 20,000 paths served in descending
// order with max-paths 5,000: the walk stops with the page that holds the
// 5,000th row, 20 requests rather than 80, and exports a true top 5,000.
func TestTopWalkStopsWhenRowsAreSorted(t *testing.T) {
	if testing.Short() {
		t.Skip("walks 20,000 paths")
	}
	res, sent, truth := topWalk(t, 20_000, 5_000)
	if sent != 20 {
		t.Errorf("the walk sent %d requests, want 20 (%d for every page)", sent, (len(truth)+249)/250)
	}
	if res.Cost != sent {
		t.Errorf("the result says %d requests, the fake saw %d", res.Cost, sent)
	}
	checkTop(t, res, truth, 5_000)
	t.Logf("20,000 sorted paths, top 5,000: %d requests (%s)", sent, res.Summary)
}

// TestTopWalkReadsEveryPageWhenUnordered: 3,000 paths served in no order
// with max-paths 500: the walk reads every page and exports the true top
// 500, exactly the rows the fake ranks first.
func TestTopWalkReadsEveryPageWhenUnordered(t *testing.T) {
	res, sent, truth := topWalk(t, 3_000, 500, mintlifytest.WithUnorderedPaths())
	if want := (len(truth) + 249) / 250; sent != want || want < 8 {
		t.Errorf("the walk sent %d requests, want every page (%d)", sent, want)
	}
	checkTop(t, res, truth, 500)
	got := exportedPaths(res)
	for _, row := range truth[:500] {
		if !got[row.Path] {
			t.Fatalf("%s (total %d) is the fake's top 500 but not exported", row.Path, row.Total)
		}
	}
}

// TestTopWalkSortedSmallSite: when max-paths is above the site's size the
// walk reads every page, as without it.
func TestTopWalkSortedSmallSite(t *testing.T) {
	res, sent, truth := topWalk(t, 600, 1_000)
	if sent != 3 {
		t.Errorf("the walk sent %d requests, want 3", sent)
	}
	checkTop(t, res, truth, 600)
}

// checkTop checks that the exported paths are a true top n of the fake's
// truth (total descending): n of them, every path that ranks above the
// n-th row's total among them, and none below it.
func checkTop(t *testing.T, res *engine.Result, truth []mintlifytest.Row, n int) {
	t.Helper()
	got := exportedPaths(res)
	if len(got) != n {
		t.Fatalf("%d paths exported, want %d", len(got), n)
	}
	cut := truth[n-1].Total
	for _, row := range truth {
		switch {
		case row.Total > cut && !got[row.Path]:
			t.Fatalf("%s (total %d) ranks above the %d-th (%d) but is not exported", row.Path, row.Total, n, cut)
		case row.Total < cut && got[row.Path]:
			t.Fatalf("%s (total %d) ranks below the %d-th (%d) but is exported", row.Path, row.Total, n, cut)
		}
	}
}
