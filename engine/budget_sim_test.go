package engine_test

// What the budget buys: the real engine and the default analytics sources
// against the fake API (rows unsorted, its limit of 100 an hour), on a
// manual clock, for 24 hours across UTC midnight, at four site sizes. The
// rule's invariants are checked over every run, and the freshness of each
// kind of unit is reported (docs/operations.md, "What the budget buys").
//
//	go test -count=1 -run TestBudgetSimulation -v ./engine/

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/health"
)

// budgetWorld is one setup of the budget simulation.
type budgetWorld struct {
	name            string
	projects, paths int
	// hourlyDays: the one-request units of windows up to this length are
	// held to an hour (they fit two thirds of the budget).
	hourlyDays int
	// rolloverBinds: the 1d one-request units are more than half the
	// budget, so an hourly refresh before midnight and the new day after
	// it do not fit one sliding hour: the new day goes first, and the
	// hourly bound is not checked from 23:00 to 00:10.
	rolloverBinds bool
}

// The kinds of unit the freshness table reports.
const (
	kindCheap1d   = "1d totals and one-request units"
	kindPages1d   = "1d page breakdowns"
	kindCheapLong = "7d and 30d totals and one-request units"
	kindPagesLong = "7d and 30d page breakdowns"
)

var budgetKinds = []string{kindCheap1d, kindPages1d, kindCheapLong, kindPagesLong}

func kindOf(st engine.UnitState) string {
	cheap := st.Part != health.PartPages
	switch {
	case st.Window.Days == 1 && cheap:
		return kindCheap1d
	case st.Window.Days == 1:
		return kindPages1d
	case cheap:
		return kindCheapLong
	}
	return kindPagesLong
}

// budgetRun is what one run measured.
type budgetRun struct {
	requests, maxInHour, rateLimits int
	ages                            map[string][]time.Duration // by kind, sampled every 5 minutes after the first hour
	violations                      []string
}

func (r *budgetRun) violate(format string, args ...any) {
	if len(r.violations) < 20 {
		r.violations = append(r.violations, fmt.Sprintf(format, args...))
	}
}

// runBudgetWorld runs w for hours from 06:00 UTC (midnight at the 18th hour)
// and checks the rule's invariants on the way.
func runBudgetWorld(t *testing.T, w budgetWorld, hours int) *budgetRun {
	t.Helper()
	const perHour = 90
	start := time.Date(2026, 5, 1, 6, 0, 0, 0, time.UTC)
	clk := mintlifytest.NewClock(start)
	opts := []mintlifytest.Option{mintlifytest.WithClock(clk.Now), mintlifytest.WithRateLimit(100), mintlifytest.WithUnorderedPaths()}
	var projects []string
	for i := range w.projects {
		p := fmt.Sprintf("p%d", i)
		projects = append(projects, p)
		opts = append(opts, mintlifytest.WithProject(p, mintlifytest.Generate(mintlifytest.GenerateOptions{
			Seed: int64(100 + i), Paths: w.paths, Days: 31, End: start.AddDate(0, 0, 2)})))
	}
	srv := mintlifytest.NewServer(opts...)
	t.Cleanup(srv.Close)
	e, b := startDefaultSim(t, srv, clk, projects, perHour)
	run := &budgetRun{ages: map[string][]time.Duration{}}
	midnight := start.Truncate(24 * time.Hour).Add(24 * time.Hour)
	for minute := 0; minute <= hours*60; minute++ {
		e.Touch()
		simSettle(t, e, clk)
		now := clk.Now()
		states := e.States()
		reserve, left := e.Reserve(), b.Remaining()
		for _, st := range states {
			age := now.Sub(st.Completed)
			if st.Completed.IsZero() {
				age = now.Sub(start)
			}
			kind := kindOf(st)
			if minute >= 60 && minute%5 == 0 {
				run.ages[kind] = append(run.ages[kind], age)
			}
			// No idle budget while anything is due: a unit waits only when
			// the hour's room is spent, but for the reserve.
			if st.State == engine.StateWaiting && left > reserve {
				run.violate("%s: %s waits with %d requests left, over the reserve of %d", now.Format(time.TimeOnly), st.Unit, left, reserve)
			}
			// One-request units held to an hour stay within it, from the
			// end of the first hour.
			nearMidnight := !now.Before(midnight.Add(-time.Hour)) && now.Before(midnight.Add(10*time.Minute))
			if kind != kindPages1d && kind != kindPagesLong && st.Window.Days <= w.hourlyDays && minute >= 60 && age > time.Hour+time.Minute &&
				!(w.rolloverBinds && nearMidnight) {
				run.violate("%s: %s is %s old", now.Format(time.TimeOnly), st.Unit, age)
			}
			// MintlifyDataStale stays quiet: no data is older than three
			// of its unit's intervals while every request succeeds.
			if !st.Completed.IsZero() && age > 3*st.Interval {
				run.violate("%s: %s is %s old, over three intervals of %s (MintlifyDataStale)", now.Format(time.TimeOnly), st.Unit, age, st.Interval)
			}
			// 1d one-request units read the new day within 10 minutes of midnight.
			if now.Equal(midnight.Add(10*time.Minute)) && kind == kindCheap1d && st.Completed.Before(midnight) {
				run.violate("%s: %s has not read the new day (last %s)", now.Format(time.TimeOnly), st.Unit, st.Completed.Format(time.TimeOnly))
			}
		}
		clk.Advance(time.Minute)
	}
	run.requests, run.maxInHour = b.counts()
	if run.maxInHour > perHour {
		run.violate("%d requests in one sliding hour, over the budget of %d", run.maxInHour, perHour)
	}
	reqs := srv.Requests()
	for _, r := range reqs {
		if r.Status == 429 {
			run.rateLimits++
		}
	}
	if run.rateLimits > 0 {
		run.violate("the fake answered 429 %d times", run.rateLimits)
	}
	checkFirstDataOrder(run, reqs, start, len(projects))
	return run
}

// checkFirstDataOrder checks the order of first data in the request log:
// no 7d or 30d page walk starts while a one-request unit of any window has
// no data, and the first 1d requests of visitors and views are the totals.
func checkFirstDataOrder(run *budgetRun, reqs []mintlifytest.Request, start time.Time, projects int) {
	today := start.Format(time.DateOnly)
	cheap := map[string]bool{} // endpoint, project, dateFrom of a one-request unit's first request
	oneDayWalk := false
	for i, r := range reqs {
		paged := r.Endpoint == mintlifytest.EndpointVisitors || r.Endpoint == mintlifytest.EndpointViews
		from := r.Query.Get("dateFrom")
		if to := r.Query.Get("dateTo"); to <= today {
			continue // a closed day for the day store
		}
		if paged && r.Query.Get("limit") != "1" {
			if from == today {
				oneDayWalk = true
				continue
			}
			if n := len(cheap); n < 15*projects {
				run.violate("request %d starts a %s page walk (%s) with %d of %d one-request units read", i, from, r.Endpoint, n, 15*projects)
			}
			return
		}
		k := r.Endpoint + " " + r.Project + " " + from
		if from == today && oneDayWalk && paged && !cheap[k] {
			run.violate("request %d: the first 1d totals of %s %s after a 1d page walk started", i, r.Endpoint, r.Project)
		}
		cheap[k] = true
	}
}

// quantile is the q-quantile of ds (nearest rank), 0 when empty.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// TestBudgetSimulation: at 1 × 300, 3 × 2,000, 10 × 500 and 1 × 100,000
// paths (projects × paths, unsorted), 24 hours: never over the budget in a
// sliding hour and no 429; no idle budget while a unit waits; one-request
// units no older than an hour where the budget allows it (every window,
// 1d only at 10 × 500); 1d one-request units read within 10 minutes of
// midnight; no 7d or 30d page walk before every one-request unit has data,
// 1d totals before 1d walks. It reports how fresh each kind of unit stays.
func TestBudgetSimulation(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulates 24 hours at four site sizes: make simulate runs it")
	}
	const hours = 24
	worlds := []budgetWorld{
		{name: "1 × 300", projects: 1, paths: 300, hourlyDays: 30},
		{name: "3 × 2,000", projects: 3, paths: 2000, hourlyDays: 30},
		{name: "10 × 500", projects: 10, paths: 500, hourlyDays: 1, rolloverBinds: true},
		{name: "1 × 100,000", projects: 1, paths: 100_000, hourlyDays: 30},
	}
	var table strings.Builder
	table.WriteString("| projects × paths | requests in 24h |")
	for _, k := range budgetKinds {
		fmt.Fprintf(&table, " %s: typical / worst |", k)
	}
	table.WriteString("\n|---|---:|---:|---:|---:|---:|\n")
	for _, w := range worlds {
		run := runBudgetWorld(t, w, hours)
		fmt.Fprintf(&table, "| %s | %d |", w.name, run.requests)
		for _, k := range budgetKinds {
			fmt.Fprintf(&table, " %s / %s |", fmtAge(quantile(run.ages[k], 0.5)), fmtAge(quantile(run.ages[k], 1)))
		}
		table.WriteString("\n")
		for _, v := range run.violations {
			t.Errorf("%s: %s", w.name, v)
		}
	}
	t.Logf("age of the data of each kind of unit, every 5 minutes from the second hour; visitors, views, assistant, feedback, searches; 1d 7d 30d; derived windows; budget 90/h\n%s", table.String())
}

// fmtAge rounds an age to the minute, in hours and minutes.
func fmtAge(d time.Duration) string {
	d = d.Round(time.Minute)
	if d < time.Hour {
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
