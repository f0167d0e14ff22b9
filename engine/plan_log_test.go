package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/engine/budget"
)

func TestPlanSummaryMaterial(t *testing.T) {
	base := planSummary{units: 4, perRound: 4, perHour: 100, shortest: 100 * time.Second, longest: 1000 * time.Second}
	for _, c := range []struct {
		name string
		q    planSummary
		want bool
	}{
		{"the same", base, false},
		{"another unit count", planSummary{units: 5, perHour: 100, shortest: 100 * time.Second, longest: 1000 * time.Second}, true},
		{"requests an hour a tenth apart", planSummary{units: 4, perHour: 90, shortest: 100 * time.Second, longest: 1000 * time.Second}, false},
		{"requests an hour more than a tenth apart", planSummary{units: 4, perHour: 89.9, shortest: 100 * time.Second, longest: 1000 * time.Second}, true},
		{"shortest a tenth apart", planSummary{units: 4, perHour: 100, shortest: 90 * time.Second, longest: 1000 * time.Second}, false},
		{"shortest more than a tenth apart", planSummary{units: 4, perHour: 100, shortest: 89 * time.Second, longest: 1000 * time.Second}, true},
		{"longest more than a tenth apart", planSummary{units: 4, perHour: 100, shortest: 100 * time.Second, longest: 1112 * time.Second}, true},
		{"longest a tenth apart", planSummary{units: 4, perHour: 100, shortest: 100 * time.Second, longest: 1111 * time.Second}, false},
		{"only the round's requests", planSummary{units: 4, perRound: 9, perHour: 100, shortest: 100 * time.Second, longest: 1000 * time.Second}, false},
	} {
		if got := base.material(c.q); got != c.want {
			t.Errorf("%s: material %v, want %v", c.name, got, c.want)
		}
		if got := c.q.material(base); got != c.want {
			t.Errorf("%s, the other way: material %v, want %v", c.name, got, c.want)
		}
	}
}

// TestPlanLogLine: the plan line says what the worker will do: every unit
// at the minimum interval while that fits the budget less its headroom,
// else the stretched intervals. At 10 an hour (9 planned) the one-request
// units' one-hour maxima (4 an hour) do not bind: 1d at k = 0.3062 h, 7d
// at sqrt(7)·k. At 6 they bind: 7d at its hour, 1d at 30 minutes. At 4
// an hour they would take the whole budget, so none holds.
func TestPlanLogLine(t *testing.T) {
	for _, c := range []struct {
		perHour int
		want    string
	}{
		{90, `level=info msg="refresh plan: every unit at the minimum interval, within the request budget" units=4 requests_per_round=4 requests_per_hour=90 planned_requests_per_hour=16 shortest_interval=15m0s longest_interval=15m0s`},
		{10, `level=info msg="refresh plan: intervals stretched to fit the request budget, cheap and short windows more often (each unit's interval and cost are on the landing page)" units=4 requests_per_round=4 requests_per_hour=10 planned_requests_per_hour=9 shortest_interval=18m23s longest_interval=48m37s`},
		{6, `level=info msg="refresh plan: intervals stretched to fit the request budget, cheap and short windows more often (each unit's interval and cost are on the landing page)" units=4 requests_per_round=4 requests_per_hour=6 planned_requests_per_hour=6 shortest_interval=30m0s longest_interval=1h0m0s`},
		{4, `level=info msg="refresh plan: intervals stretched to fit the request budget, cheap and short windows more often (each unit's interval and cost are on the landing page)" units=4 requests_per_round=4 requests_per_hour=4 planned_requests_per_hour=4 shortest_interval=41m21s longest_interval=1h49m23s`},
	} {
		r := newRig(t, rigOptions{perHour: c.perHour, projects: []string{"docs", "api"}, windows: []string{"1d", "7d"}},
			func(b *budget.Budget) Source { s := newMemSource("one", b); s.fixed = 1; return s })
		if got := strings.TrimSpace(r.logs.String()); got != c.want {
			t.Errorf("budget %d: the plan line\n got %s\nwant %s", c.perHour, got, c.want)
		}
	}
}
