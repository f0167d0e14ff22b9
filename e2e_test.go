package main

// End-to-end tests: the real binary, run as a subprocess against the fake
// Mintlify API on loopback.

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"github.com/mintlify-exporter/mintlify_exporter/internal/logbuf"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/statefile"
)

// binDir holds the exporter binary, built once by the first test that
// needs it.
var (
	binDir    string
	buildOnce sync.Once
	buildErr  error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mintlify_exporter-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// binary returns the path of the exporter binary, building it (go build -o
// <tmpdir>/mintlify_exporter .) the first time.
func binary(t *testing.T) string {
	t.Helper()
	path := filepath.Join(binDir, exporterName)
	buildOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			buildErr = fmt.Errorf("no go command in PATH: %w", err)
			return
		}
		cmd := exec.Command(goTool, "build", "-o", path, ".")
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return path
}

// proc is one running exporter.
type proc struct {
	cmd            *exec.Cmd
	addr           string // host:port it listens on
	stdout, stderr logbuf.Buffer
	done           chan struct{} // closed when the process has exited
	exitCode       int
}

// baseEnv is the test's environment without any MINTLIFY_ variable.
func baseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MINTLIFY_") {
			env = append(env, kv)
		}
	}
	return env
}

// startExporter runs the binary with args on a free loopback port and waits
// until /-/healthy answers. env is added to the test's environment (without
// its MINTLIFY_ variables). The process is killed when the test ends.
func startExporter(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	bin := binary(t)
	for attempt := 0; ; attempt++ {
		p := &proc{addr: freeAddr(t), done: make(chan struct{})}
		p.cmd = exec.Command(bin, append(slices.Clip(args), "--web.listen-address="+p.addr)...)
		p.cmd.Env = append(baseEnv(), env...)
		p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			err := p.cmd.Wait()
			p.exitCode = 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				p.exitCode = ee.ExitCode()
			} else if err != nil {
				p.exitCode = -1
			}
			close(p.done)
		}()
		t.Cleanup(func() {
			select {
			case <-p.done:
			default:
				_ = p.cmd.Process.Kill()
				<-p.done
			}
			if t.Failed() {
				t.Logf("exporter %s stderr:\n%s", p.addr, p.stderr.String())
			}
		})
		err := p.waitHealthy()
		if err == nil {
			return p
		}
		// Another process may have taken the port between freeAddr and
		// the exporter's listen.
		if attempt < 2 && strings.Contains(p.stderr.String(), "address already in use") {
			continue
		}
		t.Fatalf("exporter did not become healthy: %v\nstderr:\n%s", err, p.stderr.String())
	}
}

// freeAddr returns a loopback address with a port free right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

var httpClient = &http.Client{
	Timeout:   20 * time.Second,
	Transport: &http.Transport{DisableCompression: true, DisableKeepAlives: true},
}

// waitHealthy polls /-/healthy until it answers 200, the process exits or
// 10 s pass.
func (p *proc) waitHealthy() error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return fmt.Errorf("exited with code %d", p.exitCode)
		default:
		}
		resp, err := httpClient.Get("http://" + p.addr + "/-/healthy")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(10 * time.Millisecond) // polling a starting process, not waiting on its logic
	}
	return errors.New("timed out")
}

// get sends a GET to the exporter and returns the answer with its body.
func (p *proc) get(t *testing.T, path string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+p.addr+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading the body: %v", path, err)
	}
	return resp, body
}

// scrapeHeaders asks for the text format and lets the first scrape wait
// for the first snapshots, as Prometheus does.
var scrapeHeaders = map[string]string{"X-Prometheus-Scrape-Timeout-Seconds": "10"}

// scrape GETs /metrics and parses the text format.
func (p *proc) scrape(t *testing.T) ([]byte, map[string]*dto.MetricFamily) {
	t.Helper()
	resp, body := p.get(t, "/metrics", scrapeHeaders)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: status %d: %s", resp.StatusCode, body)
	}
	return body, parseText(t, body)
}

func parseText(t *testing.T, body []byte) map[string]*dto.MetricFamily {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("the scrape does not parse: %v", err)
	}
	return fams
}

// stop sends SIGTERM and checks that the process exits 0 within 5 s. It
// returns how long the exit took.
func (p *proc) stop(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	timer := time.NewTimer(5 * time.Second)
	defer timer.Stop()
	select {
	case <-p.done:
	case <-timer.C:
		t.Fatalf("the exporter did not exit within 5 s of SIGTERM; stderr:\n%s", p.stderr.String())
	}
	took := time.Since(start)
	if p.exitCode != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0; stderr:\n%s", p.exitCode, p.stderr.String())
	}
	return took
}

// assertNoKey fails when the key appears in any of the texts.
func assertNoKey(t *testing.T, key string, texts map[string]string) {
	t.Helper()
	for what, s := range texts {
		if strings.Contains(s, key) || strings.Contains(s, strings.TrimPrefix(key, "mint_")) {
			t.Errorf("the API key appears in %s", what)
		}
	}
}

// series returns the value of every gauge, counter and untyped series,
// keyed by name{sorted labels}.
func series(fams map[string]*dto.MetricFamily) map[string]float64 {
	out := map[string]float64{}
	for name, mf := range fams {
		for _, m := range mf.GetMetric() {
			var v float64
			switch {
			case m.Gauge != nil:
				v = m.GetGauge().GetValue()
			case m.Counter != nil:
				v = m.GetCounter().GetValue()
			case m.Untyped != nil:
				v = m.GetUntyped().GetValue()
			default:
				continue
			}
			out[seriesKey(name, m.GetLabel())] = v
		}
	}
	return out
}

// seriesKey formats a series as name{a="x",b="y"} with sorted labels.
func seriesKey(name string, labels []*dto.LabelPair) string {
	pairs := make([]string, 0, len(labels))
	for _, l := range labels {
		pairs = append(pairs, l.GetName()+"="+strconv.Quote(l.GetValue()))
	}
	sort.Strings(pairs)
	return name + "{" + strings.Join(pairs, ",") + "}"
}

// key builds a series key from alternating label names and values.
func key(name string, kv ...string) string {
	var labels []*dto.LabelPair
	for i := 0; i+1 < len(kv); i += 2 {
		labels = append(labels, &dto.LabelPair{Name: &kv[i], Value: &kv[i+1]})
	}
	return seriesKey(name, labels)
}

// visitorsFamilies are the families the visitors collector exports.
var visitorsFamilies = []string{
	"mintlify_visitors", "mintlify_visitors_deduplicated",
	"mintlify_page_visitors", "mintlify_page_visitors_deduplicated",
	"mintlify_visitors_paths", "mintlify_visitors_paths_exported",
}

// familyText renders the named families as text with their series sorted,
// for comparing two scrapes; a missing family renders as a marker.
func familyText(t *testing.T, fams map[string]*dto.MetricFamily, names ...string) string {
	t.Helper()
	var b bytes.Buffer
	for _, n := range names {
		mf, ok := fams[n]
		if !ok {
			fmt.Fprintf(&b, "# missing %s\n", n)
			continue
		}
		type keyed struct {
			key string
			m   *dto.Metric
		}
		ms := make([]keyed, len(mf.Metric))
		for i, m := range mf.Metric {
			ms[i] = keyed{seriesKey(n, m.GetLabel()), m}
		}
		slices.SortFunc(ms, func(x, y keyed) int { return strings.Compare(x.key, y.key) })
		sorted := &dto.MetricFamily{Name: mf.Name, Help: mf.Help, Type: mf.Type, Metric: make([]*dto.Metric, len(ms))}
		for i, k := range ms {
			sorted.Metric[i] = k.m
		}
		if _, err := expfmt.MetricFamilyToText(&b, sorted); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

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
			requests += max(1, (len(rows)+249)/250)
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
	opts = append(opts, mintlifytest.WithRateLimit(100))
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
	srv := mintlifytest.NewServer(opts...)
	t.Cleanup(srv.Close)
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

func TestE2EServesTheFakesData(t *testing.T) {
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
	lastFams := parseText(t, last)
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
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		text, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("the gzip answer does not decompress: %v", err)
		}
		if rest, _ := io.ReadAll(zr); len(rest) != 0 {
			t.Error("data after the gzip member")
		}
		gz := parseText(t, text)
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
			om = parseText(t, body)
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
		compareFamilies(t, lastFams, parseText(t, body))
		if !bytes.HasPrefix(body, []byte("# HELP mintlify_visitors ")) {
			first, _, _ := bytes.Cut(body, []byte("\n"))
			t.Errorf("a default Prometheus scrape was not served from the pre-rendered exposition (it starts with %q, Content-Length %q)",
				first, resp.Header.Get("Content-Length"))
		}
	})

	t.Run("promtool", func(t *testing.T) {
		const promtool = "/usr/bin/promtool"
		if _, err := os.Stat(promtool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is missing (Debian package prometheus): %v", promtool, err)
			}
			t.Skipf("%s is missing: install the Debian package prometheus", promtool)
		}
		cmd := exec.Command(promtool, "check", "metrics")
		cmd.Stdin = bytes.NewReader(last)
		out, err := cmd.CombinedOutput()
		if err != nil {
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
	if n := strings.Count(logs, `msg="visitors refreshed"`); n != len(projects)*len(windowDays) {
		t.Errorf("%d refreshes logged, want %d", n, len(projects)*len(windowDays))
	}
	if strings.Contains(logs, "level=error") {
		t.Errorf("errors logged:\n%s", logs)
	}
	assertNoKey(t, mintlifytest.DefaultKey, map[string]string{
		"the scrape": string(plain), "the landing page": string(landing),
		"stderr": logs, "stdout": p.stdout.String(),
	})
	skipIfDayChanged(t, today)
}

// compareFamilies checks that two scrapes have the same families, and the
// same series and values in every mintlify_ family.
func compareFamilies(t *testing.T, want, got map[string]*dto.MetricFamily) {
	t.Helper()
	names := func(m map[string]*dto.MetricFamily) []string {
		var out []string
		for n, mf := range m {
			out = append(out, n+" "+mf.GetType().String())
		}
		sort.Strings(out)
		return out
	}
	if a, b := names(want), names(got); !slices.Equal(a, b) {
		t.Errorf("families differ:\n plain %q\n gzip  %q", a, b)
	}
	var mintlify []string
	for n := range want {
		if strings.HasPrefix(n, "mintlify_") {
			mintlify = append(mintlify, n)
		}
	}
	sort.Strings(mintlify)
	if len(mintlify) < len(visitorsFamilies) {
		t.Fatalf("only %d mintlify_ families", len(mintlify))
	}
	for _, n := range mintlify {
		if a, b := familyText(t, want, n), familyText(t, got, n); a != b {
			t.Errorf("family %s differs", n)
		}
	}
}

// parseOpenMetricsGauges parses the gauge families of an OpenMetrics
// answer. For gauges the OpenMetrics text is the Prometheus text format
// plus "# EOF"; other families are left out. A family is the block of lines
// from its "# HELP" line to the next one (OpenMetrics names a counter family
// without its _total suffix, so names alone do not tell families apart).
func parseOpenMetricsGauges(t *testing.T, body []byte) map[string]*dto.MetricFamily {
	t.Helper()
	var keep bytes.Buffer
	var block []string
	flush := func() {
		for _, l := range block {
			if f := strings.Fields(l); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" && f[3] == "gauge" {
				keep.WriteString(strings.Join(block, "\n") + "\n")
				break
			}
		}
		block = nil
	}
	for _, l := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(l, "# HELP ") || l == "# EOF" {
			flush()
		}
		if l != "" && l != "# EOF" {
			block = append(block, l)
		}
	}
	flush()
	return parseText(t, keep.Bytes())
}

// arrivals wraps a fake so the test learns when a visitors request arrives,
// before the fake answers it.
type arrivals struct {
	fake    *mintlifytest.Server
	count   atomic.Int64
	arrived chan struct{} // closed at the first visitors request
	once    sync.Once
}

func (a *arrivals) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/v1/analytics/") {
		a.count.Add(1)
		a.once.Do(func() { close(a.arrived) })
	}
	a.fake.ServeHTTP(w, r)
}

func TestE2ESIGTERMDuringRefresh(t *testing.T) {
	t.Parallel()
	today := utcToday()
	fake := mintlifytest.NewUnstartedServer(
		mintlifytest.WithLatency(2*time.Second),
		mintlifytest.WithProject("slow-docs", mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 7, Paths: 600, End: today})),
	)
	a := &arrivals{fake: fake, arrived: make(chan struct{})}
	hs := httptest.NewServer(a)
	t.Cleanup(func() { fake.Close(); hs.Close() })

	p := startExporter(t, keyEnv, exporterArgs(hs.URL, "slow-docs")...)
	type result struct {
		status int
		body   []byte
		err    error
	}
	scraped := make(chan result, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, "http://"+p.addr+"/metrics", nil)
		req.Header.Set("X-Prometheus-Scrape-Timeout-Seconds", "30")
		resp, err := httpClient.Do(req)
		if err != nil {
			scraped <- result{err: err}
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		scraped <- result{resp.StatusCode, body, err}
	}()
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	select {
	case <-a.arrived:
	case <-timer.C:
		t.Fatal("no refresh started")
	}
	// The first refresh starts at start-up; wait until the scrape is in
	// the handler too (another scrape, which waits for nothing, sees it in
	// flight), so the SIGTERM finds both under way.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, body := p.get(t, "/metrics", map[string]string{"X-Prometheus-Scrape-Timeout-Seconds": "0.001"})
		if series(parseText(t, body))[key("promhttp_metric_handler_requests_in_flight")] >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the scrape never reached the handler")
		}
	}
	took := p.stop(t)
	t.Logf("exited %v after SIGTERM with a refresh in flight", took)

	// The scrape that was waiting for the first snapshot got a whole
	// answer, without visitors data. (The exporter has exited: the answer
	// is in the client's hands or it never came.)
	timer.Reset(5 * time.Second)
	select {
	case r := <-scraped:
		if r.err != nil || r.status != http.StatusOK {
			t.Fatalf("the in-flight scrape failed: status %d, %v", r.status, r.err)
		}
		fams := parseText(t, r.body)
		if _, ok := fams["mintlify_visitors"]; ok {
			t.Error("visitors served although no refresh finished")
		}
		if _, ok := fams["mintlify_up"]; !ok {
			t.Error("the in-flight scrape has no mintlify_up")
		}
	case <-timer.C:
		t.Fatal("the in-flight scrape got no answer")
	}
	// One walk per window at most got as far as sending its first page.
	if n := a.count.Load(); n > int64(len(windowDays)) {
		t.Errorf("%d visitors requests arrived; a cancelled refresh should not go on paging", n)
	}
	logs := p.stderr.String()
	if !strings.Contains(logs, "shutting down") {
		t.Error("no shutdown message logged")
	}
	if strings.Contains(logs, "visitors refresh failed") {
		t.Error("a refresh cancelled by the shutdown was reported as a failure")
	}
	assertNoKey(t, mintlifytest.DefaultKey, map[string]string{"stderr": logs, "stdout": p.stdout.String()})
}

func TestE2EDemo(t *testing.T) {
	t.Parallel()
	p := startExporter(t, nil, "--demo", "--log.level=debug")
	_, fams := p.scrape(t)
	got := series(fams)
	for _, proj := range []string{"acme-docs", "acme-developers"} {
		for _, d := range windowDays {
			w := strconv.Itoa(d) + "d"
			for _, traffic := range []string{"human", "ai"} {
				k := key("mintlify_visitors", "project", proj, "window", w, "traffic", traffic)
				if v, ok := got[k]; !ok || v <= 0 {
					t.Errorf("%s = %v (present %v), want a positive count", k, v, ok)
				}
			}
		}
		if v := got[key("mintlify_up", "project", proj, "source", "visitors")]; v != 1 {
			t.Errorf("mintlify_up for %s = %v, want 1", proj, v)
		}
	}
	if n := len(fams["mintlify_page_visitors"].GetMetric()); n == 0 {
		t.Error("no page visitors in demo mode")
	}
	_, landing := p.get(t, "/", nil)
	if !bytes.Contains(landing, []byte("DEMO MODE")) {
		t.Error("the landing page does not say the data is synthetic")
	}
	p.stop(t)
	logs := p.stderr.String()
	if !strings.Contains(logs, "DEMO MODE") || !strings.Contains(logs, "SYNTHETIC") {
		t.Errorf("no demo banner logged:\n%s", logs)
	}
	assertNoKey(t, mintlifytest.DefaultKey, map[string]string{"stderr": logs, "landing page": string(landing)})
}

func TestE2ECacheFileRestart(t *testing.T) {
	t.Parallel()
	today := utcToday()
	projects := []string{"cache-a", "cache-b"}
	srv := newFake(t, today, map[string]int{"cache-a": 520, "cache-b": 40})
	cacheFile := filepath.Join(t.TempDir(), "state.json")
	args := append(exporterArgs(srv.URL(), projects...), "--cache.file="+cacheFile)

	first := startExporter(t, keyEnv, args...)
	_, fams1 := first.scrape(t)
	want := checkVisitors(t, fams1, srv, projects, today)
	waitCount(t, srv, want)
	first.stop(t)
	if n := srv.CountRequests(mintlifytest.EndpointVisitors); n != want {
		t.Fatalf("first run: %d visitors requests, want %d", n, want)
	}
	st, err := statefile.Read(cacheFile)
	if err != nil {
		t.Fatalf("the cache file is not valid after the first run: %v", err)
	}
	if len(st.Units) != len(projects)*len(windowDays) || len(st.Ledger) != want {
		t.Errorf("cache file: %d units and %d ledger entries, want %d and %d",
			len(st.Units), len(st.Ledger), len(projects)*len(windowDays), want)
	}

	second := startExporter(t, keyEnv, args...)
	// Ready at once: no waiting, no polling.
	if resp, body := second.get(t, "/-/ready", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("/-/ready right after a restart: %d %s", resp.StatusCode, body)
	}
	resp, body := second.get(t, "/metrics", nil) // no scrape timeout header: nothing to wait for
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %d", resp.StatusCode)
	}
	fams2 := parseText(t, body)
	if a, b := familyText(t, fams1, visitorsFamilies...), familyText(t, fams2, visitorsFamilies...); a != b {
		t.Error("the restarted exporter serves other visitors values than before the restart")
	}
	checkVisitors(t, fams2, srv, projects, today)
	got := series(fams2)
	if v := got[key("mintlify_api_budget_remaining")]; v != float64(90-want) {
		t.Errorf("mintlify_api_budget_remaining after the restart = %v, want 90-%d = %d", v, want, 90-want)
	}
	for _, proj := range projects {
		if v := got[key("mintlify_up", "project", proj, "source", "visitors")]; v != 1 {
			t.Errorf("mintlify_up for %s after the restart = %v, want 1", proj, v)
		}
	}
	if _, ok := fams2["mintlify_api_requests_total"]; ok {
		t.Error("the restarted exporter counts API requests")
	}
	second.stop(t)
	if n := srv.CountRequests(mintlifytest.EndpointVisitors); n != want {
		t.Errorf("the restarted exporter sent %d visitors requests, want none", n-want)
	}
	logs := second.stderr.String()
	if !strings.Contains(logs, "restored state from the cache file") {
		t.Errorf("no restore logged:\n%s", logs)
	}
	if strings.Contains(logs, `msg="visitors refreshed"`) {
		t.Error("the restarted exporter refreshed")
	}
	if st, err := statefile.Read(cacheFile); err != nil || len(st.Ledger) != want {
		t.Errorf("cache file after the second run: %d ledger entries, %v; want %d", len(st.Ledger), err, want)
	}
	assertNoKey(t, mintlifytest.DefaultKey, map[string]string{
		"first stderr": first.stderr.String(), "second stderr": logs, "cache file": mustRead(t, cacheFile),
	})
	skipIfDayChanged(t, today)
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestE2ECacheFileIgnoredWhenBad(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, content string }{
		{"garbage", "\x00\x01PK\x03\x04 definitely { not json"},
		{"foreign version", `{"format":"mintlify_exporter/state","version":999,"ledger":[],"snapshots":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			today := utcToday()
			srv := newFake(t, today, map[string]int{"docs": 300})
			cacheFile := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(cacheFile, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			p := startExporter(t, keyEnv, append(exporterArgs(srv.URL(), "docs"), "--cache.file="+cacheFile)...)
			_, fams := p.scrape(t)
			want := checkVisitors(t, fams, srv, []string{"docs"}, today)
			waitCount(t, srv, want)
			p.stop(t)
			logs := p.stderr.String()
			if !strings.Contains(logs, "ignoring the cache file") || !strings.Contains(logs, "level=warn") {
				t.Errorf("no warning about the cache file:\n%s", logs)
			}
			st, err := statefile.Read(cacheFile)
			if err != nil {
				t.Fatalf("the cache file was not replaced by a valid one: %v", err)
			}
			if len(st.Units) != len(windowDays) || len(st.Ledger) != want {
				t.Errorf("new cache file: %d units, %d ledger entries; want %d, %d",
					len(st.Units), len(st.Ledger), len(windowDays), want)
			}
			skipIfDayChanged(t, today)
		})
	}
}
