package engine

import (
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/engine/budget"
)

// TestReservations pins the forecast's ledger: an hour is (end-1h, end], a
// booking fits when every sliding hour it touches stays within the budget,
// and the earliest time n requests fit is now or when a booking leaves the
// hour (with the budget's pacing margin).
func TestReservations(t *testing.T) {
	m := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }
	r := newReservations([]time.Time{m(0), m(10), m(10)}, 4)
	r.add(m(30), 1)
	for _, c := range []struct {
		end  time.Time
		want int
	}{
		{m(-1), 0}, {m(0), 1}, {m(10), 3}, {m(30), 4}, {m(59), 4}, {m(60), 3}, {m(69), 3}, {m(70), 1}, {m(90), 0},
	} {
		if got := r.count(c.end); got != c.want {
			t.Errorf("count(%s) = %d, want %d", c.end.Format(time.TimeOnly), got, c.want)
		}
	}
	for _, c := range []struct {
		at   time.Time
		n    int
		want bool
	}{
		{m(30), 1, false}, // that hour holds 4
		{m(-61), 4, true}, // an hour before everything
		{m(-1), 1, false}, // the hour ending at 00:30 would hold 5
		{m(60), 1, true},  // (00:00, 01:00] holds 3 once 00:00 has left
		{m(60), 2, false},
		{m(70), 3, true},
		{m(70), 4, false}, // 00:30 is still in the hour
		{m(91), 4, true},
		{m(-30), 1, true}, // the hour ending at 00:10 reaches 4 exactly; 00:30's hour starts after it
	} {
		if got := r.fits(c.at, c.n); got != c.want {
			t.Errorf("fits(%s, %d) = %v, want %v", c.at.Format(time.TimeOnly), c.n, got, c.want)
		}
	}
	margin := budget.PaceMargin
	for _, c := range []struct {
		from time.Time
		n    int
		want time.Time
	}{
		{m(91), 1, m(91)},
		{m(30), 1, m(60).Add(margin)},
		{m(30), 2, m(70).Add(margin)},
		{m(30), 4, m(90).Add(margin)},
		{m(65), 3, m(70).Add(margin)},
	} {
		if got := r.earliest(c.from, c.n); !got.Equal(c.want) {
			t.Errorf("earliest(%s, %d) = %s, want %s", c.from.Format(time.TimeOnly), c.n, got.Format(time.TimeOnly), c.want.Format(time.TimeOnly))
		}
	}
}

// TestRolloverReserve: in the hour before UTC midnight, one request is kept
// for each 1d unit of one request with data, at most half the budget.
func TestRolloverReserve(t *testing.T) {
	var one, walk *memSource
	r := newRig(t, rigOptions{perHour: 6, projects: []string{"docs", "api", "www", "blog"}, windows: []string{"1d", "7d"}},
		func(b *budget.Budget) Source { one = newMemSource("one", b); one.fixed = 1; return one },
		func(b *budget.Budget) Source { walk = newMemSource("walk", b); walk.step = true; return walk })
	midnight := time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC)
	for _, u := range r.e.units {
		u.snap = &snapshot{rng: u.Window.Range(midnight.Add(-time.Hour)), completed: midnight.Add(-2 * time.Hour), res: &Result{Cost: 1}}
	}
	derived := r.e.units[0]
	for _, c := range []struct {
		now  time.Time
		want int
	}{
		{midnight.Add(-time.Hour - time.Second), 0},
		{midnight.Add(-time.Hour), 3}, // 4 one-request 1d units, at most 6/2
		{midnight.Add(-time.Minute), 3},
	} {
		if got := r.e.rolloverReserveLocked(c.now); got != c.want {
			t.Errorf("at %s: reserve %d, want %d", c.now.Format(time.TimeOnly), got, c.want)
		}
	}
	r.e.cfg.Budget = budget.New(90, r.clock.Now)
	if got := r.e.rolloverReserveLocked(midnight.Add(-time.Minute)); got != 4 {
		t.Errorf("reserve %d, want 4: the 1d units of one request, not 7d, not walks", got)
	}
	derived.derived = true
	if got := r.e.rolloverReserveLocked(midnight.Add(-time.Minute)); got != 3 {
		t.Errorf("reserve %d with one 1d unit derived, want 3", got)
	}
}
