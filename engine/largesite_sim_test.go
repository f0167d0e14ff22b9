package engine_test

// A site of 100,000 paths served unsorted, for 24 simulated hours, at the
// default flags and the API's 100 requests an hour: every walk is 400
// pages, four times the hour's budget.
//
//	go test -run TestLargeSiteSimulation -v ./engine/

import (
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/health"
)

// TestLargeSiteSimulation: no one-request or totals unit goes longer than
// an hour without a refresh (from the end of the first hour), the walks
// still complete, and no sliding hour holds more than the budget.
func TestLargeSiteSimulation(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulates 24 hours of a site of 100,000 paths: make simulate runs it")
	}
	const hours, budget = 24, 90
	start := time.Date(2026, 5, 1, 6, 0, 0, 0, time.UTC)
	clk := mintlifytest.NewClock(start)
	srv := mintlifytest.NewServer(mintlifytest.WithClock(clk.Now), mintlifytest.WithRateLimit(100), mintlifytest.WithUnorderedPaths(),
		mintlifytest.WithProject("huge", mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 42, Paths: 100_000, Days: 31, End: start.AddDate(0, 0, 2)})))
	t.Cleanup(srv.Close)
	e, b := startDefaultSim(t, srv, clk, []string{"huge"}, budget)
	last := map[string]time.Time{}
	gap := map[string]time.Duration{}
	walks := map[string]int{}
	for minute := 0; minute <= hours*60; minute++ {
		e.Touch()
		simSettle(t, e, clk)
		now := clk.Now()
		for _, st := range e.States() {
			k := st.Unit.String()
			if !st.Completed.IsZero() && st.Completed != last[k] {
				if st.Part == health.PartPages && !strings.HasPrefix(st.Summary, "derived") {
					walks[k]++
				}
				last[k] = st.Completed
			}
			if (st.Part == health.PartTotals || st.Cost == 1 && st.Part == "") && now.Sub(start) > time.Hour {
				ref := last[k]
				if ref.IsZero() {
					ref = start
				}
				gap[k] = max(gap[k], now.Sub(ref))
			}
		}
		clk.Advance(time.Minute)
	}
	requests, most := b.counts()
	t.Logf("1 project of 100,000 paths (400 pages a walk), %dh: %d requests, at most %d in a sliding hour", hours, requests, most)
	for k, g := range gap {
		t.Logf("%s: longest without a refresh %s", k, g)
		if g > time.Hour {
			t.Errorf("%s went %s without a refresh", k, g)
		}
	}
	for k, n := range walks {
		t.Logf("%s: %d walks completed", k, n)
	}
	// Six walks of 400 pages are 2,400 requests, more than a day's
	// budget: the 1d walks, worth the most, complete again and again, the
	// longer windows' walks in turn.
	total := 0
	for _, n := range walks {
		total += n
	}
	if walks["visitors/huge/1d"] < 2 || walks["views/huge/1d"] < 2 || total < 5 {
		t.Errorf("walks completed: %v, want each 1d walk at least twice and 5 walks in all", walks)
	}
	if most > budget {
		t.Errorf("%d requests in one sliding hour, over the budget of %d", most, budget)
	}
	for _, r := range srv.Requests() {
		if r.Status == 429 {
			t.Fatal("the API answered 429")
		}
	}
}
