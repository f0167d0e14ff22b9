package engine_test

// The planning simulation: the real engine with the visitors
// source against the fake API, on a manual clock, for a day and more of
// simulated time, once with the engine's rule at the 15-minute minimum
// interval and once with every unit refreshed alike at the same budget. Today's traffic grows hour
// by hour, so every window's value changes as a real site's does.
//
//	go test -run TestPlannerSimulation -v ./engine/

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/derived"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/health"
)

// simBudget is a simulation's request budget, paced on its clock, that
// records when each analytics request went out.
type simBudget struct {
	*budget.Budget
	clk  *mintlifytest.Clock
	mu   sync.Mutex
	sent []time.Time
}

func newSimBudget(perHour int, clk *mintlifytest.Clock) *simBudget {
	b := &simBudget{Budget: budget.New(perHour, clk.Now), clk: clk}
	// No pacing: the engine sends a request only when the hour has room;
	// a refusal would be a bug the simulation must see.
	return b
}

// allow is the client's Allow hook.
func (b *simBudget) allow(ctx context.Context, e client.Endpoint) error {
	err := b.Allow(ctx, e)
	if err == nil {
		b.mu.Lock()
		b.sent = append(b.sent, b.clk.Now())
		b.mu.Unlock()
	}
	return err
}

// counts returns the requests sent and the most in any sliding hour.
func (b *simBudget) counts() (requests, maxInHour int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range b.sent {
		n := sort.Search(len(b.sent), func(j int) bool { return !b.sent[j].Before(b.sent[i].Add(time.Hour)) }) - i
		maxInHour = max(maxInHour, n)
	}
	return len(b.sent), maxInHour
}

// simClient is a client of srv on the simulation's clock, without
// retries, whose Allow hook is allow.
func simClient(t *testing.T, url string, clk *mintlifytest.Clock, allow func(context.Context, client.Endpoint) error) *client.Client {
	t.Helper()
	key, _ := client.StaticKey(mintlifytest.DefaultKey)
	c, err := client.New(client.Config{BaseURL: url, Key: key, Timeout: 10 * time.Second, Now: clk.Now,
		Retry: client.RetryPolicy{MaxAttempts: 1}, Hooks: client.Hooks{Allow: allow}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// simSettle waits until the engine's worker sleeps until the clock moves.
func simSettle(t *testing.T, e *engine.Engine, clk *mintlifytest.Clock) {
	t.Helper()
	if !clk.Settle(1, time.Minute) {
		t.Fatalf("the engine did not settle: %+v", e.States())
	}
}

// simSite is a site whose traffic today grows through the day: at hour h
// today holds (h+1)/24 of the day's visitors.
type simSite struct {
	project string
	paths   int
	data    *mintlifytest.Dataset
}

// dayValue is the human visitors of path i on day d (days since the start
// of the data), for the whole day.
func (s simSite) dayValue(i, d int) int64 {
	base := 4000 / (i + 1)                                 // Zipf-like popularity
	return int64(base + 1 + (i*7+d*13)%11 + (d%7)*base/10) // weekly rhythm, noise
}

func (s simSite) set(day time.Time, d int, frac float64) {
	for i := range s.paths {
		h := int64(math.Floor(float64(s.dayValue(i, d)) * frac))
		ai := h / 3
		s.data.Set(day, fmt.Sprintf("/docs/page-%d", i), h, ai, h+ai/2)
	}
}

type simResult struct {
	meanRelErr float64
	byWindow   map[string]float64
	refreshes  map[string]int // by unit
	maxGap     map[string]time.Duration
	gapAt      map[string]time.Time
	intervals  map[string]time.Duration
	requests   int
	maxInHour  int
	rateLimits int
	errors     int
}

// simulate runs the engine at minInterval for hours of simulated time from
// midnight, scraping every minute, and measures the relative error of each
// unit's exported site-wide deduplicated visitors against the fake's truth
// every 5 minutes (from the second hour on, once the start-up round is
// over).
func simulate(t *testing.T, minInterval time.Duration, hours, budget int, windowNames ...string) simResult {
	t.Helper()
	const days = 40
	start := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	clk := mintlifytest.NewClock(start)
	sites := []simSite{{project: "docs", paths: 2000}, {project: "api", paths: 2000}}
	opts := []mintlifytest.Option{mintlifytest.WithClock(clk.Now), mintlifytest.WithRateLimit(100)}
	for i := range sites {
		sites[i].data = mintlifytest.NewDataset()
		for d := range days {
			day := start.AddDate(0, 0, d-days+1)
			frac := 1.0
			if d == days-1 {
				frac = 1.0 / 24
			}
			sites[i].set(day, d, frac)
		}
		opts = append(opts, mintlifytest.WithProject(sites[i].project, sites[i].data))
	}
	srv := mintlifytest.NewServer(opts...)
	t.Cleanup(srv.Close)

	b := newSimBudget(budget, clk)
	c := simClient(t, srv.URL(), clk, b.allow)
	var windows []engine.Window
	for _, s := range windowNames {
		windows = append(windows, windowOf(t, s))
	}
	src := collector.NewVisitors(c.PathsPage, collector.Options{PageSize: 250, MaxPages: 100})
	e, err := engine.New(engine.Config{
		Sources: []engine.Source{src}, Projects: []string{"docs", "api"}, Windows: windows,
		MinInterval: minInterval, Budget: b.Budget, Status: health.NewStatus(), Logger: log.NewNopLogger(),
		Now: clk.Now, WaitUntil: clk.WaitUntil,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)

	settle := func() { simSettle(t, e, clk) }

	res := simResult{byWindow: map[string]float64{}, refreshes: map[string]int{}, maxGap: map[string]time.Duration{}, gapAt: map[string]time.Time{}, intervals: map[string]time.Duration{}}
	last := map[string]time.Time{}
	counts := map[string]int{}
	var errSum float64
	var errN int
	e.Start()
	// advance moves the clock a minute, changing the data first when a new
	// hour starts (today's traffic grows at every hour), so that the
	// refreshes the engine's timer starts then see the new hour's data.
	advance := func() {
		next := clk.Now().Add(time.Minute)
		if next.Minute() == 0 {
			h := next.Hour()
			d := days - 1 + int(next.Sub(start).Hours())/24
			for _, s := range sites {
				if h == 0 { // the day that ended is complete
					s.set(next.AddDate(0, 0, -1), d-1, 1)
				}
				s.set(next, d, float64(h+1)/24)
			}
		}
		clk.Advance(time.Minute)
		settle() // the refreshes the timer started run before anything else
	}
	for minute := 0; minute < hours*60; minute++ {
		now := clk.Now()
		e.Touch()
		settle()
		for _, st := range e.States() {
			k := st.Unit.String()
			if st.LastError != "" {
				res.errors++
			}
			if st.Completed.IsZero() || st.Completed.Equal(last[k]) {
				continue
			}
			if !last[k].IsZero() {
				if g := st.Completed.Sub(last[k]); g > res.maxGap[k] {
					res.maxGap[k] = g
					res.gapAt[k] = st.Completed
				}
			}
			last[k] = st.Completed
			res.refreshes[k]++
		}
		if minute >= 60 && minute%5 == 0 {
			for _, u := range e.State().Units {
				if !strings.HasSuffix(u.Window, ":site") {
					continue // a page walk: its window's totals unit exports the site-wide figure
				}
				truth, _ := srv.Visitors(u.Project, mustDate(t, windowOf(t, u.Window), now).From.Time(), mustDate(t, windowOf(t, u.Window), now).To.Time())
				got := u.Families["mintlify_visitors_deduplicated"][0].Value
				if truth.Total == 0 {
					continue
				}
				rel := math.Abs(got-float64(truth.Total)) / float64(truth.Total)
				errSum += rel
				errN++
				res.byWindow[strings.TrimSuffix(u.Window, ":site")] += rel
				counts[strings.TrimSuffix(u.Window, ":site")]++
			}
		}
		advance()
	}
	for w := range res.byWindow {
		res.byWindow[w] /= float64(counts[w])
	}
	for _, st := range e.States() {
		res.intervals[st.Window.Name] = st.Interval
	}
	res.meanRelErr = errSum / float64(errN)
	res.requests, res.maxInHour = b.counts()
	for _, r := range srv.Requests() {
		if r.Status == 429 {
			res.rateLimits++
		}
	}
	return res
}

// defaultSources builds the default analytics sources on c as the
// acceptance simulations run them (rows unsorted: every walk reads every
// page), with the default windows 1d, 7d and 30d.
func defaultSources(t *testing.T, c *client.Client) ([]engine.Source, []engine.Window) {
	t.Helper()
	sources, err := collector.Build([]string{"visitors", "views", "assistant", "feedback", "searches"}, c,
		collector.Options{PageSize: 250, MaxPages: 1000, Filter: collector.PathFilter{MaxPaths: 5000}})
	if err != nil {
		t.Fatal(err)
	}
	var windows []engine.Window
	for _, w := range []string{"1d", "7d", "30d"} {
		windows = append(windows, windowOf(t, w))
	}
	return sources, windows
}

// startDefaultSim starts the engine as the acceptance simulations run it:
// the default sources and windows over srv, a 15-minute minimum interval,
// derived windows, perHour requests an hour on clk. It stops with the test.
func startDefaultSim(t *testing.T, srv *mintlifytest.Server, clk *mintlifytest.Clock, projects []string, perHour int) (*engine.Engine, *simBudget) {
	t.Helper()
	b := newSimBudget(perHour, clk)
	sources, windows := defaultSources(t, simClient(t, srv.URL(), clk, b.allow))
	e, err := engine.New(engine.Config{Sources: sources, Projects: projects, Windows: windows,
		MinInterval: 15 * time.Minute, Budget: b.Budget, Status: health.NewStatus(),
		Now: clk.Now, WaitUntil: clk.WaitUntil, Layer: derived.New(derived.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	e.Start()
	return e, b
}

func windowOf(t *testing.T, s string) engine.Window {
	w, err := engine.ParseWindow(s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func mustDate(_ *testing.T, w engine.Window, now time.Time) client.DateRange { return w.Range(now) }

// uniformInterval is the interval at which every unit refreshed alike
// spends perHour: the baseline of the simulations. Units of cost pages+1
// (a walk and its totals), n of them.
func uniformInterval(cost, perHour int) time.Duration {
	return time.Duration(math.Ceil(float64(cost)*3600/float64(perHour))) * time.Second
}

// TestPlannerSimulation: at an equal budget, the rule's mean relative error
// is at least 30 % below every unit refreshed alike's; neither
// exceeds the budget in any sliding hour, the API never answers 429, and
// no unit starves.
func TestPlannerSimulation(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 26 hours twice")
	}
	const hours, budget = 26, 90
	// 2 projects × 3 windows × (8 pages + totals).
	uniform := simulate(t, uniformInterval(2*3*9, budget), hours, budget, "1d", "7d", "30d")
	weighted := simulate(t, 15*time.Minute, hours, budget, "1d", "7d", "30d")
	var table strings.Builder
	fmt.Fprintf(&table, "| run | intervals 1d / 7d / 30d | requests in %dh | most in any hour | mean relative error | 1d | 7d | 30d |\n|---|---|---|---|---|---|---|---|\n", hours)
	for _, r := range []struct {
		name string
		res  simResult
	}{{"uniform", uniform}, {"the rule", weighted}} {
		fmt.Fprintf(&table, "| %s | %s / %s / %s | %d | %d | %.4f | %.4f | %.4f | %.4f |\n", r.name,
			r.res.intervals["1d"], r.res.intervals["7d"], r.res.intervals["30d"], r.res.requests, r.res.maxInHour,
			r.res.meanRelErr, r.res.byWindow["1d"], r.res.byWindow["7d"], r.res.byWindow["30d"])
	}
	t.Logf("2 projects x 2,000 paths (8 pages) x 1d, 7d, 30d; budget %d/h; min interval 15m; %dh from midnight\n%s", budget, hours, table.String())
	for name, r := range map[string]simResult{"uniform": uniform, "the rule": weighted} {
		if r.maxInHour > budget || r.rateLimits > 0 || r.errors > 0 {
			t.Errorf("%s: %d requests in one sliding hour (budget %d), %d answered 429, %d failed refreshes", name, r.maxInHour, budget, r.rateLimits, r.errors)
		}
		for unit, n := range r.refreshes {
			// Every unit is refreshed at least every 3 of its planned
			// intervals (a day rollover refreshes everything at once).
			w := unit[strings.LastIndex(unit, "/")+1:]
			if gap := r.maxGap[unit]; gap > 3*r.intervals[w]+time.Hour || n < 2 {
				t.Errorf("%s: unit %s starves: %d refreshes, longest gap %s ending %s (interval %s)", name, unit, n, gap, r.gapAt[unit].Format("15:04"), r.intervals[w])
			}
		}
	}
	if cut := 1 - weighted.meanRelErr/uniform.meanRelErr; cut < 0.30 {
		t.Errorf("the rule cuts the mean relative error by %.0f %%, want at least 30 %%", 100*cut)
	} else {
		t.Logf("the rule cuts the mean relative error by %.0f %%", 100*cut)
	}
}

// TestPlannerShortWindowsMoreOften: with the windows 1d and 30d of the same
// size and a budget that binds, the 1d unit is refreshed at least twice as
// often as the 30d unit, within the budget.
func TestPlannerShortWindowsMoreOften(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 12 hours")
	}
	const budget = 60
	r := simulate(t, 15*time.Minute, 12, budget, "1d", "30d")
	if r.maxInHour > budget || r.rateLimits > 0 || r.errors > 0 {
		t.Errorf("%d requests in one sliding hour (budget %d), %d answered 429, %d failed", r.maxInHour, budget, r.rateLimits, r.errors)
	}
	for _, p := range []string{"docs", "api"} {
		d1, d30 := r.refreshes["visitors/"+p+"/1d"], r.refreshes["visitors/"+p+"/30d"]
		t.Logf("%s: 1d refreshed %d times (every %s), 30d %d times (every %s)", p, d1, r.intervals["1d"], d30, r.intervals["30d"])
		if d1 < 2*d30 {
			t.Errorf("%s: 1d refreshed %d times, 30d %d times: want at least twice as often", p, d1, d30)
		}
	}
}
