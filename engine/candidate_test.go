package engine

import (
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/engine/budget"
	"github.com/mintlify-exporter/mintlify_exporter/engine/schedule"
)

// TestUnitCandidate pins how a unit's next request is classed and valued
// (docs/dev/design.md, "Value order"): first data, a large walk's first data
// by value, an hour-old one-request unit, a 1d unit showing the day that
// ended, staleness per request, and a derived window's audit.
func TestUnitCandidate(t *testing.T) {
	var one, walk *memSource
	r := newRig(t, rigOptions{perHour: 90, projects: []string{"docs"}, windows: []string{"1d", "7d"}},
		func(b *budget.Budget) Source { one = newMemSource("one", b); one.fixed = 1; return one },
		func(b *budget.Budget) Source { walk = newMemSource("walk", b); walk.step = true; return walk })
	unitOf := func(source, window string) *unit {
		for _, u := range r.e.units {
			if u.Source == source && u.Window.String() == window {
				return u
			}
		}
		t.Fatalf("no unit %s %s", source, window)
		return nil
	}
	yesterday := unitOf("one", "1d").Window.Range(t0.Add(-24 * time.Hour))
	data := func(u *unit, age time.Duration, cost int) {
		u.snap = &snapshot{rng: u.Window.Range(t0), completed: t0.Add(-age), res: &Result{Cost: cost}}
	}
	for _, c := range []struct {
		name   string
		unit   string // source/window
		set    func(u *unit)
		class  schedule.Class
		kind   schedule.Kind
		value  float64
		left   int
		crit   bool
		starts bool
	}{
		{name: "one request, no data", unit: "one/1d", set: func(*unit) {}, class: schedule.FirstData, kind: schedule.Single, left: 1, crit: true},
		{name: "one request, 30 min old", unit: "one/7d", set: func(u *unit) { data(u, 30*time.Minute, 1) },
			class: schedule.Stale, kind: schedule.Single, value: 0.5 / (24 * 7), left: 1},
		{name: "one request, an hour old", unit: "one/7d", set: func(u *unit) { data(u, time.Hour, 1) }, class: schedule.Overdue, kind: schedule.Single, left: 1},
		{name: "1d showing the day that ended", unit: "one/1d", set: func(u *unit) { data(u, 30*time.Minute, 1); u.snap.rng = yesterday },
			class: schedule.Urgent, kind: schedule.Single, left: 1, crit: true},
		{name: "a small walk, no data", unit: "walk/1d", set: func(*unit) { walk.fixed = 45 }, class: schedule.FirstData, kind: schedule.Walk, left: 45},
		{name: "a walk over half the hour, no data", unit: "walk/1d", set: func(*unit) { walk.fixed = 46 },
			class: schedule.Stale, kind: schedule.Walk, value: 1.0 / 46, left: 46},
		{name: "a walk with data, 12 h old", unit: "walk/1d", set: func(u *unit) { data(u, 12*time.Hour, 10) },
			class: schedule.Stale, kind: schedule.Walk, value: 0.5 / 10, left: 10},
		{name: "a walk with yesterday's data", unit: "walk/7d", set: func(u *unit) { data(u, time.Hour, 8); u.snap.rng = yesterday },
			class: schedule.Stale, kind: schedule.Walk, value: (1.0 / 7) / 7, left: 7},
		{name: "a walk in progress", unit: "walk/7d", set: func(u *unit) {
			data(u, 6*time.Hour, 10)
			u.job = &job{kind: jobRefresh, walk: &memWalk{sent: 4}}
		}, class: schedule.Stale, kind: schedule.Walk, value: (6.0 / (24 * 7)) / 6, left: 6, starts: true},
		{name: "a derived window's audit", unit: "one/7d", set: func(u *unit) { data(u, time.Hour, 2); u.derived = true },
			class: schedule.Stale, kind: schedule.Walk, value: 0.5 / (7 * 2), left: 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, u := range r.e.units {
				u.snap, u.job, u.derived = nil, nil, false
			}
			walk.fixed = 0
			u := unitOf(c.unit[:len(c.unit)-3], c.unit[len(c.unit)-2:])
			c.set(u)
			r.e.mu.Lock()
			cd := r.e.unitCandidateLocked(7, u, t0)
			r.e.mu.Unlock()
			got := cd.c
			if got.Class != c.class || got.Kind != c.kind || cd.left != c.left || got.Critical != c.crit || got.Started != c.starts || got.Order != 7 {
				t.Errorf("class %v kind %v left %d critical %v started %v order %d; want %v %v %d %v %v 7",
					got.Class, got.Kind, cd.left, got.Critical, got.Started, got.Order, c.class, c.kind, c.left, c.crit, c.starts)
			}
			if diff := got.Value - c.value; diff > 1e-12 || diff < -1e-12 {
				t.Errorf("value %v, want %v", got.Value, c.value)
			}
		})
	}
}
