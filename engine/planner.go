package engine

import (
	"math"
	"time"
)

// PlanUnit is what the planner knows of one unit.
type PlanUnit struct {
	// Cost is the requests one refresh takes (its last known page count;
	// 1 before the first refresh).
	Cost int
	// Days is the length of the unit's window.
	Days int
	// MaxInterval, when set, is the longest interval the unit may get
	// while the budget allows every unit its maximum (one-request units:
	// an hour, so that a large site's walks never leave them stale).
	MaxInterval time.Duration
}

// Planner returns each unit's refresh interval, never below minInterval,
// so that the units together spend at most perHour requests an hour.
type Planner func(units []PlanUnit, perHour int, minInterval time.Duration) []time.Duration

// PlanWeighted is the engine's planner. When every unit fits the budget at
// minInterval, every unit gets minInterval. When the budget binds, units
// are not stretched alike: an N-day window changes by about 1/(24·N) of its
// value per hour, so its mean relative staleness over an interval T is
// about T/(48·N). Minimising the sum of those over units subject to the
// budget, Σ c_i/T_i = perHour, gives T_i proportional to sqrt(c_i·N_i)
// (a Lagrange multiplier argument): cheap and short windows are refreshed
// often, expensive and long ones rarely. Units whose share would fall
// below minInterval are held at minInterval and the rest share what is
// left. Intervals are rounded up to a whole second.
//
// For example, with a budget of 90 and a minimum of 15 minutes, two
// projects whose 1d, 7d and 30d windows cost 8 requests each (2,000 paths)
// are refreshed every 17, 44 and 92 minutes where stretching all alike
// gives 32 minutes each (TestPlanWeighted holds the numbers).
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
	// interval is unit i's interval, in hours, at the multiplier k.
	interval := func(i int, k float64) float64 { return math.Min(maxH[i], math.Max(minH, k*weight[i])) }
	// rate is the requests an hour when unit i is refreshed every
	// interval(i, k) hours; it falls as k grows.
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
