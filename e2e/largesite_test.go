package e2e

// A large site whose first round of refreshes does not fit the hour's
// budget: 3 projects of 2,000 paths at the default flags, rows
// served out of order (the API promises none), so every walk reads every
// page: 171 requests against the default budget of 90.

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logfmt/logfmt"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/promtest"
)

var largeProjects = []string{"big-a", "big-b", "big-c"}

// startLargeSite starts the fake with 3 projects of 2,000 paths and the
// API's own limit of 100 an hour, and the exporter against it with the
// default flags.
func startLargeSite(t *testing.T) (*mintlifytest.Server, *process) {
	t.Helper()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	opts := []mintlifytest.Option{mintlifytest.WithRateLimit(100), mintlifytest.WithUnorderedPaths()}
	for i, p := range largeProjects {
		opts = append(opts, mintlifytest.WithProject(p, mintlifytest.Generate(mintlifytest.GenerateOptions{
			Seed: int64(500 + i), Paths: 2000, Days: 30, End: today.AddDate(0, 0, 1),
		})))
	}
	srv := apitest.Fake(t, opts...)
	args := []string{"--mintlify.api-url=" + srv.URL()}
	for _, p := range largeProjects {
		args = append(args, "--mintlify.project-id="+p)
	}
	return srv, startExporter(t, keyEnv, args...)
}

// TestLargeSiteFirstRound: the one-request units of the windows the first
// hour's budget reaches (1d and 7d; 30d follows in the value order) get data
// in every project and /-/ready becomes 200 (the units left wait an hour for
// the budget, so a wrong order never gets there); from then on a scrape does
// not use the time it announces: one announcing 10 minutes is answered while
// units still wait for the budget, long before its timeout; no source is
// down; the budget holds; the log says once that the first round does not
// fit, repeats no message more than 3 times and has no line over 2 KB. No
// bound here is a timing target: each only stops a test that would hang.
func TestLargeSiteFirstRound(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the exporter against 6,000 paths")
	}
	srv, p := startLargeSite(t)
	start := time.Now()
	// A bound on the test, not a timing target: idle, 2 cores take about 10 s.
	eventually(t, 5*time.Minute, "every 1d and 7d one-request unit has data and /-/ready is 200", func() string {
		resp, _ := p.get(t, "/-/ready", nil)
		if resp.StatusCode != http.StatusOK {
			return fmt.Sprintf("/-/ready answers %d", resp.StatusCode)
		}
		_, fams := p.scrape(t)
		got := series(fams)
		for _, proj := range largeProjects {
			for _, w := range []string{"1d", "7d"} {
				for _, k := range []string{
					key("mintlify_assistant_queries", "project", proj, "window", w, "caller", "web"),
					key("mintlify_searches", "project", proj, "window", w),
					key("mintlify_feedback_pages_truncated", "project", proj, "window", w),
				} {
					if _, ok := got[k]; !ok {
						return "no " + k
					}
				}
			}
		}
		return ""
	})
	t.Logf("every one-request unit had data and /-/ready was 200 after %s", time.Since(start).Round(time.Millisecond))

	// Scrapes now cost their bytes: none waits for the units that wait for
	// the budget (the bug held each scrape until shortly before the timeout
	// it announced: 8.8 s of 10). Each scrape here announces 10 minutes and
	// must be answered within a fifth of that, however slow the machine:
	// an exporter that waits for the units waiting an hour for the budget
	// uses the whole timeout, one that does not needs what the bytes cost
	// (reported beside a /-/healthy request of the same run, not asserted).
	patient := &http.Client{Timeout: 2 * time.Minute}
	hdr := map[string]string{"X-Prometheus-Scrape-Timeout-Seconds": "600"}
	var slowest, healthy time.Duration
	var last []byte
	for range 5 {
		t0 := time.Now()
		req, err := http.NewRequest(http.MethodGet, "http://"+p.addr+"/metrics", nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := patient.Do(req)
		if err != nil {
			t.Fatalf("a scrape announcing a 600 s timeout was not answered within %s: it waits for units that cannot progress: %v", patient.Timeout, err)
		}
		last, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("scrape: status %d, %v", resp.StatusCode, err)
		}
		slowest = max(slowest, time.Since(t0))
		t0 = time.Now()
		p.get(t, "/-/healthy", nil)
		healthy = max(healthy, time.Since(t0))
	}
	t.Logf("the slowest of 5 scrapes announcing a 600 s timeout took %s (%d bytes); the slowest /-/healthy %s",
		slowest.Round(time.Millisecond), len(last), healthy.Round(time.Microsecond))
	got := series(promtest.ParseText(t, last))
	waiting := 0.0
	for k, v := range got {
		if strings.HasPrefix(k, "mintlify_up{") && v != 1 {
			t.Errorf("%s = %v although nothing failed", k, v)
		}
		if strings.HasPrefix(k, "mintlify_units_waiting{") {
			waiting += v
		}
	}
	if waiting == 0 {
		t.Error("no unit waits for the budget: the test's first round fits the hour, it proves nothing")
	}

	// The budget holds: at most 90 analytics requests, and no 429.
	n := 0
	for _, r := range srv.Requests() {
		n++
		if r.Status == http.StatusTooManyRequests {
			t.Errorf("the API answered 429 to %s", r.Path)
		}
	}
	if n > 90 {
		t.Errorf("%d requests sent, over the budget of 90", n)
	}

	// The log, as a stranger reads it.
	logs := p.stderr.String()
	if testing.Verbose() {
		t.Logf("the exporter's log:\n%s", logs)
	}
	if c := strings.Count(logs, "the first round of refreshes needs more requests than the budget allows"); c != 1 {
		t.Errorf("the first round was logged %d times, want once", c)
	}
	msgs := map[string]int{}
	for line := range strings.SplitSeq(strings.TrimSpace(logs), "\n") {
		if len(line) > 2048 {
			t.Errorf("a log line of %d bytes: %.200s…", len(line), line)
		}
		d := logfmt.NewDecoder(strings.NewReader(line))
		for d.ScanRecord() {
			for d.ScanKeyval() {
				if string(d.Key()) == "msg" {
					msgs[string(d.Value())]++
				}
			}
		}
	}
	for msg, c := range msgs {
		if c > 3 {
			t.Errorf("logged %d times: %q", c, msg)
		}
	}
}

// TestLargeSiteScrapedByPrometheus: a real Prometheus scrapes the
// budget-bound exporter 30 times in two jobs every 10 s, one with a
// 2 s and one with a 10 s timeout; no mintlify_up is ever 0, and the
// scrapes do not take the time they announce. An exporter that holds a
// scrape until shortly before its timeout (the bug held one 8.8 s of 10)
// makes the 10 s job's median scrape_duration_seconds 7 s longer than the
// 2 s job's; one answering from memory takes what the bytes cost in both,
// however loaded the machine, until a scrape costs over 6 s. The test fails
// when the medians differ by half the difference of the timeouts (4 s).
func TestLargeSiteScrapedByPrometheus(t *testing.T) {
	if testing.Short() {
		t.Skip("scrapes for 5 minutes")
	}
	t.Parallel()
	tools := lookTools(t)
	_, p := startLargeSite(t)
	dir := t.TempDir()
	const shortTimeout, longTimeout = 2.0, 10.0
	cfg := writeFile(t, dir, "prometheus.yml", []byte(fmt.Sprintf(`global:
  scrape_interval: 10s
scrape_configs:
  - job_name: short
    scrape_timeout: %gs
    static_configs:
      - targets: [%q]
  - job_name: long
    scrape_timeout: %gs
    static_configs:
      - targets: [%q]
`, shortTimeout, p.addr, longTimeout, p.addr)))
	prom := startProcess(t, "prometheus", tools.prometheus, environ(), func(addr string) []string {
		return []string{"--config.file=" + cfg, "--storage.tsdb.path=" + dir + "/data", "--web.listen-address=" + addr}
	}, "/-/ready")
	api := promAPI{base: "http://" + prom.addr}
	start := time.Now()
	// Wait for 30 scrapes in each job (5 minutes at 10 s), polling
	// Prometheus every 5 s; the deadline only stops a test that would hang.
	const run = 5 * time.Minute
	scraped := func() string {
		for _, job := range []string{"short", "long"} {
			res, err := api.query(fmt.Sprintf(`count_over_time(scrape_duration_seconds{job=%q}[1h])`, job), time.Time{})
			if err != nil {
				return err.Error()
			}
			if len(res) != 1 {
				return "no scrape in job " + job
			}
			if n, _ := strconv.ParseFloat(fmt.Sprint(res[0].Value[1]), 64); n < 30 {
				return fmt.Sprintf("%v scrapes in job %s", n, job)
			}
		}
		return ""
	}
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	for why := scraped(); why != ""; why = scraped() {
		if time.Since(start) > 3*run {
			t.Fatalf("30 scrapes in each job: not within %s: %s", 3*run, why)
		}
		<-tick.C
	}
	// Every sample of the run after its first minute: the first scrapes
	// bring Prometheus tens of thousands of new series, which it takes its
	// time to store.
	median := func(job string) float64 {
		t.Helper()
		var r queryResult
		q := map[string][]string{
			"query": {fmt.Sprintf(`scrape_duration_seconds{job=%q}`, job)},
			"start": {promTime(start.Add(time.Minute))}, "end": {promTime(time.Now())}, "step": {"10s"},
		}
		if err := api.get("/api/v1/query_range", q, &r); err != nil {
			t.Fatal(err)
		}
		ss, err := r.series()
		if err != nil || len(ss) != 1 {
			t.Fatalf("scrape_duration_seconds{job=%q}: %d series, %v", job, len(ss), err)
		}
		var durations []float64
		for _, v := range ss[0].Values {
			d, _ := strconv.ParseFloat(fmt.Sprint(v[1]), 64)
			durations = append(durations, d)
		}
		if len(durations) < 18 {
			t.Fatalf("%d samples of scrape_duration_seconds{job=%q} in %s, want about 24", len(durations), job, run)
		}
		slices.Sort(durations)
		m := durations[len(durations)/2]
		t.Logf("job %s: %d scrapes over the %s after the first minute: median %.3f s, slowest %.3f s", job, len(durations), run-time.Minute, m, durations[len(durations)-1])
		return m
	}
	short, long := median("short"), median("long")
	if long-short >= (longTimeout-shortTimeout)/2 {
		t.Errorf("the median scrape announcing %g s took %.3f s, the one announcing %g s %.3f s: scrapes wait for the timeout they announce",
			longTimeout, long, shortTimeout, short)
	}
	for _, job := range []string{"short", "long"} {
		down, err := api.query(fmt.Sprintf(`max_over_time(mintlify_up{job=%q}[%ds]) < 1 or min_over_time(mintlify_up{job=%q}[%ds]) < 1`, job, int(run.Seconds()), job, int(run.Seconds())), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if len(down) > 0 {
			t.Errorf("mintlify_up was 0 during the run for %s", formatLabels(down[0].Metric))
		}
	}
	waiting, err := api.query(`sum(max_over_time(mintlify_units_waiting{job="long"}[5m]))`, time.Time{})
	if err != nil || len(waiting) != 1 || fmt.Sprint(waiting[0].Value[1]) == "0" {
		t.Errorf("no unit ever waited for the budget (%v, %v): the exporter was not budget-bound", waiting, err)
	}
}

// TestHundredThousandPathsFreshScrapes: from a fresh start at 1 × 100,000
// paths served unsorted, scrapes announcing a 10 s timeout are answered from
// memory while the walk spends the first hour's budget. The slowest is
// reported beside a /-/healthy request measured in the same run; the test
// fails only on a failed scrape, a 429 or more than the budget.
func TestHundredThousandPathsFreshScrapes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the exporter against 100,000 paths")
	}
	today := time.Now().UTC().Truncate(24 * time.Hour)
	srv := apitest.Fake(t, mintlifytest.WithRateLimit(100), mintlifytest.WithUnorderedPaths(),
		mintlifytest.WithProject("huge", mintlifytest.Generate(mintlifytest.GenerateOptions{
			Seed: 42, Paths: 100_000, Days: 31, End: today.AddDate(0, 0, 1),
		})))
	p := startExporter(t, keyEnv, "--mintlify.api-url="+srv.URL(), "--mintlify.project-id=huge")
	sent := func() int { return len(srv.Requests()) }
	var scrapes, healthy []time.Duration
	deadline := time.Now().Add(2 * time.Minute)      // a bound on the test, not a timing target
	for sent() < 81 && time.Now().Before(deadline) { // 90 less the tenth kept as the reserve
		t0 := time.Now()
		resp, body := p.get(t, "/metrics", scrapeHeaders)
		scrapes = append(scrapes, time.Since(t0))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("scrape %d: status %d", len(scrapes), resp.StatusCode)
		}
		promtest.ParseText(t, body)
		t0 = time.Now()
		p.get(t, "/-/healthy", nil)
		healthy = append(healthy, time.Since(t0))
	}
	if len(scrapes) < 2 {
		t.Fatalf("only %d scrapes while %d requests were sent", len(scrapes), sent())
	}
	slices.Sort(scrapes)
	slices.Sort(healthy)
	base := healthy[len(healthy)/2]
	t.Logf("%d scrapes while the exporter sent %d requests: median %s, slowest %s; /-/healthy median %s (slowest scrape %.0fx)",
		len(scrapes), sent(), scrapes[len(scrapes)/2].Round(time.Microsecond), scrapes[len(scrapes)-1].Round(time.Microsecond),
		base.Round(time.Microsecond), float64(scrapes[len(scrapes)-1])/float64(max(base, time.Microsecond)))
	n := 0
	for _, r := range srv.Requests() {
		n++
		if r.Status == http.StatusTooManyRequests {
			t.Errorf("the API answered 429 to %s", r.Path)
		}
	}
	if n > 90 {
		t.Errorf("%d requests sent, over the budget of 90", n)
	}
}
