package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine/derive"
)

// TestClosedWithinIsClosedDays: the restore's check of a day against a
// window, which makes no list, agrees with derive.ClosedDays.
func TestClosedWithinIsClosedDays(t *testing.T) {
	now := time.Date(2026, 3, 10, 23, 59, 0, 0, time.UTC)
	today := client.DateOf(now)
	for _, n := range []int{1, 2, 7, 30, MaxWindowDays} {
		closed := derive.ClosedDays(n, now)
		for d := -MaxWindowDays - 2; d <= 2; d++ {
			day := today.AddDays(d)
			if got, want := closedWithin(day, n, now), slices.Contains(closed, day); got != want {
				t.Errorf("n=%d, day %s: %v, want %v", n, day, got, want)
			}
		}
	}
}
