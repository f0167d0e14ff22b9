package engine

import (
	"fmt"
	"math"
	"testing"
	"time"
)

func TestPlanWeighted(t *testing.T) {
	const m = time.Minute
	w := func(days []int, cost ...int) []PlanUnit {
		var out []PlanUnit
		for i, d := range days {
			out = append(out, PlanUnit{Cost: cost[i], Days: d})
		}
		return out
	}
	for _, c := range []struct {
		name    string
		units   []PlanUnit
		perHour int
		min     time.Duration
		want    string
	}{
		{"fits at the minimum", w([]int{1, 7, 30}, 1, 1, 1), 90, 15 * m, "[15m0s 15m0s 15m0s]"},
		{"never refreshed counts as one request", w([]int{1, 7, 30}, 0, 0, 0), 90, 15 * m, "[15m0s 15m0s 15m0s]"},
		{"2,000 paths, 2 projects x 1d 7d 30d", w([]int{1, 7, 30, 1, 7, 30}, 8, 8, 8, 8, 8, 8), 90, 15 * m,
			"[16m39s 44m3s 1h31m11s 16m39s 44m3s 1h31m11s]"},
		{"short windows held at the minimum", w([]int{1, 7, 30}, 8, 8, 8), 90, 15 * m, "[15m0s 15m0s 18m28s]"},
		{"one walk longer than the hour", w([]int{30}, 400), 90, 15 * m, "[4h26m40s]"},
		{"site windows cost one", w([]int{1, 30, 30}, 40, 40, 1), 90, 15 * m, "[32m19s 2h56m57s 27m59s]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := PlanWeighted(c.units, c.perHour, c.min)
			if s := fmt.Sprint(got); s != c.want {
				t.Errorf("PlanWeighted = %s, want %s", s, c.want)
			}
			rate := 0.0
			for i, u := range c.units {
				if got[i] < c.min {
					t.Errorf("unit %d: %s below the minimum", i, got[i])
				}
				rate += float64(max(1, u.Cost)) / got[i].Hours()
			}
			if rate > float64(c.perHour)+1e-6 {
				t.Errorf("plan spends %.3f requests an hour, over %d", rate, c.perHour)
			}
		})
	}
}

// TestPlanWeightedProportional: when nothing is held at the minimum, the
// intervals are proportional to sqrt(cost·days) and spend the budget.
func TestPlanWeightedProportional(t *testing.T) {
	units := []PlanUnit{{Cost: 40, Days: 1}, {Cost: 40, Days: 7}, {Cost: 10, Days: 30}, {Cost: 3, Days: 90}}
	got := PlanWeighted(units, 50, time.Second)
	rate := 0.0
	for i, u := range units {
		rate += float64(u.Cost) / got[i].Hours()
		ratio := got[i].Seconds() / math.Sqrt(float64(u.Cost*u.Days))
		base := got[0].Seconds() / math.Sqrt(40)
		if math.Abs(ratio/base-1) > 0.01 {
			t.Errorf("unit %d: interval %s not proportional to sqrt(cost*days)", i, got[i])
		}
	}
	if rate > 50 || rate < 49.5 {
		t.Errorf("plan spends %.2f requests an hour, want just under 50", rate)
	}
}
