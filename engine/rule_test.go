package engine

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/health"
)

// The rule of engine/doc.go, observed where a user sees it: the order in
// which the fake source is asked for units, and what the budget holds back.

// restored is cache-file data of a memSource unit: its window's range at
// completed, one series with the value 1.
func restored(source, project, window string, completed time.Time, cost int) UnitData {
	w, err := ParseWindow(window)
	if err != nil {
		panic(err)
	}
	rng := w.Range(completed)
	return UnitData{Source: source, Project: project, Window: window, DateFrom: rng.From.String(), DateTo: rng.To.String(),
		Completed: completed, Cost: cost, Families: map[string][]Sample{"test_" + source + "_fetches": {{Value: 1}}}}
}

// fetchSource is a rig option: a memSource named name whose units are
// fetched whole (not walks), each costing cost requests.
func fetchSource(src **memSource, name string, cost int) func(*budget.Budget) Source {
	return func(b *budget.Budget) Source {
		*src = newMemSource(name, b)
		(*src).fixed = cost
		return *src
	}
}

// TestNoDataGoesFirst: after a restart, a unit without data goes before a
// due refresh of a unit with data, whatever their order in the
// configuration ("no data at all worth most").
func TestNoDataGoesFirst(t *testing.T) {
	var src *memSource
	r := newRig(t, rigOptions{perHour: 90, projects: []string{"a", "b"}, windows: []string{"1d"},
		restore: &State{Units: []UnitData{restored("one", "a", "1d", t0.Add(-20*time.Minute), 1)}}},
		fetchSource(&src, "one", 1))
	r.e.Start()
	r.settle()
	if got, want := src.fetched(), []string{"one/b/1d", "one/a/1d"}; !slices.Equal(got, want) {
		t.Fatalf("fetched %v, want %v: the unit without data first", got, want)
	}
}

// TestShorterWindowsChangeFaster: among due refreshes of data, the one
// whose window changed most since it was read goes first: age over the
// window's length. A 1d unit 30 minutes old (a 48th of its window) goes
// before a 7d unit two hours old (an 84th), though the 7d unit is older
// and configured first.
func TestShorterWindowsChangeFaster(t *testing.T) {
	var src *memSource
	r := newRig(t, rigOptions{perHour: 90, projects: []string{"docs"}, windows: []string{"7d", "1d"},
		restore: &State{Units: []UnitData{
			restored("walk", "docs", "7d", t0.Add(-2*time.Hour), 2),
			restored("walk", "docs", "1d", t0.Add(-30*time.Minute), 2),
		}}},
		func(b *budget.Budget) Source { src = newMemSource("walk", b); return src })
	src.setCost("docs", "7d", 2)
	src.setCost("docs", "1d", 2)
	r.e.Start()
	r.settle()
	if got, want := src.fetched(), []string{"walk/docs/1d", "walk/docs/7d"}; !slices.Equal(got, want) {
		t.Fatalf("fetched %v, want %v", got, want)
	}
}

// TestShorterWindowsFirstAfterMidnight: at UTC midnight every window moves;
// the 1d window, all of whose data is now yesterday's, is read first, then
// the 7d window, which lost a seventh, then the 30d window, which lost a
// thirtieth, though they are configured the other way round.
func TestShorterWindowsFirstAfterMidnight(t *testing.T) {
	start := t0.Add(11*time.Hour + 50*time.Minute) // 23:50
	var src *memSource
	var units []UnitData
	for _, w := range []string{"30d", "7d", "1d"} {
		units = append(units, restored("big", "docs", w, start.Add(-5*time.Minute), 8))
	}
	r := newRig(t, rigOptions{perHour: 90, projects: []string{"docs"}, windows: []string{"30d", "7d", "1d"}, start: start,
		restore: &State{Units: units}},
		func(b *budget.Budget) Source { src = newMemSource("big", b); return src })
	for _, w := range []string{"30d", "7d", "1d"} {
		src.setCost("docs", w, 8)
	}
	r.e.Start()
	r.settle()
	if got := src.fetched(); len(got) != 0 {
		t.Fatalf("fetched %v before midnight, want nothing (data 5 minutes old)", got)
	}
	r.clock.Advance(10 * time.Minute) // 00:00 on the 11th
	r.settle()
	if got, want := src.fetched(), []string{"big/docs/1d", "big/docs/7d", "big/docs/30d"}; !slices.Equal(got, want) {
		t.Fatalf("fetched %v after midnight, want %v", got, want)
	}
	for _, rng := range src.ranges {
		if rng.To != client.DateOf(r.clock.Now()).AddDays(1) {
			t.Errorf("a fetch after midnight read %s, not a range ending with the new day", rng)
		}
	}
}

// TestWaitingFetchCostsLessAfterMidnight: a whole fetch of a 7d window
// that cost 15 requests and waits for the budget after midnight says it
// waits for 13: the day that left the window no longer costs its share.
func TestWaitingFetchCostsLessAfterMidnight(t *testing.T) {
	start := t0.Add(11*time.Hour + 50*time.Minute) // 23:50
	var src *memSource
	r := newRig(t, rigOptions{perHour: 20, projects: []string{"docs"}, windows: []string{"7d"}, start: start},
		func(b *budget.Budget) Source { src = newMemSource("big", b); return src })
	src.setCost("docs", "7d", 15)
	r.e.Start()
	r.settle()
	if n := src.count("docs", "7d"); n != 1 {
		t.Fatalf("%d fetches at 23:50, want 1", n)
	}
	r.clock.Advance(10 * time.Minute) // 00:00: due, 5 requests left in the hour
	r.settle()
	st := r.state("big/docs/7d")
	if want := "waiting for the request budget (13 requests)"; st.State != StateWaiting || st.Deferred != want {
		t.Fatalf("after midnight: %s %q, want %s %q", st.State, st.Deferred, StateWaiting, want)
	}
}

// TestReserveOnTheEveOfMidnight: Reserve, shown on the landing page, is a
// tenth of the budget, and from 23:00 UTC a request more for every 1d
// one-request unit with data (not a 7d one, not one without data), half
// the budget at most; at midnight it is a tenth again.
func TestReserveOnTheEveOfMidnight(t *testing.T) {
	var src *memSource
	r := newRig(t, rigOptions{perHour: 90, projects: []string{"a", "b", "c"}, windows: []string{"1d", "7d"}},
		fetchSource(&src, "one", 1))
	src.setFail("c", "1d", errServer) // c's 1d unit never has data
	r.e.Start()
	r.settle()
	for _, c := range []struct {
		at   time.Duration // since noon
		want int
	}{
		{0, 9},
		{11*time.Hour - time.Second, 9}, // 22:59:59
		{11 * time.Hour, 11},            // 23:00: a/1d and b/1d
		{11*time.Hour + 59*time.Minute, 11},
		{12 * time.Hour, 9}, // midnight
	} {
		r.clock.Advance(t0.Add(c.at).Sub(r.clock.Now()))
		if got := r.e.Reserve(); got != c.want {
			t.Errorf("at %s: reserve %d, want %d", r.clock.Now().Format("15:04:05"), got, c.want)
		}
	}

	// Eight 1d units of a budget of 10 an hour: half of it at most.
	var projects []string
	for i := range 8 {
		projects = append(projects, string(rune('a'+i)))
	}
	r = newRig(t, rigOptions{perHour: 10, projects: projects, windows: []string{"1d"}}, fetchSource(&src, "one", 1))
	r.e.Start()
	r.settle()
	if n := len(src.fetched()); n != 8 {
		t.Fatalf("%d units have data, want 8", n)
	}
	r.clock.Advance(11*time.Hour + 30*time.Minute)
	if got := r.e.Reserve(); got != 5 {
		t.Errorf("at 23:30 with 8 1d units: reserve %d, want 5 (half the budget)", got)
	}
}

// TestOneRequestUnitsHeldToAnHour: one-request units are refreshed within
// the hour while those of their window length and shorter fit two thirds
// of the budget, and the third left goes to the walks. At 6 requests an
// hour, two projects with one-request units of 1d, 7d and 30d and walks of
// 2 requests: the four 1d and 7d one-request units (two thirds of 6),
// once they have data (the 1d walks' first data goes before the 7d
// units'), are never an hour old, and every walk gets its data within 8
// hours.
func TestOneRequestUnitsHeldToAnHour(t *testing.T) {
	var one, walk *memSource
	r := newRig(t, rigOptions{perHour: 6, projects: []string{"a", "b"}, windows: []string{"1d", "7d", "30d"}},
		fetchSource(&one, "one", 1),
		func(b *budget.Budget) Source { walk = newMemSource("walk", b); walk.step = true; return walk })
	for _, p := range []string{"a", "b"} {
		for _, w := range []string{"1d", "7d", "30d"} {
			walk.setCost(p, w, 2)
		}
	}
	r.e.Start()
	r.settle()
	oldest := map[string]time.Duration{}
	for range 8 * 60 {
		r.clock.Advance(time.Minute)
		r.settle()
		for _, st := range r.e.States() {
			if st.Source == "one" && st.Window.Days < 30 && !st.Completed.IsZero() {
				oldest[st.Unit.String()] = max(oldest[st.Unit.String()], r.clock.Now().Sub(st.Completed))
			}
		}
	}
	for name, age := range oldest {
		if age >= time.Hour {
			t.Errorf("%s was %s old", name, age)
		}
	}
	for _, p := range []string{"a", "b"} {
		for _, w := range []string{"1d", "7d", "30d"} {
			if walk.count(p, w) == 0 {
				t.Errorf("walk/%s/%s has no data after 8 hours", p, w)
			}
		}
	}
}

// splitSource is a memSource whose windows are split into site totals and
// a page walk.
type splitSource struct{ *memSource }

func (splitSource) SplitsTotals() bool { return true }

// TestSiteTotalsFirstAmongEquals: of units whose next request is worth as
// much, site totals go before the rest: both projects' totals, then their
// pages.
func TestSiteTotalsFirstAmongEquals(t *testing.T) {
	var src *memSource
	r := newRig(t, rigOptions{perHour: 90, projects: []string{"a", "b"}, windows: []string{"1d"}},
		func(b *budget.Budget) Source { src = newMemSource("split", b); src.fixed = 1; return splitSource{src} })
	r.e.Start()
	r.settle()
	if got, want := src.fetched(), []string{"split/a/1d:site", "split/b/1d:site", "split/a/1d", "split/b/1d"}; !slices.Equal(got, want) {
		t.Fatalf("fetched %v, want %v", got, want)
	}
	if tot, pages := r.state("split/a/1d:site"), r.state("split/a/1d"); tot.Part != health.PartTotals || pages.Part != health.PartPages {
		t.Errorf("parts %q and %q, want %q and %q", tot.Part, pages.Part, health.PartTotals, health.PartPages)
	}
}

// TestSiteTotalsExpectedWithTheirWalk: at one request an hour, the site
// totals go first; the walk of 4 pages without data goes next, and its
// first page brings new totals too, so the landing page expects the totals'
// next refresh then, not after the walk when the rule would read them alone.
func TestSiteTotalsExpectedWithTheirWalk(t *testing.T) {
	r := newTotalsRig(t, rigOptions{perHour: 1, projects: []string{"a"}, windows: []string{"7d"}}, 4)
	r.e.Start()
	r.settle()
	r.clock.Advance(20 * time.Minute) // the totals are eligible again
	r.settle()
	tot, pages := r.state("site/a/7d:site"), r.state("site/a/7d")
	if tot.Completed.IsZero() || !pages.Completed.IsZero() || !pages.Next.After(r.clock.Now()) || !tot.Next.Equal(pages.Next) {
		t.Fatalf("totals (data %s) expected %s, the walk (data %s) %s; want the totals with data, expected with the walk's first page",
			tot.Completed, tot.Next, pages.Completed, pages.Next)
	}
	r.clock.Advance(pages.Next.Sub(r.clock.Now()))
	r.settle()
	if got := r.state("site/a/7d:site").Completed; !got.Equal(pages.Next) {
		t.Errorf("totals refreshed %s, want with the walk's first page at %s", got, pages.Next)
	}
}

// prevCosts is a memSource that records the prevCost of every Fetch.
type prevCosts struct {
	*memSource
	got *[]int
}

func (s prevCosts) Fetch(ctx context.Context, u Unit, r client.DateRange, prev int) (*Result, error) {
	s.mu.Lock()
	*s.got = append(*s.got, prev)
	s.mu.Unlock()
	return s.memSource.Fetch(ctx, u, r, prev)
}

// TestFetchIsToldItsLastCost: Source.Fetch's prevCost is 0 before the
// unit's first fetch, then what its last fetch cost.
func TestFetchIsToldItsLastCost(t *testing.T) {
	var src *memSource
	var got []int
	r := newRig(t, rigOptions{perHour: 90, projects: []string{"docs"}, windows: []string{"7d"}},
		func(b *budget.Budget) Source { src = newMemSource("paged", b); return prevCosts{src, &got} })
	src.setCost("docs", "7d", 3)
	r.e.Start()
	r.settle()
	src.setCost("docs", "7d", 5)
	r.clock.Advance(15 * time.Minute)
	r.settle()
	r.clock.Advance(15 * time.Minute)
	r.settle()
	src.mu.Lock()
	defer src.mu.Unlock()
	if want := []int{0, 3, 5}; !slices.Equal(got, want) {
		t.Fatalf("prevCost of the fetches: %v, want %v", got, want)
	}
}

// TestEveReserveOnTheLandingPage: at 23:00 UTC the reserve grows by a
// request for every 1d one-request unit, and at midnight it shrinks back; the
// landing page foresees both. Nine one-request units (1d, 7d and 30d, three
// projects) at 10 an hour, all read at 22:30: at 22:45 the 1d and 7d units
// are expected at 23:30 (6 of the 10 requests are not the eve's reserve),
// the 30d ones at 00:30 (after the 1d units read the new day at midnight),
// and at 23:00 when the reserve grows the page says the same; then each
// refresh starts when it said, within seconds.
func TestEveReserveOnTheLandingPage(t *testing.T) {
	var src *memSource
	r := newRig(t, rigOptions{perHour: 10, projects: []string{"a", "b", "c"}, windows: []string{"1d", "7d", "30d"},
		start: t0.Add(10*time.Hour + 30*time.Minute)}, fetchSource(&src, "one", 1))
	r.e.Start()
	r.settle()
	r.clock.Advance(15 * time.Minute) // 22:45
	r.settle()
	want := map[string]time.Time{}
	for _, w := range []string{"a/1d", "b/1d", "c/1d", "a/7d", "b/7d", "c/7d"} {
		want["one/"+w] = t0.Add(11*time.Hour + 30*time.Minute + budget.PaceMargin)
	}
	for _, w := range []string{"a/30d", "b/30d", "c/30d"} {
		want["one/"+w] = t0.Add(12*time.Hour + 30*time.Minute + 2*budget.PaceMargin)
	}
	expected := func(when string) {
		t.Helper()
		for _, st := range r.e.States() {
			if st.State != StateWaiting || !st.Next.Equal(want[st.Unit.String()]) {
				t.Fatalf("at %s: %s is %s, expected at %s; want waiting, expected at %s", when, st.Unit, st.State,
					st.Next.Format(time.DateTime), want[st.Unit.String()].Format(time.DateTime))
			}
		}
	}
	expected("22:45")
	r.clock.Advance(15 * time.Minute) // 23:00
	r.settle()
	expected("23:00")
	first := map[string]time.Time{} // each unit's refresh after 22:30
	for r.clock.Now().Before(t0.Add(12*time.Hour + 31*time.Minute)) {
		r.clock.Advance(time.Minute)
		r.settle()
		for _, st := range r.e.States() {
			if k := st.Unit.String(); first[k].IsZero() && st.Completed.After(t0.Add(10*time.Hour+30*time.Minute)) {
				first[k] = st.Completed
			}
		}
	}
	for k, w := range want {
		if first[k].Sub(w).Abs() > 15*time.Second {
			t.Errorf("%s refreshed at %s, expected at %s", k, first[k].Format(time.TimeOnly), w.Format(time.TimeOnly))
		}
	}
}
