package engine

import (
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine/derive"
)

// TestDueAt pins when a unit falls due: its interval after its data, the
// midnight that moves its window when that comes first or is within the
// last quarter of an interval, a derived window's grace after midnight, a
// back-off, and a derived window's daily audit.
func TestDueAt(t *testing.T) {
	noon := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	midnight := time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC)
	today := client.DateRange{From: client.DateOf(noon), To: client.DateOf(midnight)}
	snap := func(completed time.Time) *snapshot { return &snapshot{rng: today, completed: completed} }
	e := &Engine{days: derive.Store[*Result]{}}
	for _, c := range []struct {
		name string
		u    unit
		now  time.Time
		want time.Time
	}{
		{"no data: at once", unit{}, noon, time.Time{}},
		{"no data, backing off", unit{retryAt: noon.Add(time.Minute)}, noon, noon.Add(time.Minute)},
		{"in flight", unit{inFlight: true, snap: snap(noon)}, noon, time.Time{}},
		{"data an interval old", unit{snap: snap(noon), interval: time.Hour}, noon, noon.Add(time.Hour)},
		{"due just before the last quarter", unit{snap: snap(noon.Add(7*time.Hour - time.Second)), interval: 4 * time.Hour}, noon.Add(7 * time.Hour), noon.Add(11*time.Hour - time.Second)},
		{"due in the last quarter: waits for midnight", unit{snap: snap(noon.Add(7 * time.Hour)), interval: 4 * time.Hour}, noon.Add(7 * time.Hour), midnight},
		{"due after midnight: at midnight", unit{snap: snap(noon), interval: 24 * time.Hour}, noon, midnight},
		{"now in the last quarter", unit{snap: snap(noon), interval: 48 * time.Minute}, midnight.Add(-12 * time.Minute), midnight},
		{"just before the last quarter", unit{snap: snap(noon), interval: 48 * time.Minute}, midnight.Add(-12*time.Minute - time.Second), noon.Add(48 * time.Minute)},
		{"a back-off after its interval", unit{snap: snap(noon), interval: time.Hour, retryAt: noon.Add(90 * time.Minute)}, noon, noon.Add(90 * time.Minute)},
		{"a back-off before its interval", unit{snap: snap(noon), interval: time.Hour, retryAt: noon.Add(30 * time.Minute)}, noon, noon.Add(time.Hour)},
		{"derived data: the grace after midnight", unit{snap: &snapshot{rng: today, completed: noon, derived: true}, interval: time.Hour}, noon, midnight.Add(derivedGrace)},
		{"derived data read directly again", unit{snap: &snapshot{rng: today, completed: noon, derived: true}, interval: time.Hour, fallback: "drift"}, noon, noon.Add(time.Hour)},
		{"derived: audited daily", unit{Unit: Unit{Window: Window{Days: 7}}, derived: true, auditAt: noon.Add(-time.Hour)}, noon, noon.Add(23 * time.Hour)},
	} {
		u := c.u
		if got := e.dueAtLocked(&u, c.now); !got.Equal(c.want) {
			t.Errorf("%s: due %s, want %s", c.name, got.Format(time.DateTime), c.want.Format(time.DateTime))
		}
	}
}

// TestDueAtAuditWaitsForSettledDays: a derived window whose days are still
// provisional is audited an hour on at the earliest, not before.
func TestDueAtAuditWaitsForSettledDays(t *testing.T) {
	noon := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	e := &Engine{days: derive.Store[*Result]{}}
	u := &unit{Unit: Unit{Project: "docs", Window: Window{Days: 2}}, derived: true, auditAt: noon.Add(-24 * time.Hour)}
	e.days.KeepProvisional(dayKey(u, client.DateOf(noon).AddDays(-1)), &Result{}, noon)
	if got, want := e.dueAtLocked(u, noon), noon.Add(auditEvery/24); !got.Equal(want) {
		t.Errorf("unsettled: due %s, want %s", got, want)
	}
	u.auditAt = noon.Add(-24*time.Hour + 30*time.Minute) // due in 30 minutes: still an hour on
	if got, want := e.dueAtLocked(u, noon), noon.Add(auditEvery/24); !got.Equal(want) {
		t.Errorf("unsettled, due within the hour: due %s, want %s", got, want)
	}
	u.auditAt = noon.Add(-22 * time.Hour) // due in 2 hours: later than an hour, kept
	if got, want := e.dueAtLocked(u, noon), noon.Add(2*time.Hour); !got.Equal(want) {
		t.Errorf("unsettled, due in 2 hours: due %s, want %s", got, want)
	}
	e.days.Put(dayKey(u, client.DateOf(noon).AddDays(-1)), &Result{}, noon, true)
	u.auditAt = noon.Add(-24 * time.Hour)
	if got := e.dueAtLocked(u, noon); !got.Equal(noon) {
		t.Errorf("settled: due %s, want now", got)
	}
}
