package statefile_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
)

// TestRestoredCostCannotFreezeTheEngine: a unit of the cache file whose
// cost is 10^15 (a walk sends at most 1,000 pages) made the worker book it
// hour by hour under the engine's lock: no request went out for minutes.
// Restored costs are clamped to what a walk can cost, the forecast books
// at most two days ahead, and the engine refreshes at once.
func TestRestoredCostCannotFreezeTheEngine(t *testing.T) {
	for i, cost := range []int{1e15, math.MaxInt, -5, 1e15} {
		rig := apitest.NewRig(t, t0, mintlifytest.WithProject("docs", mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 1, Paths: 150, End: t0})))
		clk, srv := rig.Clock, rig.Fake
		u := sampleState().Units[0]
		u.Completed, u.Cost, u.DurationSeconds = t0.Add(-20*time.Hour), cost, math.Inf(1)
		if i == 3 { // completed in year 1, a nanosecond after the zero time
			u.Completed = time.Time{}.Add(1)
		}
		x := newExporter(t, rig, []string{"docs"}, &engine.State{Units: []engine.UnitData{u}})
		x.e.Start()
		x.e.Touch()
		// On a failure the engine's lock may be held: report without it.
		if !clk.Settle(1, 20*time.Second) {
			t.Fatalf("cost %d: the worker did not settle in 20 s (%d visitors requests sent)", cost, srv.CountRequests(mintlifytest.EndpointVisitors))
		}
		if n := srv.CountRequests(mintlifytest.EndpointVisitors); n == 0 {
			t.Errorf("cost %d: no request sent", cost)
		}
		for _, s := range x.e.States() {
			if s.Cost < 1 || s.Cost > engine.MaxRestoredCost {
				t.Errorf("cost %d: unit %s has cost %d", cost, s.Unit, s.Cost)
			}
		}
		srv.Close()
	}
}

// TestRestoredSamplesCheckedAsAnswers: series of the cache file go through
// the checks of API answers: a duplicate series, a negative, NaN-free but
// absurd count and a 2 MB path label are dropped, counted in one warning;
// the rest is exported.
func TestRestoredSamplesCheckedAsAnswers(t *testing.T) {
	u := sampleState().Units[0]
	u.Families = map[string][]engine.Sample{
		"mintlify_visitors": {{Labels: [2]string{"human"}, Value: 10}, {Labels: [2]string{"human"}, Value: 99}, {Labels: [2]string{"ai"}, Value: -1e308}},
		"mintlify_page_visitors": {
			{Labels: [2]string{"/", "human"}, Value: 8},
			{Labels: [2]string{strings.Repeat("x", 2<<20), "human"}, Value: 3},
			{Labels: [2]string{"/bad\xff", "ai"}, Value: 2},
		},
	}
	x := newExporter(t, apitest.NewRig(t, t0, mintlifytest.WithProject("docs", nil)), []string{"docs"}, &engine.State{Units: []engine.UnitData{u}})
	text, logs := exposition(t, x.e), x.logs
	for _, want := range []string{
		`mintlify_visitors{project="docs",traffic="human",window="7d"} 10`,
		`mintlify_page_visitors{path="/",project="docs",traffic="human",window="7d"} 8`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %s:\n%.2000s", want, text)
		}
	}
	for _, bad := range []string{" 99\n", "e+308", "xxxx", "bad"} {
		if strings.Contains(text, bad) {
			t.Errorf("a series an answer could not give is exported (%q):\n%.2000s", bad, text)
		}
	}
	if n := strings.Count(logs.String(), "dropped series of the cache file"); n != 1 || !strings.Contains(logs.String(), "series=4") {
		t.Errorf("want one warning counting 4 dropped series:\n%s", logs.String())
	}
}

// TestHostileWalkIsNotResumed: a walk of the cache file at an offset past
// the walk's page limit, with more rows than its pages hold, or started
// yesterday, is refused with a warning naming the unit, and the walk
// starts again at offset 0 within the budget.
func TestHostileWalkIsNotResumed(t *testing.T) {
	rng := client.DateRange{From: client.DateOf(t0), To: client.DateOf(t0).AddDays(1)}
	good := engine.WalkData{Source: "visitors", Project: "docs", Window: "1d", Started: t0.Add(-time.Hour),
		Progress: client.WalkProgress{Endpoint: "visitors", Project: "docs", From: rng.From.String(), To: rng.To.String(), PageSize: 100, Pages: 1}}
	many := make([]client.PathCounts, 101)
	for i := range many {
		many[i].Path = "/" + strings.Repeat("p", i)
	}
	for name, tc := range map[string]struct {
		edit func(*engine.WalkData)
		why  string
	}{
		"huge offset":   {func(d *engine.WalkData) { d.Progress.Pages = math.MaxInt / 100 }, "pages read, outside"},
		"too many rows": {func(d *engine.WalkData) { d.Progress.Rows = many }, "rows and 0 duplicates in 1 pages"},
		"yesterday":     {func(d *engine.WalkData) { d.Started = t0.Add(-24 * time.Hour) }, "not today"},
		"other range":   {func(d *engine.WalkData) { d.Progress.From = "2020-01-01" }, "not the window's"},
	} {
		t.Run(name, func(t *testing.T) {
			rig := apitest.NewRig(t, t0, mintlifytest.WithProject("docs", mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 1, Paths: 150, End: t0})))
			clk, srv := rig.Clock, rig.Fake
			d := good
			tc.edit(&d)
			x := newExporter(t, rig, []string{"docs"}, &engine.State{Walks: []engine.WalkData{d}})
			logs := x.logs
			if !strings.Contains(logs.String(), "not resuming a walk of the cache file") || !strings.Contains(logs.String(), tc.why) {
				t.Errorf("no warning saying %q:\n%s", tc.why, logs.String())
			}
			x.e.Start()
			x.e.Touch()
			if !clk.Settle(1, 20*time.Second) {
				t.Fatal("the worker did not settle in 20 s")
			}
			for _, r := range srv.Requests() {
				if r.Endpoint == mintlifytest.EndpointVisitors && r.Query.Get("offset") != "0" && r.Query.Get("offset") != "100" {
					t.Errorf("a request at offset %s", r.Query.Get("offset"))
				}
			}
			if n := srv.CountRequests(mintlifytest.EndpointVisitors); n == 0 || n > perHour {
				t.Errorf("%d visitors requests, want 1..%d", n, perHour)
			}
		})
	}
	// The good walk is resumed: the control of the cases above.
	x := newExporter(t, apitest.NewRig(t, t0, mintlifytest.WithProject("docs", nil)), []string{"docs"}, &engine.State{Walks: []engine.WalkData{good}})
	if !strings.Contains(x.logs.String(), "walks_resumed=1") {
		t.Errorf("the valid walk was not resumed:\n%s", x.logs.String())
	}
}
