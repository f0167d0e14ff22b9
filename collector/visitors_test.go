package collector

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/logbuf"
)

// visitorsFixture wires a real client, budget and visitors collector to a
// fake API sharing one test clock.
type visitorsFixture struct {
	t      *testing.T
	clock  *mintlifytest.Clock
	srv    *mintlifytest.Server
	budget *Budget
	status *Status
	v      *visitorsEngine
	logs   *logbuf.Buffer
}

type fixtureOptions struct {
	projects []string
	windows  []string
	perHour  int
	interval time.Duration
	filter   PathFilter
	srvOpts  []mintlifytest.Option
}

func newVisitorsFixture(t *testing.T, now time.Time, data map[string]*mintlifytest.Dataset, o fixtureOptions) *visitorsFixture {
	t.Helper()
	f := &visitorsFixture{t: t, clock: mintlifytest.NewClock(now), logs: &logbuf.Buffer{}}
	opts := append([]mintlifytest.Option{mintlifytest.WithClock(f.clock.Now)}, o.srvOpts...)
	for p, d := range data {
		opts = append(opts, mintlifytest.WithProject(p, d))
	}
	f.srv = mintlifytest.NewServer(opts...)
	t.Cleanup(f.srv.Close)
	if o.perHour == 0 {
		o.perHour = 90
	}
	if o.interval == 0 {
		o.interval = 15 * time.Minute
	}
	if len(o.windows) == 0 {
		o.windows = []string{"1d", "7d"}
	}
	f.budget = NewBudget(o.perHour, f.clock.Now)

	f.status = NewStatus()
	c := apitest.Client(t, f.srv, client.Config{Timeout: 5 * time.Second,
		Retry: client.RetryPolicy{MaxAttempts: 2, Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }},
		Hooks: client.Hooks{Allow: f.budget.Allow},
		Now:   f.clock.Now})
	var windows []Window
	for _, s := range o.windows {
		w, err := ParseWindow(s)
		if err != nil {
			t.Fatal(err)
		}
		windows = append(windows, w)
	}
	var err error
	f.v, err = newVisitorsEngine(visitorsConfig{
		Client: c, Projects: o.projects, Windows: windows, MinInterval: o.interval,
		PageSize: 250, MaxPages: 100, Filter: o.filter,
		Budget: f.budget, Status: f.status, Logger: log.NewLogfmtLogger(f.logs), Clock: f.clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.v.Close)
	return f
}

// scrape is what a scrape does to the collector: touch, then wait for the
// refreshes it started to settle (a real scrape would not wait; the test
// does so to observe their outcome without sleeping).
func (f *visitorsFixture) scrape() {
	f.t.Helper()
	f.v.Touch()
	settle(f.t, f.clock, f.v.Engine)
}

func (f *visitorsFixture) visitorsRequests() int {
	return f.srv.CountRequests(mintlifytest.EndpointVisitors)
}

var day0 = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// smallDataset has three paths over two days: the 1d window (Mar 10) sees
// /quickstart and "/a \"quoted\" path"; the 7d window also sees /old.
func smallDataset() *mintlifytest.Dataset {
	d := mintlifytest.NewDataset()
	d.Set(day0, "/quickstart", 10, 4, 12)
	d.Set(day0, `/a "quoted" path`, 3, 1, 3)
	d.Set(day0.AddDate(0, 0, -1), "/quickstart", 5, 5, 8)
	d.Set(day0.AddDate(0, 0, -3), "/old", 7, 0, 7)
	return d
}

func TestVisitorsCollectLiteral(t *testing.T) {
	f := newVisitorsFixture(t, day0, map[string]*mintlifytest.Dataset{"docs": smallDataset()},
		fixtureOptions{projects: []string{"docs"}})
	f.v.Touch()
	settle(t, f.clock, f.v.Engine)
	if !f.v.Ready() {
		t.Fatalf("not ready after the first scrape; logs:\n%s", f.logs)
	}
	// Site totals follow the fake's documented formula: floor(3/5 of the
	// sum over paths), at least the largest path, total clamped into
	// [max(human, ai), human+ai].
	expected := `
# HELP mintlify_page_visitors Unique visitors of one page over the window, by traffic (human or ai).
# TYPE mintlify_page_visitors gauge
mintlify_page_visitors{path="/a \"quoted\" path",project="docs",traffic="ai",window="1d"} 1
mintlify_page_visitors{path="/a \"quoted\" path",project="docs",traffic="ai",window="7d"} 1
mintlify_page_visitors{path="/a \"quoted\" path",project="docs",traffic="human",window="1d"} 3
mintlify_page_visitors{path="/a \"quoted\" path",project="docs",traffic="human",window="7d"} 3
mintlify_page_visitors{path="/old",project="docs",traffic="ai",window="7d"} 0
mintlify_page_visitors{path="/old",project="docs",traffic="human",window="7d"} 7
mintlify_page_visitors{path="/quickstart",project="docs",traffic="ai",window="1d"} 4
mintlify_page_visitors{path="/quickstart",project="docs",traffic="ai",window="7d"} 9
mintlify_page_visitors{path="/quickstart",project="docs",traffic="human",window="1d"} 10
mintlify_page_visitors{path="/quickstart",project="docs",traffic="human",window="7d"} 15
# HELP mintlify_page_visitors_deduplicated Unique visitors of one page over the window, deduplicated across human and AI traffic.
# TYPE mintlify_page_visitors_deduplicated gauge
mintlify_page_visitors_deduplicated{path="/a \"quoted\" path",project="docs",window="1d"} 3
mintlify_page_visitors_deduplicated{path="/a \"quoted\" path",project="docs",window="7d"} 3
mintlify_page_visitors_deduplicated{path="/old",project="docs",window="7d"} 7
mintlify_page_visitors_deduplicated{path="/quickstart",project="docs",window="1d"} 12
mintlify_page_visitors_deduplicated{path="/quickstart",project="docs",window="7d"} 20
# HELP mintlify_visitors Site-wide unique visitors over the window, by traffic (human or ai).
# TYPE mintlify_visitors gauge
mintlify_visitors{project="docs",traffic="ai",window="1d"} 4
mintlify_visitors{project="docs",traffic="ai",window="7d"} 9
mintlify_visitors{project="docs",traffic="human",window="1d"} 10
mintlify_visitors{project="docs",traffic="human",window="7d"} 15
# HELP mintlify_visitors_deduplicated Site-wide unique visitors over the window, deduplicated across human and AI traffic.
# TYPE mintlify_visitors_deduplicated gauge
mintlify_visitors_deduplicated{project="docs",window="1d"} 12
mintlify_visitors_deduplicated{project="docs",window="7d"} 20
# HELP mintlify_visitors_paths Distinct paths the visitors export returned at the last refresh.
# TYPE mintlify_visitors_paths gauge
mintlify_visitors_paths{project="docs",window="1d"} 2
mintlify_visitors_paths{project="docs",window="7d"} 3
# HELP mintlify_visitors_paths_exported Paths of the visitors export exported after the path filters and --analytics.max-paths.
# TYPE mintlify_visitors_paths_exported gauge
mintlify_visitors_paths_exported{project="docs",window="1d"} 2
mintlify_visitors_paths_exported{project="docs",window="7d"} 3
`
	if err := testutil.CollectAndCompare(f.v, strings.NewReader(expected)); err != nil {
		t.Fatal(err)
	}
	// The literal expectation agrees with the fake's own answer.
	for _, w := range []Window{{Name: "1d", Days: 1}, {Name: "7d", Days: 7}} {
		r := w.Range(day0)
		totals, rows := f.srv.Visitors("docs", r.From.Time(), r.To.Time())
		t.Logf("%s: fake totals %+v, %d rows", w.Name, totals, len(rows))
	}
	if problems, err := testutil.CollectAndLint(f.v); err != nil || len(problems) > 0 {
		t.Fatalf("lint: %v %v", problems, err)
	}
	// The pre-rendered exposition holds the same series as Collect.
	var text bytes.Buffer
	if err := f.v.Exposition().WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := testutil.CollectAndCompare(f.v, &text); err != nil {
		t.Fatalf("pre-rendered exposition differs from Collect: %v", err)
	}
}

func TestVisitorsFilterAndMaxPaths(t *testing.T) {
	d := mintlifytest.NewDataset()
	for i, p := range []string{"/api/a", "/api/b", "/guide/a", "/guide/b", "/guide/c", "/internal/x"} {
		d.Set(day0, p, int64(10+i), 0, int64(10+i))
	}
	f := newVisitorsFixture(t, day0, map[string]*mintlifytest.Dataset{"docs": d}, fixtureOptions{
		projects: []string{"docs"}, windows: []string{"1d"},
		filter: PathFilter{Include: regexp.MustCompile(`^/(api|guide)/`), Exclude: regexp.MustCompile(`/b$`), MaxPaths: 2},
	})
	f.scrape()
	var b bytes.Buffer
	_ = f.v.Exposition().WriteText(&b)
	var got []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "mintlify_page_visitors_deduplicated{") {
			got = append(got, l[strings.Index(l, `path="`)+6:strings.Index(l, `",`)])
		}
	}
	// /guide/c (14) and /guide/a (12) are the top two of /api/a, /guide/a, /guide/c.
	if strings.Join(got, ",") != "/guide/c,/guide/a" {
		t.Fatalf("exported %v", got)
	}
	for _, want := range []string{`mintlify_visitors_paths{project="docs",window="1d"} 6`, `mintlify_visitors_paths_exported{project="docs",window="1d"} 2`} {
		if !strings.Contains(b.String(), want+"\n") {
			t.Errorf("exposition lacks %s:\n%s", want, b.String())
		}
	}
}

func TestSelectPathsSanitizesAndMerges(t *testing.T) {
	res := &client.PathsResult{Rows: []client.PathCounts{
		{Path: "/ok", Counts: client.Counts{Human: 1, AI: 1, Total: 2}},
		{Path: "/bad\xff", Counts: client.Counts{Human: 5, AI: 0, Total: 5}},
		{Path: "/bad\xfe", Counts: client.Counts{Human: 9, AI: 0, Total: 9}}, // same label once sanitized
	}}
	rows, distinct := selectPaths(res.Rows, func(r *client.PathCounts) *string { return &r.Path },
		func(r *client.PathCounts) float64 { return r.Total }, PathFilter{}, false)
	if len(rows) != 2 || distinct != 2 {
		t.Fatalf("rows %+v distinct %d", rows, distinct)
	}
	if rows[0].Path != "/bad\uFFFD" || rows[0].Human != 5 {
		t.Fatalf("first row %+v: want the first occurrence of the sanitized path", rows[0])
	}
}

// TestVisitorsSimulatedHours scrapes every 15 s for three simulated hours:
// the ledger never exceeds the budget in any sliding hour, the API never
// answers 429, and every unit keeps being refreshed.
func TestVisitorsSimulatedHours(t *testing.T) {
	data := map[string]*mintlifytest.Dataset{}
	for i, p := range []string{"docs", "api"} {
		data[p] = mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: int64(i + 10), Paths: 1234, Days: 40, End: day0.AddDate(0, 0, 1)})
	}
	f := newVisitorsFixture(t, day0, data, fixtureOptions{
		projects: []string{"docs", "api"}, windows: []string{"1d", "7d", "30d"}, perHour: 90,
		srvOpts: []mintlifytest.Option{mintlifytest.WithRateLimit(100)},
	})
	var sendTimes []time.Time
	refreshes, last := map[string]int{}, map[string]time.Time{} // by window, by unit
	for range 3 * 240 {
		before := f.visitorsRequests()
		f.scrape()
		for _, s := range f.v.States() {
			if k := s.Unit.String(); !s.Completed.IsZero() && !s.Completed.Equal(last[k]) {
				last[k] = s.Completed
				refreshes[s.Window.Name]++
			}
		}
		for range f.visitorsRequests() - before {
			sendTimes = append(sendTimes, f.clock.Now())
		}
		if used := f.budget.Used(); used > 90 {
			t.Fatalf("ledger holds %d requests in the last hour, over 90", used)
		}
		f.clock.Advance(15 * time.Second)
	}
	for i := range sendTimes {
		n := 0
		for j := i; j < len(sendTimes) && sendTimes[j].Before(sendTimes[i].Add(time.Hour)); j++ {
			n++
		}
		if n > 90 {
			t.Fatalf("%d requests in the hour from %s", n, sendTimes[i])
		}
	}
	for _, r := range f.srv.Requests() {
		if r.Status == 429 {
			t.Fatal("the API answered 429")
		}
	}
	// 6 walks of 5 pages, 120 requests an hour at the 15m minimum: the
	// budget binds, and the rule refreshes short windows more often than
	// long ones, spending the budget.
	if !(refreshes["1d"] > refreshes["30d"] && refreshes["7d"] >= refreshes["30d"]) {
		t.Fatalf("refreshes by window %v: want 1d more often than 30d, 7d at least as often", refreshes)
	}
	if n := len(sendTimes); n < 230 || n > 270 {
		t.Fatalf("%d requests in three hours, want the budget nearly spent (230..270)", n)
	}
	// Every unit keeps being refreshed: its last success is no older than
	// its interval, and a scrape period and a walk of slack.
	now := f.clock.Now()
	for _, s := range f.v.States() {
		if age := now.Sub(s.Completed); s.Completed.IsZero() || age > s.Interval+5*time.Minute {
			t.Errorf("%s %s %s: last refreshed %s ago, interval %s", s.Source, s.Project, s.Window.Name, age, s.Interval)
		}
	}
}
