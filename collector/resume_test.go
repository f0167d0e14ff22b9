package collector

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/health"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
)

// TestVisitorsWalkCompletesAcrossHourlyRestarts: an exporter restarted
// every hour (a crash loop, a rollout schedule) with a visitors walk of
// about 50 pages at 20 requests an hour, over two hours of budget,
// completes it:
// each run resumes the walk its predecessor left in the cache file (here
// its State through JSON), at the next page's offset, and every page is
// asked for once. Without resuming, every run began at offset 0 and the
// walk never completed.
func TestVisitorsWalkCompletesAcrossHourlyRestarts(t *testing.T) {
	const pageSize, perHour = 50, 20
	clk := mintlifytest.NewClock(day0.Add(-10 * time.Hour)) // 02:00 UTC: the walk stays within the day
	data := mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 7, Paths: 3000, Days: 3, End: day0})
	srv := mintlifytest.NewServer(mintlifytest.WithClock(clk.Now), mintlifytest.WithProject("docs", data))
	t.Cleanup(srv.Close)

	var state *engine.State
	completedIn := -1
	for hour := range 6 {
		b := budget.New(perHour, clk.Now)
		c := apitest.Client(t, srv, client.Config{Now: clk.Now, Hooks: client.Hooks{Allow: b.Allow}})
		srcs, err := Build([]string{"visitors"}, c, Options{PageSize: pageSize})
		if err != nil {
			t.Fatal(err)
		}
		var logs bytes.Buffer
		e, err := engine.New(engine.Config{Sources: srcs, Projects: []string{"docs"}, Windows: []engine.Window{windowOf(t, "1d")},
			MinInterval: 15 * time.Minute, Budget: b, Status: health.NewStatus(), Now: clk.Now, WaitUntil: clk.WaitUntil,
			Restore: state, Logger: log.NewLogfmtLogger(&logs)})
		if err != nil {
			t.Fatal(err)
		}
		e.Start()
		for range 60 {
			if !clk.Settle(1, 30*time.Second) {
				t.Fatalf("hour %d: the engine did not settle", hour)
			}
			clk.Advance(time.Minute)
			if used := b.Used(); used > perHour {
				t.Fatalf("hour %d: %d requests in the last hour, over %d", hour, used, perHour)
			}
		}
		if !clk.Settle(1, 30*time.Second) {
			t.Fatalf("hour %d: the engine did not settle", hour)
		}
		for _, st := range e.States() {
			if st.Unit.Window.String() == "1d" && completedIn < 0 && strings.Contains(st.Summary, "paths") {
				completedIn = hour
			}
		}
		st := e.State()
		e.Close()
		raw, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		state = new(engine.State)
		if err := json.Unmarshal(raw, state); err != nil {
			t.Fatal(err)
		}
		if hour > 0 && completedIn < 0 && !strings.Contains(logs.String(), "walks_resumed=1") {
			t.Errorf("hour %d: the walk was not resumed:\n%s", hour, logs.String())
		}
	}
	if completedIn < 0 || completedIn > 3 {
		t.Fatalf("the walk at %d requests an hour completed in hour %d of 6 (-1: never), want by its fourth", perHour, completedIn)
	}
	// The walk is longer than an hour's budget: its pages' offsets.
	offsets := map[string]bool{}
	for _, r := range srv.Requests() {
		if r.Endpoint == mintlifytest.EndpointVisitors && r.Query.Get("limit") == "50" {
			offsets[r.Query.Get("offset")] = true
		}
	}
	if len(offsets) <= perHour {
		t.Errorf("the walk has %d pages, not more than an hour's budget (%d)", len(offsets), perHour)
	}
	t.Logf("a walk of %d pages at %d requests an hour completed in hour %d", len(offsets), perHour, completedIn)
}
