package backfill

import (
	"cmp"
	"fmt"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
)

// MaxDays is the longest range one run backfills: this exporter's limit (the
// API publishes no retention); a longer history takes several runs.
const MaxDays = 366

// Window is the window every backfilled sample carries: one day, the live
// exporter's "1d" window, so history and live data are one series.
const Window = "1d"

// DefaultRequestsPerHour leaves room for a live exporter (its 90 is too much
// beside it): the two must add up to the API's 100 or less.
const DefaultRequestsPerHour = 40

// Days returns the days from..to (both included; a zero to is yesterday),
// which must be completed UTC days.
func Days(from, to client.Date, now time.Time) ([]client.Date, error) {
	today := client.DateOf(now)
	yesterday := today.AddDays(-1)
	switch {
	case from.IsZero():
		return nil, fmt.Errorf("--from is required: the first day to backfill, as YYYY-MM-DD")
	case to.IsZero() && !from.Time().Before(today.Time()):
		return nil, fmt.Errorf("--from=%s is not a completed day: only days before today (%s UTC) can be backfilled; the latest is %s", from, today, yesterday)
	case !to.Time().Before(today.Time()):
		return nil, fmt.Errorf("--to=%s is not a completed day: only days before today (%s UTC) can be backfilled; the latest is %s, the default", to, today, yesterday)
	case !to.IsZero() && to.Time().Before(from.Time()):
		return nil, fmt.Errorf("--from=%s is after --to=%s: give the first day first", from, to)
	}
	to = cmp.Or(to, yesterday)
	n := int(to.Time().Sub(from.Time()).Hours()/24) + 1
	if n > MaxDays {
		return nil, fmt.Errorf("--from=%s..--to=%s is %d days; one run backfills at most %d (this exporter's limit: the API publishes no retention): split the range into runs with separate --output files", from, to, n, MaxDays)
	}
	days := make([]client.Date, n)
	for i := range days {
		days[i] = from.AddDays(i)
	}
	return days, nil
}

func unitWindow(pages bool) engine.Window {
	return engine.Window{Name: Window, Days: 1, Site: !pages}
}

// BudgetTime is how long n requests take at perHour per sliding hour: as in
// the README, n/perHour hours (an upper bound: the first perHour go at once).
func BudgetTime(n, perHour int) time.Duration {
	if n <= 0 || perHour <= 0 {
		return 0
	}
	return time.Duration(float64(n) / float64(perHour) * float64(time.Hour)).Round(time.Minute)
}

// formatDuration renders d for people: "9h", "4h30m", "12m".
func formatDuration(d time.Duration) string {
	d = d.Round(time.Minute)
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case h == 0 && m == 0:
		return "under a minute"
	case h == 0:
		return fmt.Sprintf("%dm", m)
	case m == 0:
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dh%02dm", h, m)
}
