package engine_test

// The untouched demo, simulated: every source of --demo against the demo's
// fake (which enforces the API's 100 requests an hour) with the default
// budget, windows and derived windows, for three hours on a manual clock.
// None of the conditions the shipped alerts watch may arise.
//
//	go test -run TestDemoSimulation -v ./engine/

import (
	"sync"
	"testing"
	"time"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/demo"
	"github.com/mintlify-exporter/mintlify_exporter/derived"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/health"
	"github.com/mintlify-exporter/mintlify_exporter/internal/logbuf"
)

func TestDemoSimulation(t *testing.T) {
	var simLog logbuf.Buffer
	if testing.Short() || raceEnabled {
		t.Skip("three simulated hours: make simulate runs it, without -short and the race detector")
	}
	start := time.Date(2026, 3, 10, 22, 30, 0, 0, time.UTC) // across UTC midnight
	clk := mintlifytest.NewClock(start)
	srv := demo.Start(clk.Now)
	t.Cleanup(srv.Close)
	budget := budget.New(90, clk.Now)
	var mu sync.Mutex
	codes := map[int]int{}
	key, _ := client.StaticKey(srv.Key)
	c, err := client.New(client.Config{BaseURL: srv.URL(), Key: key, Timeout: 10 * time.Second, Now: clk.Now,
		Retry: client.RetryPolicy{MaxAttempts: 1},
		Hooks: client.Hooks{Allow: budget.Allow, Observe: func(a client.Attempt) {
			mu.Lock()
			codes[a.StatusCode]++
			mu.Unlock()
		}}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range collector.Sources {
		names = append(names, s.Name) // --demo turns every source on
	}
	sources, err := collector.Build(names, c, collector.Options{PageSize: 250, SearchesTopTerms: 0, ConversationsMaxPages: 10})
	if err != nil {
		t.Fatal(err)
	}
	var windows []engine.Window
	for _, w := range []string{"1d", "7d", "30d"} {
		windows = append(windows, windowOf(t, w))
	}
	status := health.NewStatus()
	e, err := engine.New(engine.Config{Sources: sources, Projects: srv.ProjectIDs, Windows: windows,
		MinInterval: 15 * time.Minute, Budget: budget, Status: status, Now: clk.Now, WaitUntil: clk.WaitUntil,
		Layer: derived.New(derived.Config{}), Logger: log.NewLogfmtLogger(&simLog)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	e.Start()
	least := budget.PerHour()
	midnight := start.Truncate(24 * time.Hour).Add(24 * time.Hour)
	for minute := 0; minute <= 180; minute++ {
		e.Touch()
		simSettle(t, e, clk)
		now := clk.Now()
		least = min(least, budget.Remaining())
		if budget.Remaining() == 0 {
			t.Errorf("%s: no budget left (MintlifyBudgetExhausted fires after 30 minutes of this)", now.Format(time.TimeOnly))
		}
		for _, st := range e.States() {
			if st.LastError != "" {
				t.Errorf("%s: %s failing: %s (MintlifyRefreshFailing)", now.Format(time.TimeOnly), st.Unit, st.LastError)
			}
			if minute >= 10 && !st.Completed.IsZero() && now.Sub(st.Completed) > 3*st.Interval {
				t.Errorf("%s: %s last refreshed %s ago, over 3 × its interval %s (MintlifyDataStale)",
					now.Format(time.TimeOnly), st.Unit, now.Sub(st.Completed), st.Interval)
			}
			if minute == 15 && st.Completed.IsZero() {
				t.Errorf("%s: %s has no data after 15 minutes", now.Format(time.TimeOnly), st.Unit)
			}
			// Ten minutes after midnight every 1d totals and one-request
			// unit has read the new day.
			if now.Equal(midnight.Add(10*time.Minute)) && st.Window.Days == 1 && st.Cost == 1 && st.Completed.Before(midnight) {
				t.Errorf("%s: %s has not read the new day (last %s)", now.Format(time.TimeOnly), st.Unit, st.Completed.Format(time.TimeOnly))
			}
		}
		mu.Lock()
		if codes[429] > 0 {
			t.Fatalf("%s: the fake answered 429 (MintlifyRateLimited)", now.Format(time.TimeOnly))
		}
		mu.Unlock()
		clk.Advance(time.Minute)
	}
	mu.Lock()
	if t.Failed() {
		t.Log(simLog.String())
	}
	t.Logf("three hours of the demo: %d requests answered 200, least budget left %d", codes[200], least)
	mu.Unlock()
}
