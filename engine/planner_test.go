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

// TestPlanDefaultSources: every default source on (visitors and views
// walk 4 pages at 1,000 paths; assistant, feedback and searches cost 1),
// 2 projects, the default windows 1d, 7d and 30d, the default budget of 90: every 1d unit is refreshed at least every 30 minutes.
func TestPlanDefaultSources(t *testing.T) {
	var units []PlanUnit
	var names []string
	for range 2 {
		for _, days := range []int{1, 7, 30} {
			for _, src := range []struct {
				name string
				cost int
			}{{"visitors", 4}, {"views", 4}, {"assistant", 1}, {"feedback", 1}, {"searches", 1}} {
				units = append(units, PlanUnit{Cost: src.cost, Days: days})
				names = append(names, fmt.Sprintf("%s/%dd", src.name, days))
			}
		}
	}
	got := PlanWeighted(units, 90, 15*time.Minute)
	rate := 0.0
	for i, u := range units {
		rate += float64(u.Cost) / got[i].Hours()
		if i < 15 {
			t.Logf("%-14s cost %d: every %s", names[i], u.Cost, got[i])
		}
		if u.Days == 1 && got[i] > 30*time.Minute {
			t.Errorf("%s: every %s, want 30m at most", names[i], got[i])
		}
	}
	t.Logf("planned %.1f requests an hour of %d", rate, 90)
	if rate > float64(90)+1e-6 {
		t.Errorf("the plan spends %.1f requests an hour, over %d", rate, 90)
	}
}

func TestParseWindow(t *testing.T) {
	for _, c := range []struct {
		in   string
		days int
		ok   bool
	}{{"1d", 1, true}, {"7d", 7, true}, {"366d", 366, true}, {"0d", 0, false}, {"367d", 0, false},
		{"7", 0, false}, {"d", 0, false}, {"07d", 0, false}, {"-1d", 0, false}, {"1w", 0, false}, {"+7d", 0, false}} {
		w, err := ParseWindow(c.in)
		if (err == nil) != c.ok || w.Days != c.days {
			t.Errorf("ParseWindow(%q) = %+v, %v", c.in, w, err)
		}
	}
	if w, err := ParseWindow("30d:site"); err != nil || !w.Site || w.Name != "30d" || w.String() != "30d:site" {
		t.Errorf("ParseWindow(30d:site) = %+v, %v", w, err)
	}
	for _, bad := range []string{"30d:sit", ":site", "30d:site:site", "site"} {
		if _, err := ParseWindow(bad); err == nil {
			t.Errorf("ParseWindow(%q) accepted", bad)
		}
	}
	r := Window{Name: "7d", Days: 7}.Range(time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC))
	if r.From.String() != "2025-12-28" || r.To.String() != "2026-01-04" {
		t.Fatalf("7d range at 2026-01-03 = %s", r)
	}
}
