package collector

import (
	"bytes"
	"context"
	"fmt"
	"github.com/mintlify-exporter/mintlify_exporter/internal/logbuf"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
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
	// admitted counts the analytics requests the budget let through.
	admitted atomic.Int64
}

type fixtureOptions struct {
	projects []string
	windows  []string
	perHour  int
	interval time.Duration
	filter   PathFilter
	srvOpts  []mintlifytest.Option
	// pace makes the budget wait for room (moving the test clock) instead
	// of refusing.
	pace bool
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
	if o.pace {
		f.budget.Pace(func(ctx context.Context, until time.Time) error {
			// Requests already admitted reach the fake first (real time
			// does not jump while a request is on its way); then waiting
			// moves the shared clock to the moment waited for, unless
			// another waiter already moved it past.
			deadline := time.Now().Add(5 * time.Second)
			for f.visitorsRequests() < int(f.admitted.Load()) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if late := until.Sub(f.clock.Now()); late > 0 {
				f.clock.Advance(late)
			}
			return ctx.Err()
		})
	}
	f.status = NewStatus()
	key, err := client.StaticKey(mintlifytest.DefaultKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.Config{
		BaseURL: f.srv.URL(), Key: key, Timeout: 5 * time.Second,
		Retry: client.RetryPolicy{MaxAttempts: 2, Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }},
		Hooks: client.Hooks{Allow: func(ctx context.Context, e client.Endpoint) error {
			err := f.budget.Allow(ctx, e)
			if err == nil && e.Analytics() {
				f.admitted.Add(1)
			}
			return err
		}},
		Now: f.clock.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	var windows []Window
	for _, s := range o.windows {
		w, err := ParseWindow(s)
		if err != nil {
			t.Fatal(err)
		}
		windows = append(windows, w)
	}
	f.v, err = newVisitorsEngine(visitorsConfig{
		Client: c, Projects: o.projects, Windows: windows, MinInterval: o.interval,
		PageSize: 250, MaxPages: 100, PageConcurrency: 4, Filter: o.filter,
		Budget: f.budget, Status: f.status, Logger: log.NewLogfmtLogger(f.logs), Now: f.clock.Now,
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
	f.v.Touch(context.Background(), 0)
	f.waitIdle()
}

func (f *visitorsFixture) waitIdle() {
	f.t.Helper()
	deadline := time.NewTimer(20 * time.Second)
	defer deadline.Stop()
	for {
		idle, ch := f.v.Idle()
		if idle {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			f.t.Fatal("refreshes did not settle within 20s")
		}
	}
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
	f.v.Touch(context.Background(), 10*time.Second)
	if !f.v.Ready() {
		t.Fatalf("not ready after the first scrape; logs:\n%s", f.logs)
	}
	// Site totals follow the fake's documented formula: floor(3/5 of the
	// sum over paths), at least the largest path, total clamped into
	// [max(human, ai), human+ai].
	expected := `
# HELP mintlify_page_visitors Unique visitors of one page over the window, by traffic (human or ai). Unique counts are not additive: do not sum pages. Cached: read from the API at most every mintlify_refresh_interval_seconds.
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
# HELP mintlify_page_visitors_deduplicated Unique visitors of one page over the window, deduplicated across human and AI traffic. Unique counts are not additive: do not sum pages. Cached: read from the API at most every mintlify_refresh_interval_seconds.
# TYPE mintlify_page_visitors_deduplicated gauge
mintlify_page_visitors_deduplicated{path="/a \"quoted\" path",project="docs",window="1d"} 3
mintlify_page_visitors_deduplicated{path="/a \"quoted\" path",project="docs",window="7d"} 3
mintlify_page_visitors_deduplicated{path="/old",project="docs",window="7d"} 7
mintlify_page_visitors_deduplicated{path="/quickstart",project="docs",window="1d"} 12
mintlify_page_visitors_deduplicated{path="/quickstart",project="docs",window="7d"} 20
# HELP mintlify_visitors Site-wide unique visitors of the project over the window (the last N calendar days in UTC, today included), by traffic (human or ai). Cached: read from the API at most every mintlify_refresh_interval_seconds.
# TYPE mintlify_visitors gauge
mintlify_visitors{project="docs",traffic="ai",window="1d"} 4
mintlify_visitors{project="docs",traffic="ai",window="7d"} 9
mintlify_visitors{project="docs",traffic="human",window="1d"} 10
mintlify_visitors{project="docs",traffic="human",window="7d"} 15
# HELP mintlify_visitors_deduplicated Site-wide unique visitors of the project over the window, deduplicated across human and AI traffic (not the sum of the two). Cached: read from the API at most every mintlify_refresh_interval_seconds.
# TYPE mintlify_visitors_deduplicated gauge
mintlify_visitors_deduplicated{project="docs",window="1d"} 12
mintlify_visitors_deduplicated{project="docs",window="7d"} 20
# HELP mintlify_visitors_paths Distinct paths the API returned for the project and window at the last refresh.
# TYPE mintlify_visitors_paths gauge
mintlify_visitors_paths{project="docs",window="1d"} 2
mintlify_visitors_paths{project="docs",window="7d"} 3
# HELP mintlify_visitors_paths_exported Paths exported for the project and window after --analytics.path-include/-exclude and --analytics.max-paths.
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

func TestVisitorsStaleWhileRevalidate(t *testing.T) {
	f := newVisitorsFixture(t, day0, map[string]*mintlifytest.Dataset{"docs": smallDataset()},
		fixtureOptions{projects: []string{"docs"}, windows: []string{"1d"}})
	f.v.Touch(context.Background(), 10*time.Second)
	if n := f.visitorsRequests(); n != 1 {
		t.Fatalf("first refresh sent %d requests, want 1", n)
	}
	// Scrapes within the interval send nothing.
	for range 20 {
		f.clock.Advance(30 * time.Second)
		f.scrape()
	}
	if n := f.visitorsRequests(); n != 1 {
		t.Fatalf("scrapes within the interval sent %d requests in all, want 1", n)
	}
	// New data upstream; once the snapshot is older than the interval a
	// scrape is answered from the old snapshot and starts one refresh.
	d := smallDataset()
	d.Set(day0, "/new-page", 50, 50, 90)
	f.srv.SetProject("docs", d)
	f.clock.Advance(5 * time.Minute) // 15m since the first refresh
	before := f.v.Exposition()
	f.v.Touch(context.Background(), time.Second)
	f.waitIdle()
	if f.v.Exposition() == before {
		t.Fatal("no new exposition after a due refresh")
	}
	if n := f.visitorsRequests(); n != 2 {
		t.Fatalf("requests after the due refresh = %d, want 2", n)
	}
	if got := pageHuman(t, f.v, "docs", "1d", "/new-page"); got != "50" {
		t.Fatalf("/new-page human = %v, want 50", got)
	}
	// Paths that vanish upstream vanish from the output.
	f.srv.SetProject("docs", mintlifytest.NewDataset())
	f.clock.Advance(16 * time.Minute)
	f.scrape()
	if n := testutil.CollectAndCount(f.v, "mintlify_page_visitors"); n != 0 {
		t.Fatalf("%d page series left after every path vanished", n)
	}
}

// pageHuman returns the human value of one page series in the exposition.
func pageHuman(t *testing.T, v *visitorsEngine, project, window, path string) string {
	t.Helper()
	var b bytes.Buffer
	if err := v.Exposition().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(fmt.Sprintf(`(?m)^mintlify_page_visitors\{path="%s",project="%s",traffic="human",window="%s"\} (\d+)$`,
		regexp.QuoteMeta(path), regexp.QuoteMeta(project), regexp.QuoteMeta(window)))
	m := re.FindStringSubmatch(b.String())
	if m == nil {
		t.Fatalf("no series for %s %s %s in:\n%s", project, window, path, b.String())
	}
	return m[1]
}

func TestVisitorsOneRefreshInFlight(t *testing.T) {
	data := map[string]*mintlifytest.Dataset{"docs": mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 3, Paths: 600, Days: 3, End: day0})}
	f := newVisitorsFixture(t, day0, data, fixtureOptions{projects: []string{"docs"}, windows: []string{"7d"},
		srvOpts: []mintlifytest.Option{mintlifytest.WithLatency(20 * time.Millisecond)}})
	var wg sync.WaitGroup
	for range 25 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.v.Touch(context.Background(), 10*time.Second)
		}()
	}
	wg.Wait()
	f.waitIdle()
	if n := f.visitorsRequests(); n != 3 {
		t.Fatalf("25 concurrent first scrapes sent %d requests, want one walk of 3 pages", n)
	}
}

func TestVisitorsFailureKeepsSnapshot(t *testing.T) {
	data := map[string]*mintlifytest.Dataset{"docs": mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 4, Paths: 400, Days: 3, End: day0})}
	f := newVisitorsFixture(t, day0, data, fixtureOptions{projects: []string{"docs"}, windows: []string{"1d"}})
	f.scrape()
	good := f.v.Exposition()
	if !f.status.Up("docs", SourceVisitors) {
		t.Fatal("not up after a good refresh")
	}
	// The second page fails for good: every later refresh fails.
	remove := f.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: 250, Status: 500})
	for i := range 6 {
		f.clock.Advance(16 * time.Minute)
		f.scrape()
		if f.v.Exposition() != good {
			t.Fatalf("round %d: the snapshot changed after a failed refresh", i)
		}
		if f.status.Up("docs", SourceVisitors) {
			t.Fatalf("round %d: up after a failed refresh", i)
		}
	}
	if n := strings.Count(f.logs.String(), "visitors refresh failed"); n != 1 {
		t.Fatalf("the same failure was logged %d times, want once:\n%s", n, f.logs)
	}
	remove()
	f.clock.Advance(16 * time.Minute)
	f.scrape()
	if !f.status.Up("docs", SourceVisitors) {
		t.Fatalf("not up again after the fault cleared; logs:\n%s", f.logs)
	}
	if !strings.Contains(f.logs.String(), "visitors refresh succeeded again") {
		t.Fatal("recovery not logged")
	}
}

func TestVisitorsFailureBackoffBoundsRequests(t *testing.T) {
	f := newVisitorsFixture(t, day0, map[string]*mintlifytest.Dataset{"docs": smallDataset()},
		fixtureOptions{projects: []string{"docs"}, windows: []string{"1d"}})
	f.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Status: 401})
	// An hour of scrapes every 15 s against a refusing API.
	for range 240 {
		f.scrape()
		f.clock.Advance(15 * time.Second)
	}
	// Backoff 30s, 1m, 2m, 4m, 8m, then the 15m interval: about 8 attempts.
	if n := f.visitorsRequests(); n < 5 || n > 10 {
		t.Fatalf("an hour of failing refreshes sent %d requests, want 5..10", n)
	}
	if !strings.Contains(f.logs.String(), "the admin API key was refused") {
		t.Fatalf("401 not explained in the log:\n%s", f.logs)
	}
	if strings.Contains(f.logs.String(), mintlifytest.DefaultKey) {
		t.Fatal("the key appears in the log")
	}
}

func TestVisitorsDayRollover(t *testing.T) {
	start := time.Date(2026, 3, 10, 23, 59, 30, 0, time.UTC)
	d := mintlifytest.NewDataset()
	d.Set(start, "/yesterday", 5, 1, 5)
	d.Set(start.Add(time.Minute), "/today", 8, 2, 9)
	f := newVisitorsFixture(t, start, map[string]*mintlifytest.Dataset{"docs": d},
		fixtureOptions{projects: []string{"docs"}, windows: []string{"1d", "7d"}})
	f.scrape()
	f.clock.Advance(time.Minute) // 00:00:30 on the 11th: every window moved
	f.scrape()
	reqs := f.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("got %d requests, want 2 walks before and 2 after midnight", len(reqs))
	}
	want := map[string]bool{
		"2026-03-10..2026-03-11": true, "2026-03-04..2026-03-11": true, // before midnight
		"2026-03-11..2026-03-12": true, "2026-03-05..2026-03-12": true, // after
	}
	for _, r := range reqs {
		k := r.Query.Get("dateFrom") + ".." + r.Query.Get("dateTo")
		if !want[k] {
			t.Errorf("unexpected range %s", k)
		}
		delete(want, k)
	}
	if len(want) != 0 {
		t.Errorf("ranges never requested: %v", want)
	}
	var b bytes.Buffer
	_ = f.v.Exposition().WriteText(&b)
	if !strings.Contains(b.String(), `path="/today"`) || strings.Contains(b.String(), `path="/yesterday",project="docs",traffic="human",window="1d"`) {
		t.Fatalf("1d window did not move to the new day:\n%s", b.String())
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
	rows, distinct := selectPaths(res.Rows, pathOf,
		totalOf, PathFilter{})
	if len(rows) != 2 || distinct != 2 {
		t.Fatalf("rows %+v distinct %d", rows, distinct)
	}
	if rows[0].Path != "/bad\uFFFD" || rows[0].Human != 5 {
		t.Fatalf("first row %+v: want the first occurrence of the sanitized path", rows[0])
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
	for range 3 * 240 {
		before := f.visitorsRequests()
		f.scrape()
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
	// budget binds, and the weighted plan refreshes short windows more
	// often than long ones, spending at most 90 an hour.
	iv := f.v.intervals()
	if !(iv["1d"] < iv["7d"] && iv["7d"] < iv["30d"]) || iv["1d"] < 15*time.Minute {
		t.Fatalf("planned intervals %v: want 15m <= 1d < 7d < 30d", iv)
	}
	rate := 0.0
	for _, d := range iv {
		rate += 2 * 5 / d.Hours()
	}
	if rate > 90 {
		t.Fatalf("the plan spends %.1f requests an hour, over 90", rate)
	}
	if n := len(sendTimes); n < 230 || n > 270 {
		t.Fatalf("%d requests in three hours, want the budget nearly spent (230..270)", n)
	}
	if !strings.Contains(f.logs.String(), "intervals stretched to fit the request budget") {
		t.Fatal("the stretch was not logged")
	}
}

func TestVisitorsRateLimitPausesAllRequests(t *testing.T) {
	for _, c := range []struct {
		name       string
		retryAfter string
		pause      time.Duration
	}{
		{"seconds", "600", 10 * time.Minute},
		{"http date", day0.Add(16*time.Minute + 20*time.Minute).Format(http1123), 20 * time.Minute},
		{"absent", "", rateLimitBackoffBase},
		{"far-future date is capped", day0.Add(48 * time.Hour).Format(http1123), client.MaxRateLimitPause},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := map[string]*mintlifytest.Dataset{"docs": smallDataset(), "api": smallDataset()}
			f := newVisitorsFixture(t, day0, data, fixtureOptions{projects: []string{"docs", "api"}, windows: []string{"1d"}})
			f.scrape()
			f.clock.Advance(16 * time.Minute)
			f.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Project: "docs", Status: 429, RetryAfter: c.retryAfter, Times: 1})
			f.scrape() // docs gets 429; api then waits for the pause too
			n := f.visitorsRequests()
			if n != 3 {
				t.Fatalf("%d requests, want 2 before and 1 (the 429) after", n)
			}
			for step := time.Duration(0); step < c.pause-15*time.Second; step += 15 * time.Second {
				f.clock.Advance(15 * time.Second)
				f.scrape()
				if got := f.visitorsRequests(); got != n {
					t.Fatalf("a request was sent %s into a %s pause", step, c.pause)
				}
			}
			f.clock.Advance(30 * time.Second)
			f.scrape()
			if got := f.visitorsRequests(); got != n+2 {
				t.Fatalf("after the pause: %d requests, want %d", got, n+2)
			}
			if !f.status.Up("docs", SourceVisitors) || !f.status.Up("api", SourceVisitors) {
				t.Fatal("not up after the pause")
			}
		})
	}
}

const http1123 = "Mon, 02 Jan 2006 15:04:05 GMT"

// TestVisitorsWalkLongerThanTheBudgetIsPaced walks a site whose every walk
// needs more requests than one hour's budget: the budget paces the walk over
// several hours instead of failing it, and the API's own limiter never
// answers 429.
func TestVisitorsWalkLongerThanTheBudgetIsPaced(t *testing.T) {
	data := map[string]*mintlifytest.Dataset{"docs": mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 7, Paths: 1234, Days: 3, End: day0.AddDate(0, 0, 1)})}
	f := newVisitorsFixture(t, day0, data, fixtureOptions{
		projects: []string{"docs"}, windows: []string{"7d"}, perHour: 2, pace: true,
		srvOpts: []mintlifytest.Option{mintlifytest.WithRateLimit(2)},
	})
	start := f.clock.Now()
	f.scrape()
	if !f.v.Ready() || !f.status.Up("docs", SourceVisitors) {
		t.Fatalf("the paced walk did not complete; logs:\n%s", f.logs)
	}
	if n := f.visitorsRequests(); n != 5 {
		t.Fatalf("%d requests, want 5 pages", n)
	}
	// 5 requests at 2 an hour: the walk ends two hours after it started.
	if took := f.clock.Now().Sub(start); took < 2*time.Hour || took > 2*time.Hour+time.Minute {
		t.Fatalf("the walk took %s of clock time, want about 2h", took)
	}
	// 5 pages at 2 an hour: one round every 2.5 hours.
	if got := f.v.Interval(); got != 150*time.Minute {
		t.Fatalf("interval %s, want 2h30m", got)
	}
	// The next walk (pages fetched in parallel) is paced the same way.
	f.clock.Advance(150 * time.Minute)
	f.scrape()
	if n := f.visitorsRequests(); n != 10 || !f.status.Up("docs", SourceVisitors) {
		t.Fatalf("second walk: %d requests in all, up %v; logs:\n%s", n, f.status.Up("docs", SourceVisitors), f.logs)
	}
	for _, r := range f.srv.Requests() {
		if r.Status == 429 {
			t.Fatal("the API answered 429: the budget let a request through too early")
		}
	}
}
