package e2e

// The exporter against the fake API: every value it serves equals the
// fake's answer, each page is asked for once, scrapes within the refresh
// interval send nothing, and the answer is the same in every format.

import (
	"bytes"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/promtest"
)

// windowDays are the exporter's default windows.
var windowDays = []int{1, 7, 30}

// windowRange is the [from, to) the exporter asks for an N-day window.
func windowRange(today time.Time, days int) (from, to time.Time) {
	return today.AddDate(0, 0, -(days - 1)), today.AddDate(0, 0, 1)
}

// utcToday is the start of the current UTC day.
func utcToday() time.Time { return time.Now().UTC().Truncate(24 * time.Hour) }

// skipIfDayChanged skips a test whose expectations were computed for a UTC
// day that has since ended: the windows moved under it.
func skipIfDayChanged(t *testing.T, today time.Time) {
	t.Helper()
	if !utcToday().Equal(today) {
		t.Skip("the UTC day rolled over during the test; the expected windows moved")
	}
}

// checkVisitors compares every exported visitors value with the fake's
// expected answer, and returns the number of requests the walks need:
// ceil(paths/250) per project and window, at least 1.
func checkVisitors(t *testing.T, fams map[string]*dto.MetricFamily, srv *mintlifytest.Server, projects []string, today time.Time) (requests int) {
	t.Helper()
	got := series(fams)
	perFamily := map[string]int{}
	for k := range got {
		perFamily[k[:strings.IndexByte(k, '{')]]++
	}
	wantPerFamily := map[string]int{}
	var mismatches []string
	check := func(k string, want int64) {
		if v, ok := got[k]; !ok {
			mismatches = append(mismatches, fmt.Sprintf("missing series %s (want %d)", k, want))
		} else if v != float64(want) {
			mismatches = append(mismatches, fmt.Sprintf("%s = %v, want %d", k, v, want))
		}
	}
	for _, p := range projects {
		for _, d := range windowDays {
			w := strconv.Itoa(d) + "d"
			from, to := windowRange(today, d)
			totals, rows := srv.Visitors(p, from, to)
			check(key("mintlify_visitors", "project", p, "window", w, "traffic", "human"), totals.Human)
			check(key("mintlify_visitors", "project", p, "window", w, "traffic", "ai"), totals.AI)
			check(key("mintlify_visitors_deduplicated", "project", p, "window", w), totals.Total)
			check(key("mintlify_visitors_paths", "project", p, "window", w), int64(len(rows)))
			check(key("mintlify_visitors_paths_exported", "project", p, "window", w), int64(len(rows)))
			for _, r := range rows {
				check(key("mintlify_page_visitors", "project", p, "window", w, "path", r.Path, "traffic", "human"), r.Human)
				check(key("mintlify_page_visitors", "project", p, "window", w, "path", r.Path, "traffic", "ai"), r.AI)
				check(key("mintlify_page_visitors_deduplicated", "project", p, "window", w, "path", r.Path), r.Total)
			}
			wantPerFamily["mintlify_visitors"] += 2
			wantPerFamily["mintlify_visitors_deduplicated"]++
			wantPerFamily["mintlify_visitors_paths"]++
			wantPerFamily["mintlify_visitors_paths_exported"]++
			wantPerFamily["mintlify_page_visitors"] += 2 * len(rows)
			wantPerFamily["mintlify_page_visitors_deduplicated"] += len(rows)
			requests += 1 + max(1, (len(rows)+249)/250) // the window's totals, then its walk
		}
	}
	if len(mismatches) > 0 {
		t.Errorf("%d exported values differ from the fake's data; the first ones:\n%s",
			len(mismatches), strings.Join(mismatches[:min(len(mismatches), 10)], "\n"))
	}
	for _, f := range visitorsFamilies {
		if perFamily[f] != wantPerFamily[f] {
			t.Errorf("%s has %d series, want %d (no more, no less)", f, perFamily[f], wantPerFamily[f])
		}
	}
	return requests
}

// waitCount waits until the fake has logged want visitors requests (it logs
// a request just after answering it) and fails if it logged more.
func waitCount(t *testing.T, srv *mintlifytest.Server, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := srv.CountRequests(mintlifytest.EndpointVisitors)
		if n > want {
			t.Fatalf("the fake received %d visitors requests, want exactly %d", n, want)
		}
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fake received %d visitors requests, want %d", n, want)
		}
		time.Sleep(5 * time.Millisecond) // the fake logs a request after its answer is written
	}
}

// newFake starts the fake API with projects of the given path counts,
// generated with fixed seeds for 30 days ending today.
func newFake(t *testing.T, today time.Time, projects map[string]int, opts ...mintlifytest.Option) *mintlifytest.Server {
	t.Helper()
	// The API's limit, unless opts say otherwise.
	opts = append([]mintlifytest.Option{mintlifytest.WithRateLimit(100)}, opts...)
	names := make([]string, 0, len(projects))
	for p := range projects {
		names = append(names, p)
	}
	sort.Strings(names)
	for i, p := range names {
		opts = append(opts, mintlifytest.WithProject(p, mintlifytest.Generate(mintlifytest.GenerateOptions{
			Seed: int64(100 + i), Paths: projects[p], Days: 30, End: today,
		})))
	}
	srv := apitest.Fake(t, opts...)
	return srv
}

// visitorsOnly turns off every default analytics source but visitors: the
// end-to-end checks of the first release are about visitors, and count its
// requests against the budget.
var visitorsOnly = []string{"--no-collector.views", "--no-collector.assistant", "--no-collector.feedback", "--no-collector.searches"}

// exporterArgs are the flags every end-to-end run uses against a fake.
func exporterArgs(apiURL string, projects ...string) []string {
	args := append([]string{"--mintlify.api-url=" + apiURL, "--analytics.max-paths=0", "--log.level=debug"}, visitorsOnly...)
	for _, p := range projects {
		args = append(args, "--mintlify.project-id="+p)
	}
	return args
}

var keyEnv = []string{"MINTLIFY_API_KEY=" + mintlifytest.DefaultKey}

func TestServesTheFakesData(t *testing.T) {
	t.Parallel()
	today := utcToday()
	projects := []string{"acme-big", "acme-small"}
	srv := newFake(t, today, map[string]int{"acme-big": 1234, "acme-small": 300})
	// The 30-day window covers every generated day: every path is there.
	for p, n := range map[string]int{"acme-big": 1234, "acme-small": 300} {
		from, to := windowRange(today, 30)
		if _, rows := srv.Visitors(p, from, to); len(rows) != n {
			t.Fatalf("setup: the fake has %d paths in %s over 30 days, want %d", len(rows), p, n)
		}
	}

	start := time.Now()
	p := startExporter(t, keyEnv, exporterArgs(srv.URL(), projects...)...)
	plain, fams := p.scrape(t)
	wantRequests := checkVisitors(t, fams, srv, projects, today)
	waitCount(t, srv, wantRequests)
	t.Logf("first scrape %v after start: %d bytes, %d visitors requests", time.Since(start), len(plain), wantRequests)

	// Each project and window was walked exactly once, one request per
	// page of 250.
	type page struct{ project, from, to, offset, limit string }
	seen := map[page]int{}
	for _, r := range srv.Requests() {
		if r.Endpoint != mintlifytest.EndpointVisitors {
			continue
		}
		if r.Status != http.StatusOK || !r.Authorized {
			t.Errorf("request %s?%s: status %d, authorized %v", r.Path, r.Query.Encode(), r.Status, r.Authorized)
		}
		seen[page{r.Project, r.Query.Get("dateFrom"), r.Query.Get("dateTo"), r.Query.Get("offset"), r.Query.Get("limit")}]++
	}
	for _, proj := range projects {
		for _, d := range windowDays {
			from, to := windowRange(today, d)
			_, rows := srv.Visitors(proj, from, to)
			// The window's totals unit: one request of one row.
			k := page{proj, from.Format(time.DateOnly), to.Format(time.DateOnly), "0", "1"}
			if seen[k] != 1 {
				t.Errorf("totals %+v were requested %d times, want once", k, seen[k])
			}
			delete(seen, k)
			for off := 0; off == 0 || off < len(rows); off += 250 {
				k := page{proj, from.Format(time.DateOnly), to.Format(time.DateOnly), strconv.Itoa(off), "250"}
				if seen[k] != 1 {
					t.Errorf("page %+v was requested %d times, want once", k, seen[k])
				}
				delete(seen, k)
			}
		}
	}
	for k, n := range seen {
		t.Errorf("unexpected request %+v (%d times)", k, n)
	}
	for _, proj := range projects {
		for _, d := range windowDays {
			from, to := windowRange(today, d)
			_, rows := srv.Visitors(proj, from, to)
			t.Logf("%s %dd: %d paths, %d pages", proj, d, len(rows), max(1, (len(rows)+249)/250))
		}
	}

	got := series(fams)
	for _, proj := range projects {
		if v := got[key("mintlify_up", "project", proj, "source", "visitors")]; v != 1 {
			t.Errorf("mintlify_up{project=%q,source=\"visitors\"} = %v, want 1", proj, v)
		}
	}
	if v := got[key("mintlify_api_requests_total", "endpoint", "visitors", "code", "200")]; v != float64(wantRequests) {
		t.Errorf(`mintlify_api_requests_total{endpoint="visitors",code="200"} = %v, want %d`, v, wantRequests)
	}
	if v := got[key("mintlify_api_budget_remaining")]; v != float64(90-wantRequests) {
		t.Errorf("mintlify_api_budget_remaining = %v, want %d", v, 90-wantRequests)
	}

	// Repeated scrapes within the refresh interval are served from the
	// snapshots and send nothing upstream.
	var last []byte
	for range 5 {
		resp, body := p.get(t, "/metrics", scrapeHeaders)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("scrape: status %d", resp.StatusCode)
		}
		last = body
	}
	if n := srv.CountRequests(mintlifytest.EndpointVisitors); n != wantRequests {
		t.Errorf("after 5 more scrapes the fake received %d visitors requests, want still %d", n, wantRequests)
	}
	lastFams := promtest.ParseText(t, last)
	if a, b := familyText(t, fams, visitorsFamilies...), familyText(t, lastFams, visitorsFamilies...); a != b {
		t.Error("the visitors families changed between scrapes without a refresh")
	}

	resp, body := p.get(t, "/-/ready", nil)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/-/ready: %d %s", resp.StatusCode, body)
	}
	resp, landing := p.get(t, "/", nil)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("landing page: status %d", resp.StatusCode)
	}
	for _, proj := range projects {
		if !bytes.Contains(landing, []byte(proj)) {
			t.Errorf("the landing page does not list project %s", proj)
		}
	}

	t.Run("gzip", func(t *testing.T) {
		hdr := map[string]string{"Accept-Encoding": "gzip"}
		resp, body := p.get(t, "/metrics", hdr)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("status %d, Content-Encoding %q; want 200, gzip", resp.StatusCode, resp.Header.Get("Content-Encoding"))
		}
		text := promtest.GunzipOne(t, body)
		gz := promtest.ParseText(t, text)
		compareFamilies(t, lastFams, gz)
	})

	t.Run("openmetrics", func(t *testing.T) {
		hdr := map[string]string{"Accept": "application/openmetrics-text;version=1.0.0"}
		resp, body := p.get(t, "/metrics", hdr)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		ct := resp.Header.Get("Content-Type")
		var om map[string]*dto.MetricFamily
		switch {
		case strings.HasPrefix(ct, "application/openmetrics-text"):
			if !bytes.HasSuffix(body, []byte("# EOF\n")) {
				t.Error("the OpenMetrics answer does not end with # EOF")
			}
			om = parseOpenMetricsGauges(t, body)
		case strings.HasPrefix(ct, "text/plain"):
			t.Logf("an OpenMetrics-only Accept was answered with %s", ct)
			om = promtest.ParseText(t, body)
		default:
			t.Fatalf("Content-Type %q", ct)
		}
		a, b := series(lastFams), series(om)
		for _, f := range []string{"mintlify_visitors", "mintlify_visitors_deduplicated", "mintlify_page_visitors",
			"mintlify_page_visitors_deduplicated", "mintlify_visitors_paths", "mintlify_visitors_paths_exported",
			"mintlify_up", "mintlify_api_budget_remaining"} {
			n := 0
			for k, v := range a {
				if !strings.HasPrefix(k, f+"{") {
					continue
				}
				n++
				if w, ok := b[k]; !ok || w != v {
					t.Errorf("%s: %v in the text scrape, %v (present %v) in the OpenMetrics one", k, v, w, ok)
				}
			}
			m := 0
			for k := range b {
				if strings.HasPrefix(k, f+"{") {
					m++
				}
			}
			if n != m || n == 0 {
				t.Errorf("%s: %d series in the text scrape, %d in the OpenMetrics one", f, n, m)
			}
		}
	})

	t.Run("prometheus accept header", func(t *testing.T) {
		// The Accept header Prometheus sends by default prefers OpenMetrics
		// but accepts the text format: the answer must be the text format
		// from the pre-rendered visitors exposition, which the handler
		// writes first, then the live part.
		hdr := map[string]string{"Accept": "application/openmetrics-text;version=1.0.0;q=0.5," +
			"application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2"}
		resp, body := p.get(t, "/metrics", hdr)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
			t.Skipf("answered with %s: the pre-rendered path does not apply", ct)
		}
		compareFamilies(t, lastFams, promtest.ParseText(t, body))
		if !bytes.HasPrefix(body, []byte("# HELP mintlify_visitors ")) {
			first, _, _ := bytes.Cut(body, []byte("\n"))
			t.Errorf("a default Prometheus scrape was not served from the pre-rendered exposition (it starts with %q, Content-Length %q)",
				first, resp.Header.Get("Content-Length"))
		}
	})

	t.Run("promtool", func(t *testing.T) {
		promtool := lookTool(t, "prometheus", "promtool")
		if out, err := runTool(t, last, promtool, "check", "metrics"); err != nil {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
	})

	took := p.stop(t)
	t.Logf("idle exporter exited %v after SIGTERM; whole test %v", took, time.Since(start))

	// Nothing was sent after the first round, scrapes and shutdown
	// included; every refresh the log reports is one of the first round.
	if n := srv.CountRequests(mintlifytest.EndpointVisitors); n != wantRequests {
		t.Errorf("the fake received %d visitors requests in all, want %d", n, wantRequests)
	}
	logs := p.stderr.String()
	// Each window's totals and walk, and the totals the walk's first page
	// brought (newer than the totals unit's).
	if n := strings.Count(logs, `msg="visitors refreshed"`); n < 2*len(projects)*len(windowDays) || n > 3*len(projects)*len(windowDays) {
		t.Errorf("%d refreshes logged, want %d to %d", n, 2*len(projects)*len(windowDays), 3*len(projects)*len(windowDays))
	}
	if strings.Contains(logs, "level=error") {
		t.Errorf("errors logged:\n%s", logs)
	}
	assertNoSecret(t, map[string]string{
		"the scrape": string(plain), "the landing page": string(landing),
		"stderr": logs, "stdout": p.stdout.String(),
	}, defaultKeyMark)
	skipIfDayChanged(t, today)
}
