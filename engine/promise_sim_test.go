package engine_test

// The landing page's promises, "next refresh about" and "expected about",
// against what the engine then does, at the sizes of the freshness table.
//
//	go test -run TestPromiseSimulation -v ./engine/

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
)

// promiseErrors runs n projects of paths for hours and returns, for each
// lead and every refresh after the second hour, how far from it the landing
// page's promise made lead before was (positive: later than promised).
func promiseErrors(t *testing.T, n, paths, hours int, leads ...time.Duration) [][]time.Duration {
	start := time.Date(2026, 5, 1, 6, 0, 0, 0, time.UTC)
	clk := mintlifytest.NewClock(start)
	opts := []mintlifytest.Option{mintlifytest.WithClock(clk.Now), mintlifytest.WithRateLimit(100)}
	var projects []string
	for i := range n {
		p := fmt.Sprintf("p%d", i)
		projects = append(projects, p)
		opts = append(opts, mintlifytest.WithProject(p, mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: int64(i), Paths: paths, Days: 31, End: start.AddDate(0, 0, 2)})))
	}
	srv := mintlifytest.NewServer(opts...)
	t.Cleanup(srv.Close)
	e, _ := startDefaultSim(t, srv, clk, projects, 90)
	type promise struct{ made, at time.Time }
	history := map[string][]promise{}
	last := map[string]time.Time{}
	errs := make([][]time.Duration, len(leads))
	for minute := 0; minute <= hours*60; minute++ {
		e.Touch()
		simSettle(t, e, clk)
		now := clk.Now()
		for _, st := range e.States() {
			k := st.Unit.String()
			if !st.Completed.IsZero() && st.Completed != last[k] {
				for l, lead := range leads {
					// the promise made lead before this refresh, if any
					for i := len(history[k]) - 1; i >= 0 && !last[k].IsZero() && now.Sub(start) > 2*time.Hour; i-- {
						if p := history[k][i]; !p.made.After(now.Add(-lead)) {
							errs[l] = append(errs[l], now.Sub(p.at))
							break
						}
					}
				}
				last[k], history[k] = st.Completed, nil
			}
			if st.State != engine.StateRefreshing && !st.Next.IsZero() && st.Completed != (time.Time{}) {
				history[k] = append(history[k], promise{now, st.Next})
			}
		}
		clk.Advance(time.Minute)
	}
	return errs
}

// TestPromiseSimulation: from the third hour on, at 10 projects of 500 paths
// and 3 of 2,000, most refreshes start within 15 minutes of what the landing
// page said half an hour before, and many of what it said three hours before
// (the rule run forward over the ledger: each unit's eligibility, the time
// its data will count as none, worth that grows with age, and its later
// refreshes). The figures go to docs/dev/benchmarks.md.
func TestPromiseSimulation(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulates 8 hours twice: make simulate runs it")
	}
	leads := []time.Duration{30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour}
	for _, size := range []struct {
		n, paths int
		want     []int // per cent within 15 minutes, by lead
	}{{10, 500, []int{90, 90, 60, 50}}, {3, 2000, []int{95, 95, 30, 30}}} {
		for l, errs := range promiseErrors(t, size.n, size.paths, 8, leads...) {
			if len(errs) == 0 {
				t.Fatalf("%d x %d: no refreshes %s apart", size.n, size.paths, leads[l])
			}
			slices.Sort(errs)
			within := 0
			for _, d := range errs {
				if d.Abs() <= 15*time.Minute {
					within++
				}
			}
			t.Logf("%d x %d: %d refreshes, %d within 15m of the promise made %s before; off by min %s, median %s, max %s",
				size.n, size.paths, len(errs), within, leads[l], errs[0], errs[len(errs)/2], errs[len(errs)-1])
			if 100*within < size.want[l]*len(errs) {
				t.Errorf("%d x %d: %d of %d refreshes within 15 minutes of the promise made %s before, want %d %%",
					size.n, size.paths, within, len(errs), leads[l], size.want[l])
			}
		}
	}
}
