package engine_test

// The derived-windows simulation: the real engine with the
// default sources (visitors, views, assistant, feedback, searches) against
// the fake, 2 projects of 1,000 paths, windows 1d, 7d and 30d, budget 90,
// on a manual clock from midnight for 26 hours, with today's counts
// growing hour by hour. Once with every window read directly (the weighted
// plan), once with derived windows from a day store seeded as
// `backfill --cache.file` seeds it.
//
//	go test -run TestDerivedWindowsSimulation -v ./engine/

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/derived"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/health"
)

var derivedSimSources = []string{"visitors", "views", "assistant", "feedback", "searches"}

// derivedSimData is one project's data: 40 days of history up to the day
// before start; each day from start on is filled hour by hour with the
// counts of the same weekday a week earlier.
type derivedSimData struct {
	project string
	data    *mintlifytest.Dataset
}

// grow sets day's counts to frac of those of the day a week earlier.
func (d derivedSimData) grow(srv *mintlifytest.Server, day time.Time, frac float64) {
	tmpl, next := day.AddDate(0, 0, -7), day.AddDate(0, 0, -6)
	f := func(v int64) int64 { return int64(math.Floor(float64(v) * frac)) }
	_, vis := srv.Visitors(d.project, tmpl, next)
	for _, r := range vis {
		h, ai := f(r.Human), f(r.AI)
		d.data.Set(day, r.Path, h, ai, min(max(f(r.Total), h, ai), h+ai))
	}
	_, views := srv.Views(d.project, tmpl, next)
	for _, r := range views {
		h, ai := f(r.Human), f(r.AI)
		d.data.SetViews(day, r.Path, h, ai, max(f(r.Total), h+ai))
	}
	cs := srv.CallerStats(d.project, tmpl, next)
	w, a, o := f(cs.Web), f(cs.API), f(cs.Other)
	d.data.SetCallerStats(day, w, a, o, max(f(cs.Total), w+a+o))
	terms, _ := srv.Searches(d.project, tmpl, next)
	for _, term := range terms {
		h := f(term.Hits)
		d.data.SetSearch(day, term.Query, h, min(f(term.Clicks), h), "")
	}
}

// derivedSimTruth is the site-wide figure the fake answers for a unit's
// range: the sum of its first family's series, as the exporter exports it.
func derivedSimTruth(srv *mintlifytest.Server, source, project string, r client.DateRange) float64 {
	from, to := r.From.Time(), r.To.Time()
	switch source {
	case "visitors":
		t, _ := srv.Visitors(project, from, to)
		return float64(t.Human + t.AI)
	case "views":
		t, _ := srv.Views(project, from, to)
		return float64(t.Total)
	case "assistant":
		cs := srv.CallerStats(project, from, to)
		return float64(max(cs.Total, cs.Web+cs.API+cs.Other))
	case "feedback":
		v := 0.0
		rows := srv.FeedbackByPage(project, from, to)
		for _, r := range rows[:min(len(rows), 100)] {
			v += float64(r.Total)
		}
		return v
	case "searches":
		_, total := srv.Searches(project, from, to)
		return float64(total)
	}
	panic(source)
}

var derivedSimFamily0 = map[string]string{"visitors": "mintlify_visitors", "views": "mintlify_views",
	"assistant": "mintlify_assistant_queries", "feedback": "mintlify_page_feedback", "searches": "mintlify_searches"}

type derivedSimResult struct {
	meanRelErr   float64
	bySource     map[string]float64
	longPerHour  float64 // requests an hour on 7d and 30d of additive sources, day reads and audits included
	requests     int
	maxInHour    int
	rateLimits   int
	olderThan1d  int // samples where a derived window was older than its 1d unit
	derivedShare float64
}

// simulateDerived runs the simulation with or without derived windows.
func simulateDerived(t *testing.T, derive bool, hours int) derivedSimResult {
	t.Helper()
	const budget = 90
	start := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	clk := mintlifytest.NewClock(start)
	projects := []string{"docs", "api"}
	var sims []derivedSimData
	opts := []mintlifytest.Option{mintlifytest.WithClock(clk.Now), mintlifytest.WithRateLimit(100)}
	var seedOpts []mintlifytest.Option
	for i, p := range projects {
		d := derivedSimData{project: p, data: mintlifytest.Generate(mintlifytest.GenerateOptions{
			Seed: int64(70 + i), Paths: 1000, Days: 40, End: start.AddDate(0, 0, -1), SearchTerms: 40})}
		sims = append(sims, d)
		opts = append(opts, mintlifytest.WithProject(p, d.data))
		seedOpts = append(seedOpts, mintlifytest.WithProject(p, d.data))
	}
	srv := mintlifytest.NewServer(opts...)
	t.Cleanup(srv.Close)
	for _, d := range sims {
		d.grow(srv, start, 1.0/24)
	}

	b := newSimBudget(budget, clk)
	c := simClient(t, srv.URL(), clk, b.allow)
	o := collector.Options{PageSize: 250, MaxPages: 100}
	srcs, err := collector.Build(derivedSimSources, c, o)
	if err != nil {
		t.Fatal(err)
	}
	var windows []engine.Window
	for _, w := range []string{"1d", "7d", "30d"} {
		windows = append(windows, windowOf(t, w))
	}
	var layer engine.Layer
	if derive {
		layer = derived.New(derived.Config{Days: seedDays(t, clk, seedOpts, o, projects)})
	}
	e, err := engine.New(engine.Config{
		Sources: srcs, Projects: projects, Windows: windows, MinInterval: 15 * time.Minute,
		Budget: b.Budget, Status: health.NewStatus(), Logger: log.NewNopLogger(), Now: clk.Now, WaitUntil: clk.WaitUntil,
		Layer: layer,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	settle := func() { simSettle(t, e, clk) }

	res := derivedSimResult{bySource: map[string]float64{}}
	counts := map[string]int{}
	var errSum float64
	var errN, samples, derivedSamples int
	e.Start()
	// advance moves the clock a minute, changing the data first when a new
	// hour starts, so that the refreshes the engine's timer starts then
	// see the new hour's data.
	advance := func() {
		next := clk.Now().Add(time.Minute)
		if next.Minute() == 0 {
			day := next.Truncate(24 * time.Hour)
			for _, d := range sims {
				if next.Hour() == 0 {
					d.grow(srv, day.AddDate(0, 0, -1), 1)
				}
				d.grow(srv, day, float64(next.Hour()+1)/24)
			}
		}
		clk.Advance(time.Minute)
		settle() // the refreshes the timer started run before anything else
	}
	for minute := 0; minute < hours*60; minute++ {
		now := clk.Now()
		e.Touch()
		settle()
		if minute < 60 || minute%5 != 0 {
			advance()
			continue
		}
		completed := map[string]time.Time{}
		for _, st := range e.States() {
			completed[st.Unit.String()] = st.Completed
		}
		for _, st := range e.States() {
			if st.Window.Days == 1 || st.Source == "visitors" || st.Source == "feedback" {
				continue
			}
			samples++
			if strings.HasPrefix(st.Summary, "derived") {
				derivedSamples++
				base := st.Source + "/" + st.Project + "/1d"
				if st.Window.Site {
					base += ":site"
				}
				if st.Completed.Before(completed[base]) {
					res.olderThan1d++
				}
			}
		}
		for _, u := range e.State().Units {
			if (u.Source == "visitors" || u.Source == "views") && !strings.HasSuffix(u.Window, ":site") {
				continue // a page walk: its window's totals unit exports the site-wide figure
			}
			w := windowOf(t, u.Window)
			truth := derivedSimTruth(srv, u.Source, u.Project, w.Range(now))
			if truth == 0 {
				continue
			}
			got := 0.0
			for _, s := range u.Families[derivedSimFamily0[u.Source]] {
				got += s.Value
			}
			rel := math.Abs(got-truth) / truth
			errSum += rel
			errN++
			res.bySource[u.Source] += rel
			counts[u.Source]++
		}
		advance()
	}
	for s := range res.bySource {
		res.bySource[s] /= float64(counts[s])
	}
	res.meanRelErr = errSum / float64(errN)
	if samples > 0 {
		res.derivedShare = float64(derivedSamples) / float64(samples)
	}
	long := 0
	for _, r := range srv.Requests() {
		switch r.Endpoint {
		case mintlifytest.EndpointViews, mintlifytest.EndpointCallerStats, mintlifytest.EndpointSearches:
		default:
			continue
		}
		from, err1 := time.Parse(time.DateOnly, r.Query.Get("dateFrom"))
		to, err2 := time.Parse(time.DateOnly, r.Query.Get("dateTo"))
		if err1 != nil || err2 != nil {
			continue
		}
		// 7d and 30d reads and audits, and closed days read for the store
		// (one day before the day of the request).
		if days := to.Sub(from).Hours() / 24; days > 1 || days == 1 && from.Before(r.At.Truncate(24*time.Hour)) {
			long++
		}
		if r.Status == 429 {
			res.rateLimits++
		}
	}
	res.longPerHour = float64(long) / float64(hours)
	res.requests, res.maxInHour = b.counts()
	return res
}

// seedDays reads every closed day of the 30d window before the clock's
// day through the additive sources, from a second fake serving the same
// data, into a day store: what `backfill --cache.file` leaves for a new
// installation.
func seedDays(t *testing.T, clk *mintlifytest.Clock, opts []mintlifytest.Option, o collector.Options, projects []string) []derived.Day {
	t.Helper()
	now := clk.Now
	srv := mintlifytest.NewServer(append([]mintlifytest.Option{mintlifytest.WithClock(now)}, opts...)...)
	defer srv.Close()
	srcs, err := collector.Build([]string{"views", "assistant", "searches"}, simClient(t, srv.URL(), clk, nil), o)
	if err != nil {
		t.Fatal(err)
	}
	var days []derived.Day
	today := client.DateOf(now())
	w := windowOf(t, "1d")
	for _, src := range srcs {
		for _, p := range projects {
			for d := 1; d <= 29; d++ {
				day := today.AddDays(-d)
				res, err := src.Fetch(context.Background(), engine.Unit{Source: src.Name(), Project: p, Window: w},
					client.DateRange{From: day, To: day.AddDays(1)}, 0)
				if err != nil {
					t.Fatal(err)
				}
				dd := derived.Day{Source: src.Name(), Project: p, Day: day.String(), ReadAt: now(), Cost: res.Cost,
					Families: map[string][]engine.Sample{}}
				for fi, f := range src.Families() {
					if fi < len(res.Samples) && len(res.Samples[fi]) > 0 {
						dd.Families[f.Name] = res.Samples[fi]
					}
				}
				days = append(days, dd)
			}
		}
	}
	return days
}

// TestDerivedWindowsSimulation: at the default setup, derived windows cut
// the requests spent on 7d and 30d of additive sources by at least 80 %
// (closed-day reads and audits included), keep them never older than their
// 1d unit, make the mean relative error of every exported value no worse
// than reading every window directly, and never exceed the budget.
func TestDerivedWindowsSimulation(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulates 26 hours twice: run without -short and -race (make simulate)")
	}
	const hours = 26
	direct := simulateDerived(t, false, hours)
	derived := simulateDerived(t, true, hours)
	var table strings.Builder
	fmt.Fprintf(&table, "| windows | requests in %dh | most in any hour | 7d+30d of additive sources, requests/h | mean relative error | visitors | views | assistant | feedback | searches |\n|---|---|---|---|---|---|---|---|---|---|\n", hours)
	for _, r := range []struct {
		name string
		res  derivedSimResult
	}{{"direct", direct}, {"derived", derived}} {
		fmt.Fprintf(&table, "| %s | %d | %d | %.1f | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f |\n", r.name, r.res.requests, r.res.maxInHour,
			r.res.longPerHour, r.res.meanRelErr, r.res.bySource["visitors"], r.res.bySource["views"], r.res.bySource["assistant"],
			r.res.bySource["feedback"], r.res.bySource["searches"])
	}
	t.Logf("2 projects x 1,000 paths; visitors, views, assistant, feedback, searches; 1d, 7d, 30d; budget 90/h; %dh from midnight; derived windows %.0f %% of the time\n%s",
		hours, 100*derived.derivedShare, table.String())
	for name, r := range map[string]derivedSimResult{"direct": direct, "derived": derived} {
		if r.maxInHour > 90 || r.rateLimits > 0 {
			t.Errorf("%s: %d requests in one sliding hour (budget 90), %d answered 429", name, r.maxInHour, r.rateLimits)
		}
	}
	if derived.olderThan1d > 0 {
		t.Errorf("a derived window was older than its 1d unit in %d samples", derived.olderThan1d)
	}
	if cut := 1 - derived.longPerHour/direct.longPerHour; cut < 0.80 {
		t.Errorf("derived windows cut the requests on 7d and 30d by %.0f %%, want at least 80 %%", 100*cut)
	}
	// Both errors are near 0 with the one rule (every one-request unit
	// and walk of this setup within its hour): derived windows must not
	// make them worse.
	if derived.meanRelErr > direct.meanRelErr+0.0005 {
		t.Errorf("derived windows raise the mean relative error from %.4f to %.4f", direct.meanRelErr, derived.meanRelErr)
	}
}
