package engine

import (
	"math"
	"time"
)

// PlanUnit is what the planner knows of one unit.
type PlanUnit struct {
	// Cost is the requests of one refresh (1 before the first).
	Cost int
	Days int // window length
	// MaxInterval, when set, caps the unit's interval while the maxima
	// fit the budget (one-request units: an hour).
	MaxInterval time.Duration
}

// Planner returns each unit's refresh interval, at least minInterval, so
// that the units together send at most perHour requests an hour.
type Planner func(units []PlanUnit, perHour int, minInterval time.Duration) []time.Duration

// PlanWeighted is the engine's planner: minInterval for all while they fit,
// else intervals in proportion to sqrt(cost·days), which minimises the mean
// relative staleness (docs/dev/design.md, "Planning the budget"), held between
// minInterval and MaxInterval and rounded up to a second.
func PlanWeighted(units []PlanUnit, perHour int, minInterval time.Duration) []time.Duration {
	out := make([]time.Duration, len(units))
	for i := range out {
		out[i] = minInterval
	}
	if perHour <= 0 || len(units) == 0 {
		return out
	}
	minH := minInterval.Hours()
	cost := make([]float64, len(units))
	weight := make([]float64, len(units))
	maxH := make([]float64, len(units))
	capped := 0.0 // the requests an hour of the units held at their maximum
	for i, u := range units {
		cost[i] = float64(max(1, u.Cost))
		weight[i] = math.Sqrt(cost[i] * float64(max(1, u.Days)))
		maxH[i] = math.Inf(1)
		if u.MaxInterval > 0 {
			maxH[i] = math.Max(minH, u.MaxInterval.Hours())
			capped += cost[i] / maxH[i]
		}
	}
	budget := float64(perHour)
	if capped >= budget {
		// The maxima do not fit the budget together: none holds.
		for i := range maxH {
			maxH[i] = math.Inf(1)
		}
	}
	interval := func(i int, k float64) float64 { return math.Min(maxH[i], math.Max(minH, k*weight[i])) }
	// rate is the requests an hour at k; it falls as k grows.
	rate := func(k float64) float64 {
		r := 0.0
		for i := range units {
			r += cost[i] / interval(i, k)
		}
		return r
	}
	if minH > 0 && rate(0) <= budget {
		return out
	}
	lo, hi := 0.0, 1.0
	for range 1000 { // rate falls towards capped < budget: a bound, not a limit
		if rate(hi) <= budget {
			break
		}
		hi *= 2
	}
	for range 100 {
		mid := (lo + hi) / 2
		if rate(mid) > budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	for i := range units {
		secs := math.Ceil(interval(i, hi) * 3600)
		out[i] = max(minInterval, time.Duration(secs)*time.Second)
	}
	return out
}
