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

// promiseErrors runs n projects of paths for hours and returns, for every
// refresh after the first hour, how far from it the landing page's
// promise made lead before was (positive: later than promised).
func promiseErrors(t *testing.T, n, paths, hours int, lead time.Duration) []time.Duration {
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
	var errs []time.Duration
	for minute := 0; minute <= hours*60; minute++ {
		e.Touch()
		simSettle(t, e, clk)
		now := clk.Now()
		for _, st := range e.States() {
			k := st.Unit.String()
			if !st.Completed.IsZero() && st.Completed != last[k] {
				if !last[k].IsZero() && now.Sub(start) > 2*time.Hour {
					// the promise made lead before this refresh, if any
					for i := len(history[k]) - 1; i >= 0; i-- {
						if p := history[k][i]; !p.made.After(now.Add(-lead)) {
							errs = append(errs, now.Sub(p.at))
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
// and 3 of 2,000, at least 90 % and 95 % of refreshes start within 15 minutes
// of what the landing page said half an hour before (the rule run forward over
// the ledger, with each unit's eligibility and the time its data will count
// as none). Values that grow with age are not run forward; the figures go
// to docs/dev/benchmarks.md.
func TestPromiseSimulation(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulates 8 hours twice: make simulate runs it")
	}
	for _, size := range [][3]int{{10, 500, 90}, {3, 2000, 95}} {
		errs := promiseErrors(t, size[0], size[1], 8, 30*time.Minute)
		if len(errs) == 0 {
			t.Fatalf("%d x %d: no refreshes", size[0], size[1])
		}
		slices.Sort(errs)
		within := 0
		for _, d := range errs {
			if d.Abs() <= 15*time.Minute {
				within++
			}
		}
		t.Logf("%d x %d: %d refreshes, %d within 15m of the promise made 30m before; off by min %s, median %s, max %s",
			size[0], size[1], len(errs), within, errs[0], errs[len(errs)/2], errs[len(errs)-1])
		if 100*within < size[2]*len(errs) {
			t.Errorf("%d x %d: %d of %d refreshes within 15 minutes of their promise, want %d %%", size[0], size[1], within, len(errs), size[2])
		}
	}
}
