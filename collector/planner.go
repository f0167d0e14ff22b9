package collector

import (
	"time"
)

// Plan is the outcome of planning the analytics request budget.
type Plan struct {
	// Interval is the time between two refreshes of every walk.
	Interval time.Duration
	// PagesPerRound is the number of requests one refresh of every walk
	// costs, by the last known page counts.
	PagesPerRound int
	// Stretched reports whether Interval is longer than the configured
	// minimum because the budget demanded it.
	Stretched bool
}

// PlanInterval returns the refresh interval that keeps every walk within a
// budget of perHour requests in any sliding hour. pages holds the last known
// page count of each walk (a walk never refreshed yet counts as one page).
// Every walk is refreshed at the same interval, never shorter than
// minInterval, and rounded up to a whole second.
//
// When a whole round (every walk once) fits the budget, the interval is one
// hour divided by the number of whole rounds that fit: with walks spaced at
// least that far apart no sliding hour holds more rounds. When a round does
// not fit, the interval is the one at which the average rate equals the
// budget, and the ledger staggers the walks: a walk that would not fit the
// last hour's budget waits. For example 3 windows of a 10,000-path site at
// 250 rows a page cost 3 × 40 = 120 requests a round; with a budget of 90 an
// hour a round fits every 120/90 h = 80 minutes.
func PlanInterval(pages []int, perHour int, minInterval time.Duration) Plan {
	total := 0
	for _, p := range pages {
		total += max(1, p)
	}
	p := Plan{Interval: minInterval, PagesPerRound: total}
	if perHour <= 0 || total == 0 {
		return p
	}
	var need time.Duration
	if total <= perHour {
		rounds := int64(perHour / total)
		need = time.Duration((3600+rounds-1)/rounds) * time.Second
	} else {
		need = time.Duration((int64(total)*3600+int64(perHour)-1)/int64(perHour)) * time.Second
	}
	if need > minInterval {
		p.Interval, p.Stretched = need, true
	}
	return p
}
