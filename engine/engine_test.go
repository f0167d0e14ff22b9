package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// threeProjects is the large-site rig: 3 projects, windows 1d/7d/30d, a
// walk source ("walk", 8 requests a unit, in the cost group "paths"), its
// sibling ("views", same group, cost unknown before its first fetch) and a
// one-request source ("one"), with a budget of perHour.
func threeProjects(t *testing.T, perHour int) (*rig, *memSource, *memSource, *memSource) {
	var walk, views, one *memSource
	r := newRig(t, rigOptions{perHour: perHour, projects: []string{"a", "b", "c"}, windows: []string{"1d", "7d", "30d"}},
		func(b *budget.Budget) Source {
			walk = newMemSource("walk", b)
			walk.group = "paths"
			walk.step = true
			return walk
		},
		func(b *budget.Budget) Source {
			views = newMemSource("views", b)
			views.group = "paths"
			views.step = true
			return views
		},
		func(b *budget.Budget) Source { one = newMemSource("one", b); one.fixed = 1; return one },
	)
	for _, p := range []string{"a", "b", "c"} {
		for _, w := range []string{"1d", "7d", "30d"} {
			walk.setCost(p, w, 8)
			views.setCost(p, w, 8)
		}
	}
	return r, walk, views, one
}

// TestFirstRoundValueOrder: a first round of 153 requests against a
// budget of 90 goes in the rule's order: every one-request unit (1d, 7d,
// 30d), then the 1d walks, then the 7d walks; the hour's 90 requests all
// go out (the last walk stops after its first page and resumes); the
// rest wait for the budget, visibly and without failing; the engine is
// ready, scrapes do not wait, and the log says once when all data is
// expected.
func TestFirstRoundValueOrder(t *testing.T) {
	r, walk, views, one := threeProjects(t, 90)
	r.e.Start()
	r.settle()

	want := []string{"one/a/1d", "one/b/1d", "one/c/1d", "one/a/7d", "one/b/7d", "one/c/7d", "one/a/30d", "one/b/30d", "one/c/30d"}
	if got := one.fetched(); !slices.Equal(got, want) {
		t.Fatalf("one-request units fetched: %v, want %v", got, want)
	}
	want = []string{"walk/a/1d", "walk/b/1d", "walk/c/1d", "walk/a/7d", "walk/b/7d", "walk/c/7d"}
	if got := walk.fetched(); !slices.Equal(got, want) {
		t.Fatalf("walks fetched: %v, want %v", got, want)
	}
	want = []string{"views/a/1d", "views/b/1d", "views/c/1d", "views/a/7d"}
	if got := views.fetched(); !slices.Equal(got, want) {
		t.Fatalf("views walks fetched: %v, want %v", got, want)
	}
	// No idle budget: 9 + 48 + 32, and a page of views/b/7d.
	sent, _ := r.b.Ledger()
	if len(sent) != 90 {
		t.Fatalf("%d requests sent, want the hour's 90", len(sent))
	}
	if st := r.state("views/b/7d"); st.State != StateWaiting || !strings.Contains(st.Deferred, "1 of about 8 pages") {
		t.Errorf("views/b/7d: %s %q, want waiting with its walk at its first page", st.State, st.Deferred)
	}
	if !r.e.Ready() {
		t.Fatal("not ready although every unit has data or waits for the budget")
	}
	waiting := 0
	for _, s := range r.e.States() {
		switch s.State {
		case StateWaiting:
			waiting++
			if s.Completed.IsZero() && s.Source != "one" && s.Cost != 8 {
				t.Errorf("%s waits with the estimate %d, want 8 (from its siblings)", s.Unit, s.Cost)
			}
			if !s.Next.After(t0.Add(time.Hour)) || s.Next.After(t0.Add(2*time.Hour)) {
				t.Errorf("%s expected at %s, want within the second hour", s.Unit, s.Next)
			}
			if !strings.Contains(s.Deferred, "waiting for the request budget") {
				t.Errorf("%s: deferred %q", s.Unit, s.Deferred)
			}
		case StateOK:
		default:
			t.Errorf("%s is %s, want ok or waiting", s.Unit, s.State)
		}
	}
	if waiting != 8 {
		t.Errorf("%d units wait, want 8: views b and c 7d, and every 30d walk", waiting)
	}
	for _, p := range []string{"a", "b", "c"} {
		for _, src := range []string{"walk", "views", "one"} {
			if !r.st.Up(p, src) {
				t.Errorf("mintlify_up{project=%q,source=%q} is 0 while nothing failed", p, src)
			}
		}
	}
	// A scrape that may wait an hour returns at once: nothing can progress.
	done := make(chan struct{})
	go func() { r.e.Touch(); close(done) }()
	select {
	case <-done:
	case <-time.After(mintlifytest.Patience(30 * time.Second)):
		t.Fatal("a scrape waits for units that wait for the budget")
	}
	if n := r.logLines("the first round of refreshes needs more requests than the budget allows"); n != 1 {
		t.Errorf("the first round was logged %d times, want once:\n%s", n, r.logs)
	}
	if !strings.Contains(r.logs.String(), "first_round_requests=153 ") {
		t.Errorf("the log does not say the first round needs 153 requests:\n%s", r.logs)
	}

	// An hour on, the budget has room again: every unit gets data, on the
	// engine's own timer, and the log says so once.
	r.clock.Advance(time.Hour + time.Minute)
	r.waitFor("every unit has data", func() bool {
		for _, s := range r.e.States() {
			if s.Completed.IsZero() {
				return false
			}
		}
		return true
	})
	r.waitFor("the log line", func() bool { return r.logLines("every unit has data") == 1 })
	if used := r.b.Used(); used > 90 {
		t.Errorf("%d requests in the last hour, over the budget", used)
	}
}

// TestUnitsWaitingMetric: mintlify_units_waiting counts, per project and
// source, the units without data that wait for the budget, 0 included.
func TestUnitsWaitingMetric(t *testing.T) {
	r, _, _, _ := threeProjects(t, 90)
	r.e.Start()
	r.settle()
	want := map[string]int{}
	for _, s := range r.e.States() {
		k := fmt.Sprintf(`mintlify_units_waiting{project=%q,source=%q}`, s.Project, s.Source)
		want[k] += 0
		if s.State == StateWaiting && s.Completed.IsZero() {
			want[k]++
		}
	}
	var exp strings.Builder
	exp.WriteString("# HELP mintlify_units_waiting Windows of the source with no data yet that wait for the request budget.\n# TYPE mintlify_units_waiting gauge\n")
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	total := 0
	for _, k := range keys {
		fmt.Fprintf(&exp, "%s %d\n", k, want[k])
		total += want[k]
	}
	if total != 8 {
		t.Fatalf("%d units wait for their first data, want 8", total)
	}
	if err := testutil.CollectAndCompare(r.e.LiveCollectors()[1], strings.NewReader(exp.String())); err != nil {
		t.Fatal(err)
	}
	// Literal: project c has one walk waiting ... whatever the order, the
	// 30d windows of views wait last.
	if want[`mintlify_units_waiting{project="c",source="views"}`] == 0 {
		t.Errorf("project c's views do not wait: %v", want)
	}
}

// TestEstimateFromSiblings: before its first fetch a walk is estimated
// from the same project's other windows (the nearest by ratio of days),
// then from its cost group's other source, then from the same window of
// another project; a source that knows its cost says it.
func TestEstimateFromSiblings(t *testing.T) {
	r, walk, views, _ := threeProjects(t, 10_000)
	walk.setCost("a", "1d", 3)
	walk.setCost("a", "30d", 12)
	views.setCost("a", "7d", 5)
	for _, w := range []string{"1d", "7d", "30d"} {
		views.setCost("c", w, 6)
	}
	find := func(name string) *unit {
		for _, u := range r.e.units {
			if u.Unit.String() == name {
				return u
			}
		}
		t.Fatalf("no unit %s", name)
		return nil
	}
	estimate := func(name string) (int, bool) {
		r.e.mu.Lock()
		defer r.e.mu.Unlock()
		return r.e.estimateLocked(find(name), t0)
	}
	if c, guess := estimate("walk/a/7d"); c != unknownCost || !guess {
		t.Errorf("nothing known: estimate %d (guess %v), want the default %d", c, guess, unknownCost)
	}
	if c, guess := estimate("one/a/7d"); c != 1 || guess {
		t.Errorf("a one-request source: estimate %d (guess %v), want 1", c, guess)
	}
	r.e.Start()
	r.settle()
	for name, want := range map[string]int{"walk/a/1d": 3, "walk/a/30d": 12, "views/a/7d": 5, "walk/b/7d": 8} {
		if c, _ := estimate(name); c != want {
			t.Errorf("%s: estimate %d after its fetch, want its cost %d", name, c, want)
		}
	}
	// Once midnight moved the windows, a 7d walk costs a day's share less;
	// a 1d walk is estimated as long as its last.
	r.e.mu.Lock()
	week, _ := r.e.estimateLocked(find("walk/b/7d"), t0.Add(24*time.Hour))
	day, _ := r.e.estimateLocked(find("walk/a/1d"), t0.Add(24*time.Hour))
	r.e.mu.Unlock()
	if week != 7 || day != 3 {
		t.Errorf("the next day: estimates %d (7d, 8 before) and %d (1d, 3 before), want 7 and 3", week, day)
	}
	r.e.Close() // the units' data is taken away below, under the lock
	forget := func(names ...string) {
		r.e.mu.Lock()
		defer r.e.mu.Unlock()
		for _, n := range names {
			find(n).snap = nil
		}
	}
	forget("walk/a/7d", "views/a/1d")
	for name, want := range map[string]int{
		"walk/a/7d":  12, // 30d is nearer to 7d than 1d by ratio (30/7 < 7/1)
		"views/a/1d": 5,  // its source's 7d, the nearest window with data
	} {
		if c, guess := estimate(name); c != want || guess {
			t.Errorf("%s: estimate %d (guess %v) from its own source, want %d", name, c, guess, want)
		}
	}
	forget("walk/c/1d", "walk/c/7d", "walk/c/30d")
	if c, _ := estimate("walk/c/30d"); c != 6 {
		t.Errorf("walk/c/30d: estimate %d, want 6 from its group's views/c/30d", c)
	}
	forget("views/c/1d", "views/c/7d", "views/c/30d")
	if c, _ := estimate("walk/c/30d"); c != 12 {
		t.Errorf("walk/c/30d: estimate %d, want 12 from the same window of another project (the larger of a's 12 and b's 8)", c)
	}
}

// TestRefreshesOnItsOwnTimer: with no scrape at all, a 1d unit with a 20 s
// interval (budget 3,600) is refreshed again when it falls due, a failed
// one when its back-off ends, and every unit when a rate-limit pause ends.
func TestRefreshesOnItsOwnTimer(t *testing.T) {
	var src *memSource
	r := newRig(t, rigOptions{perHour: 3600, minInterval: 20 * time.Second, projects: []string{"docs"}, windows: []string{"1d"}},
		func(b *budget.Budget) Source { src = newMemSource("one", b); src.fixed = 1; return src })
	r.e.Start()
	r.waitFor("the first refresh", func() bool { return src.count("docs", "1d") == 1 })

	r.clock.Advance(20 * time.Second)
	r.waitFor("the refresh 20 s later, without a scrape", func() bool { return src.count("docs", "1d") == 2 })

	// A failure backs off 30 s; the retry runs on the timer too.
	src.setFail("docs", "1d", errServer)
	r.clock.Advance(20 * time.Second)
	r.waitFor("the failed refresh", func() bool { return !r.st.Up("docs", "one") })
	src.setFail("docs", "1d", nil)
	r.clock.Advance(30 * time.Second)
	r.waitFor("the retry after the back-off", func() bool { return src.count("docs", "1d") == 3 && r.st.Up("docs", "one") })

	// A 429 pauses everything 10 minutes; the unit goes again when the
	// pause ends, not before.
	src.setFail("docs", "1d", rateLimited(10*time.Minute))
	r.clock.Advance(20 * time.Second)
	r.waitFor("the rate-limited refresh", func() bool { return !r.b.PausedUntil().IsZero() })
	src.setFail("docs", "1d", nil)
	r.settle()
	if st := r.state("one/docs/1d"); st.State != StateFailing || !st.Next.Equal(r.b.PausedUntil()) {
		t.Errorf("during the pause: %s, next %s, want failing until %s", st.State, st.Next, r.b.PausedUntil())
	}
	r.clock.Advance(9 * time.Minute)
	r.settle()
	if n := src.count("docs", "1d"); n != 3 {
		t.Fatalf("%d fetches during the pause, want none since the 429", n-3)
	}
	r.clock.Advance(time.Minute)
	r.waitFor("the refresh when the pause ends", func() bool {
		return src.count("docs", "1d") == 4 && r.logLines("refresh succeeded again") == 2
	})
	if n := r.logLines("refresh failed"); n != 2 {
		t.Errorf("%d failure lines, want 2 (one per kind):\n%s", n, r.logs)
	}
}

// TestCheapUnitDoesNotWaitBehindAWalk: a walk twice as long as the hour's
// budget goes on request by request for hours, and a one-request unit
// beside it never goes more than an hour without a refresh, even during
// the walk's first round; the budget holds in every sliding hour, and the
// walk completes again and again.
func TestCheapUnitDoesNotWaitBehindAWalk(t *testing.T) {
	var walk, one *memSource
	r := newRig(t, rigOptions{perHour: 20, projects: []string{"docs"}, windows: []string{"1d"}},
		func(b *budget.Budget) Source { walk = newMemSource("walk", b); walk.step = true; return walk },
		func(b *budget.Budget) Source { one = newMemSource("one", b); one.fixed = 1; return one })
	walk.setCost("docs", "1d", 40)
	r.e.Start()
	r.settle()
	last, gap := t0, time.Duration(0)
	seen := one.count("docs", "1d")
	for range 10 * 60 { // ten hours, a minute at a time
		r.clock.Advance(time.Minute)
		r.settle()
		if n := one.count("docs", "1d"); n != seen {
			gap = max(gap, r.clock.Now().Sub(last))
			last, seen = r.clock.Now(), n
		}
		if used := r.b.Used(); used > 20 {
			t.Fatalf("%d requests in the last hour, over 20", used)
		}
	}
	gap = max(gap, r.clock.Now().Sub(last))
	if gap > time.Hour {
		t.Errorf("the one-request unit went %s without a refresh beside the walk", gap)
	}
	if n := walk.count("docs", "1d"); n < 2 {
		t.Errorf("the walk of 40 requests at 20 an hour completed %d times in ten hours, want at least 2", n)
	}
	t.Logf("ten hours: the walk completed %d times, the one-request unit %d times, its longest gap %s", walk.count("docs", "1d"), seen, gap)
}

// TestScrapeHoldsOnlyForProgress: a scrape waits for first data while a
// first refresh is sending requests, and returns once it ends.
func TestScrapeHoldsOnlyForProgress(t *testing.T) {
	var src *memSource
	r := newRig(t, rigOptions{perHour: 90, projects: []string{"docs"}, windows: []string{"1d"}},
		func(b *budget.Budget) Source { src = newMemSource("one", b); src.fixed = 1; return src })
	if r.e.Ready() {
		t.Fatal("ready before the first attempt")
	}
	// Not started: nothing progresses, so a scrape does not wait.
	r.e.Touch()
	r.e.Start()
	r.settle()
	if src.count("docs", "1d") != 1 || !r.e.Ready() {
		t.Fatalf("not ready after the first refresh: %+v", r.e.States())
	}
}

// TestFailureIsNotWaiting: a unit whose first refresh failed is ready (its
// failure shows in mintlify_up) and keeps no scrape waiting.
func TestFailureIsNotWaiting(t *testing.T) {
	var src *memSource
	r := newRig(t, rigOptions{perHour: 90, projects: []string{"docs"}, windows: []string{"1d"}},
		func(b *budget.Budget) Source { src = newMemSource("one", b); src.fixed = 1; return src })
	src.setFail("docs", "1d", errServer)
	r.e.Start()
	r.settle()
	if !r.e.Ready() || r.st.Up("docs", "one") {
		t.Fatalf("after a failed first refresh: ready %v, up %v", r.e.Ready(), r.st.Up("docs", "one"))
	}
	if st := r.state("one/docs/1d"); st.State != StateFailing || !st.Next.Equal(t0.Add(failureBackoffBase)) {
		t.Errorf("state %s, next %s; want failing, next at %s", st.State, st.Next, t0.Add(failureBackoffBase))
	}
}
