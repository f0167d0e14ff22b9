package engine

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// oneUnit is a rig of one one-request source ("one") over projects and
// windows.
func oneUnit(t *testing.T, o rigOptions) (*rig, *memSource) {
	var src *memSource
	if o.perHour == 0 {
		o.perHour = 90
	}
	r := newRig(t, o, func(b *budget.Budget) Source { src = newMemSource("one", b); src.fixed = 1; return src })
	return r, src
}

// TestServesOldDataWhileRefreshing: stale-while-revalidate. A scrape during
// a refresh is answered at once from the previous data; the new data
// replaces it when the refresh ends. Scrapes within the interval send
// nothing.
func TestServesOldDataWhileRefreshing(t *testing.T) {
	r, src := oneUnit(t, rigOptions{projects: []string{"docs"}, windows: []string{"1d"}})
	r.e.Start()
	r.settle()
	first := r.text()
	for range 20 {
		r.clock.Advance(30 * time.Second)
		r.settle()
	}
	if n := src.count("docs", "1d"); n != 1 {
		t.Fatalf("%d fetches within the interval, want 1", n)
	}
	src.mu.Lock()
	src.gate = make(chan struct{})
	src.mu.Unlock()
	r.clock.Advance(5 * time.Minute) // 15 minutes since the first refresh
	r.e.Touch()
	r.eventually("the refresh to start", func() bool { return r.state("one/docs/1d").State == StateRefreshing })
	done := make(chan struct{})
	go func() { r.e.Touch(); close(done) }()
	select {
	case <-done:
	case <-time.After(mintlifytest.Patience(30 * time.Second)):
		t.Fatal("a scrape waits for a refresh although the unit has data")
	}
	if got := r.text(); got != first {
		t.Fatalf("the exposition changed before the refresh ended:\n%s", got)
	}
	src.gate <- struct{}{}
	r.waitFor("the new data", func() bool { return strings.Contains(r.text(), "test_one_fetches{project=\"docs\",window=\"1d\"} 2\n") })
}

// TestOneRefreshAtATime: 25 concurrent first scrapes start one refresh.
func TestOneRefreshAtATime(t *testing.T) {
	r, src := oneUnit(t, rigOptions{projects: []string{"docs"}, windows: []string{"7d"}})
	r.e.Start()
	var wg sync.WaitGroup
	for range 25 {
		wg.Add(1)
		go func() { defer wg.Done(); r.e.Touch() }()
	}
	wg.Wait()
	r.settle()
	if n := src.count("docs", "7d"); n != 1 {
		t.Fatalf("25 concurrent first scrapes: %d fetches, want 1", n)
	}
}

// TestFailureKeepsData: a failing refresh keeps the last data byte for
// byte, sets mintlify_up to 0, logs the failure once however often it
// recurs, and logs the recovery.
func TestFailureKeepsData(t *testing.T) {
	r, src := oneUnit(t, rigOptions{projects: []string{"docs"}, windows: []string{"1d"}})
	r.e.Start()
	r.settle()
	good := r.text()
	src.setFail("docs", "1d", errServer)
	for i := range 6 {
		r.clock.Advance(16 * time.Minute)
		r.settle()
		if r.text() != good {
			t.Fatalf("round %d: the exposition changed after a failed refresh", i)
		}
		if r.st.Up("docs", "one") {
			t.Fatalf("round %d: up after a failed refresh", i)
		}
	}
	if n := r.logLines("one refresh failed; serving the previous data"); n != 1 {
		t.Fatalf("the same failure was logged %d times, want once:\n%s", n, r.logs)
	}
	src.setFail("docs", "1d", nil)
	r.clock.Advance(16 * time.Minute)
	r.settle()
	if !r.st.Up("docs", "one") || r.logLines("one refresh succeeded again") != 1 {
		t.Fatalf("no recovery; logs:\n%s", r.logs)
	}
}

// TestFailureBacksOff: an hour of a refusing API costs a handful of
// attempts (30 s, 1 m, 2 m, 4 m, 8 m, then the interval), and the log says
// what to check.
func TestFailureBacksOff(t *testing.T) {
	r, src := oneUnit(t, rigOptions{projects: []string{"docs"}, windows: []string{"1d"}})
	src.setFail("docs", "1d", &client.APIError{Endpoint: client.EndpointVisitors, StatusCode: 401, Message: "Unauthorized"})
	r.e.Start()
	for range 240 {
		r.settle()
		r.clock.Advance(15 * time.Second)
	}
	attempts := len(src.fetched())
	if attempts < 5 || attempts > 10 {
		t.Fatalf("an hour of failing refreshes made %d attempts, want 5..10", attempts)
	}
	if !strings.Contains(r.logs.String(), "the admin API key was refused") {
		t.Fatalf("401 not explained in the log:\n%s", r.logs)
	}
}

// TestDayRollover: at UTC midnight every window moves and is refreshed
// for its new dates, even though its interval has not passed.
func TestDayRollover(t *testing.T) {
	r, src := oneUnit(t, rigOptions{projects: []string{"docs"}, windows: []string{"1d", "7d"}})
	r.clock.Advance(11*time.Hour + 59*time.Minute + 30*time.Second) // 23:59:30
	r.e.Start()
	r.settle()
	r.clock.Advance(time.Minute) // 00:00:30 on the 11th
	r.waitFor("both windows refreshed after midnight", func() bool { return len(src.fetched()) == 4 })
	var got []string
	src.mu.Lock()
	for _, rng := range src.ranges {
		got = append(got, rng.String())
	}
	src.mu.Unlock()
	want := map[string]bool{"[2026-03-10, 2026-03-11)": true, "[2026-03-04, 2026-03-11)": true,
		"[2026-03-11, 2026-03-12)": true, "[2026-03-05, 2026-03-12)": true}
	for _, g := range got {
		if !want[g] {
			t.Errorf("unexpected range %s", g)
		}
		delete(want, g)
	}
	if len(want) > 0 {
		t.Errorf("ranges never fetched: %v (fetched %v)", want, got)
	}
}

// TestRateLimitPausesEveryUnit: a 429 on one unit pauses every unit until
// Retry-After, or a back-off when it is absent or past, capped at an hour; then
// every unit goes again, on the engine's timer.
func TestRateLimitPausesEveryUnit(t *testing.T) {
	for _, c := range []struct {
		name  string
		err   error
		pause time.Duration
	}{
		{"retry-after", rateLimited(10 * time.Minute), 10 * time.Minute},
		{"absent", &client.APIError{Endpoint: client.EndpointVisitors, StatusCode: 429, Message: "Too Many Requests"}, 2 * time.Minute},
		{"capped", rateLimited(48 * time.Hour), client.MaxRateLimitPause},
		{"already past", rateLimited(-time.Minute), 2 * time.Minute}, // an HTTP date gone by: no hot loop
	} {
		t.Run(c.name, func(t *testing.T) {
			r, src := oneUnit(t, rigOptions{projects: []string{"docs", "api"}, windows: []string{"1d"}})
			r.e.Start()
			r.settle()
			src.setFail("docs", "1d", c.err)
			r.clock.Advance(15 * time.Minute) // both due: docs fails first
			r.settle()
			src.setFail("docs", "1d", nil)
			if got := r.b.PausedUntil(); !got.Equal(r.clock.Now().Add(c.pause)) {
				t.Fatalf("paused until %s, want %s", got, r.clock.Now().Add(c.pause))
			}
			before := len(src.fetched())
			for step := time.Duration(0); step < c.pause-15*time.Second; step += 15 * time.Second {
				r.clock.Advance(15 * time.Second)
				r.settle()
				if n := len(src.fetched()); n != before {
					t.Fatalf("a fetch %s into a %s pause", step, c.pause)
				}
			}
			if st := r.state("one/api/1d"); st.State != StateWaiting || !strings.Contains(st.Deferred, "rate-limit pause") {
				t.Errorf("api during the pause: %s (%q), want waiting for the pause", st.State, st.Deferred)
			}
			r.clock.Advance(15 * time.Second)
			r.waitFor("both units after the pause", func() bool { return r.st.Up("docs", "one") && src.count("api", "1d") == 2 })
		})
	}
}

// TestWalkLongerThanTheBudgetResumes: a walk that needs more requests
// than one hour's budget sends what fits, yields, and resumes on the
// engine's timer as room frees, without holding the worker or failing.
func TestWalkLongerThanTheBudgetResumes(t *testing.T) {
	var src *memSource
	r := newRig(t, rigOptions{perHour: 2, projects: []string{"docs"}, windows: []string{"7d"}},
		func(b *budget.Budget) Source { src = newMemSource("walk", b); src.step = true; return src })
	src.setCost("docs", "7d", 5)
	r.e.Start()
	r.settle()
	if st := r.state("walk/docs/7d"); st.State != StateWaiting || !strings.Contains(st.Deferred, "2 of about") {
		t.Fatalf("after the hour's 2 requests: %s %q, want waiting with its walk at 2 pages", st.State, st.Deferred)
	}
	// 5 requests at 2 an hour: two waits for the hour of the oldest
	// requests to end.
	for range 2 {
		r.clock.Advance(r.state("walk/docs/7d").Next.Sub(r.clock.Now()))
		r.settle()
	}
	r.waitFor("the walk", func() bool { return src.count("docs", "7d") == 1 })
	if took := r.clock.Now().Sub(t0); took != 2*(time.Hour+budget.PaceMargin) {
		t.Errorf("the walk took %s of clock time, want 2h10s", took)
	}
	if !r.st.Up("docs", "walk") {
		t.Fatal("the walk failed")
	}
}

// TestMaxWalkAge: a walk may run three hours, or twice what the whole
// budget takes to send it when that is longer.
func TestMaxWalkAge(t *testing.T) {
	for _, tc := range []struct {
		cost, perHour int
		want          time.Duration
	}{
		{1, 90, 3 * time.Hour},
		{135, 90, 3 * time.Hour},
		{180, 90, 4 * time.Hour},
		{400, 90, 8*time.Hour + 53*time.Minute + 20*time.Second},
		{10, 0, 20 * time.Hour},
	} {
		if got := maxWalkAge(tc.cost, tc.perHour); got != tc.want {
			t.Errorf("maxWalkAge(%d, %d) = %s, want %s", tc.cost, tc.perHour, got, tc.want)
		}
	}
}

// TestWalkStartsAgainAtMidnight: a 1d walk still under way when the UTC
// day ends starts again with the new day's range (its pages would be
// yesterday's); a 7d walk goes on with its range; a walk older than
// maxWalkAge starts again.
func TestWalkStartsAgainAtMidnight(t *testing.T) {
	var src *memSource
	r := newRig(t, rigOptions{perHour: 10, projects: []string{"docs"}, windows: []string{"1d"}},
		func(b *budget.Budget) Source { src = newMemSource("walk", b); src.step = true; return src })
	src.setCost("docs", "1d", 25)
	r.clock.Advance(11*time.Hour + 30*time.Minute) // 23:30
	r.e.Start()
	r.settle()
	if st := r.state("walk/docs/1d"); st.State != StateWaiting || st.Progress == "" {
		t.Fatalf("at 23:30: %s (%q), want the walk waiting half way", st.State, st.Progress)
	}
	old := client.LastNDays(r.clock.Now(), 1)
	for range 4 * 60 {
		r.clock.Advance(time.Minute)
		r.settle()
		if src.count("docs", "1d") > 0 {
			break
		}
	}
	src.mu.Lock()
	ranges := append([]client.DateRange(nil), src.ranges...)
	src.mu.Unlock()
	if len(ranges) != 1 || ranges[0] == old || ranges[0] != client.LastNDays(r.clock.Now(), 1) {
		t.Fatalf("walks completed over %v, want one, of the new day (not %v)", ranges, old)
	}

	r.e.mu.Lock()
	defer r.e.mu.Unlock()
	u := r.e.units[0]
	now := r.clock.Now()
	for _, tc := range []struct {
		name    string
		days    int
		rng     client.DateRange
		started time.Time
		want    bool
	}{
		{"a fresh walk", 1, u.Window.Range(now), now, false},
		{"a 1d walk of yesterday", 1, client.LastNDays(now.Add(-24*time.Hour), 1), now, true},
		{"a 7d walk of yesterday's range", 7, client.LastNDays(now.Add(-24*time.Hour), 7), now, false},
		{"a walk at its age bound", 1, u.Window.Range(now), now.Add(-maxWalkAge(25, 10)), false},
		{"a walk past its age bound", 1, u.Window.Range(now), now.Add(-maxWalkAge(25, 10) - time.Second), true},
	} {
		w := *u
		w.Window.Days = tc.days
		j := &job{u: &w, rng: tc.rng, started: tc.started}
		if got := r.e.expiredLocked(j, now); got != tc.want {
			t.Errorf("%s: expired %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestStaleDataOutgrowsItsInterval: a unit's interval is set once per
// refresh, so data that stops being refreshed (here the API fails for
// three hours) grows older than three of its intervals and
// MintlifyDataStale can fire; the interval does not follow the age.
func TestStaleDataOutgrowsItsInterval(t *testing.T) {
	r, src := oneUnit(t, rigOptions{projects: []string{"docs"}, windows: []string{"7d"}})
	r.e.Start()
	r.settle()
	src.setFail("docs", "7d", errServer)
	for range 180 {
		r.clock.Advance(time.Minute)
		r.settle()
	}
	st := r.state("one/docs/7d")
	age := r.clock.Now().Sub(st.Completed)
	if st.Completed.IsZero() || st.Interval < 15*time.Minute || age <= 3*st.Interval {
		t.Fatalf("after 3 h of failures: data %s old, interval %s: MintlifyDataStale (age > 3 × interval) cannot fire", age, st.Interval)
	}
}
