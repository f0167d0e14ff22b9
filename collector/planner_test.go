package collector

import (
	"testing"
	"time"
)

func TestPlanInterval(t *testing.T) {
	const m = time.Minute
	for _, c := range []struct {
		name      string
		pages     []int
		perHour   int
		min       time.Duration
		want      time.Duration
		stretched bool
	}{
		{"small site, 3 windows", []int{1, 1, 1}, 90, 15 * m, 15 * m, false},
		{"never refreshed counts as one page", []int{0, 0, 0}, 90, 15 * m, 15 * m, false},
		{"fits 6 rounds an hour", []int{5, 5, 5}, 90, 5 * m, 10 * m, true},
		{"1234 paths, 2 projects x 3 windows", []int{5, 5, 5, 5, 5, 5}, 90, 15 * m, 20 * m, true},
		{"exactly one round an hour", []int{30, 30, 30}, 90, 15 * m, 60 * m, true},
		{"10,000 paths x 3 windows", []int{40, 40, 40}, 90, 15 * m, 80 * m, true},
		{"two organizations' worth", []int{40, 40, 40, 40, 40, 40}, 90, 15 * m, 160 * m, true},
		{"rounds up to a second", []int{7}, 90, time.Second, 300 * time.Second, true}, // 12 rounds fit
		{"min longer than needed", []int{40, 40, 40}, 90, 2 * time.Hour, 2 * time.Hour, false},
		{"100k paths, 1 window", []int{400}, 90, 15 * m, 4*time.Hour + 26*m + 40*time.Second, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := PlanInterval(c.pages, c.perHour, c.min)
			if p.Interval != c.want || p.Stretched != c.stretched {
				t.Fatalf("PlanInterval(%v, %d, %s) = %s stretched=%v, want %s stretched=%v",
					c.pages, c.perHour, c.min, p.Interval, p.Stretched, c.want, c.stretched)
			}
			// Whatever the plan, a round per interval never exceeds the
			// budget's hourly rate.
			if rate := float64(p.PagesPerRound) * float64(time.Hour) / float64(p.Interval); rate > float64(c.perHour)+1e-9 {
				t.Fatalf("plan spends %.2f requests an hour, over %d", rate, c.perHour)
			}
		})
	}
}
