package e2e

// Backfill by remote write end to end: the exporter's backfill command
// sending to the real Prometheus' remote-write receiver (through a proxy
// that counts every sample), resumed after a stop; the history joining the
// live series under the shipped dashboards' queries; receivers that answer
// 400 and 503.

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/snappy"
	"github.com/prometheus/prometheus/prompb"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
)

// rwDays is how many days the remote-write test backfills.
const rwDays = 10

// sampleCounter is a remote-write proxy: it decodes every request, counts
// each sample (series and time), forwards the request to next and answers
// what next answered.
type sampleCounter struct {
	t    *testing.T
	next string

	mu       sync.Mutex
	counts   map[string]int // "name{labels} @ ms" -> times sent
	requests int
}

func (c *sampleCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	data, err := snappy.Decode(nil, body)
	wr := &prompb.WriteRequest{}
	if err == nil {
		err = wr.Unmarshal(data)
	}
	if err != nil {
		c.t.Errorf("the backfill sent a request that is not a snappy-compressed WriteRequest: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req, _ := http.NewRequest(http.MethodPost, c.next, bytes.NewReader(body))
	req.Header = r.Header.Clone()
	resp, err := httpClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 == 2 {
		c.mu.Lock()
		c.requests++
		for _, ts := range wr.Timeseries {
			m := map[string]string{}
			for _, l := range ts.Labels {
				m[l.Name] = l.Value
			}
			for _, s := range ts.Samples {
				c.counts[formatLabels(m)+" @ "+strconv.FormatInt(s.Timestamp, 10)]++
			}
		}
		c.mu.Unlock()
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(answer)
}

// TestBackfillRemoteWriteEndToEnd runs a live exporter scraped by the real
// Prometheus (remote-write receiver on, out-of-order window of 30 days) with
// the labels a ServiceMonitor adds (namespace, pod, instance),
// then backfills 10 days by remote write: the first run stops when the API
// refuses the key on the 6th day, the second resumes. Every sample reaches
// Prometheus exactly once, a range query returns the fake's answers for
// every day, and the shipped dashboard's query draws history and live data
// as one series.
func TestBackfillRemoteWriteEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test with the real Prometheus: skipped with -short")
	}
	tools := lookTools(t)
	begin := time.Now()
	dir := t.TempDir()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	first := today.AddDate(0, 0, -rwDays)
	// Two fakes with the same data: faults injected into the backfill's do
	// not reach the live exporter.
	gen := mintlifytest.GenerateOptions{Seed: 11, Paths: 40, Days: rwDays + 5, End: today.AddDate(0, 0, -1)}
	live := apitest.Fake(t, mintlifytest.WithProject(projectDocs, mintlifytest.Generate(gen)))
	srv := apitest.Fake(t, mintlifytest.WithProject(projectDocs, mintlifytest.Generate(gen)))

	exporter := startExporter(t, []string{"MINTLIFY_API_KEY=" + mintlifytest.DefaultKey},
		"--mintlify.api-url="+live.URL(), "--mintlify.project-id="+projectDocs)
	promConfig := writeFile(t, dir, "prometheus.yml", fmt.Appendf(nil, `global:
  scrape_interval: 1s
storage:
  tsdb:
    out_of_order_time_window: 30d
scrape_configs:
  - job_name: mintlify
    static_configs:
      - targets: [%q]
        # As a ServiceMonitor adds them: a constant namespace, and a pod
        # that changes with every restart.
        labels: {namespace: monitoring, pod: mintlify-exporter-5d8f7c-x2x9q}
`, exporter.addr))
	prom := startProcess(t, "prometheus", tools.prometheus, environ(), func(addr string) []string {
		return []string{
			"--config.file=" + promConfig,
			"--storage.tsdb.path=" + filepath.Join(dir, "data"),
			"--storage.tsdb.retention.time=3650d",
			"--web.enable-remote-write-receiver",
			"--web.listen-address=" + addr,
		}
	}, "/-/ready")
	api := promAPI{base: "http://" + prom.addr}
	// Live data first: the backfilled days are then older than the head,
	// which only the out-of-order window lets in.
	eventually(t, time.Minute, "a live sample of the 1d window", func() string {
		s, err := api.query(`mintlify_visitors_deduplicated{job="mintlify", window="1d"}`, time.Now())
		if err != nil || len(s) == 0 {
			return fmt.Sprintf("none yet (%v)", err)
		}
		return ""
	})

	counter := &sampleCounter{t: t, next: "http://" + prom.addr + "/api/v1/write", counts: map[string]int{}}
	proxy := httptest.NewServer(counter)
	t.Cleanup(proxy.Close)
	journal := filepath.Join(dir, "rw.journal")
	args := []string{"backfill", "--from=" + first.Format(time.DateOnly), "--backfill.pages", "--analytics.max-paths=25",
		"--mintlify.requests-per-hour=400", "--mintlify.api-url=" + srv.URL(), "--mintlify.project-id=" + projectDocs,
		"--remote-write.url=" + proxy.URL + "/api/v1/write", "--remote-write.journal=" + journal, "--backfill.label=namespace=monitoring"}
	env := []string{"MINTLIFY_API_KEY=" + mintlifytest.DefaultKey}

	// The first run stops on the 6th day: the API refuses the key.
	srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, AfterN: 5, Times: 1, Status: http.StatusForbidden})
	r := runExporter(t, env, args...)
	if r.code != 1 || !strings.Contains(r.stderr, "HTTP 403") || !strings.Contains(r.stderr, "--resume") {
		t.Fatalf("first run: exit %d, want 1 and the 403 with --resume\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	counter.mu.Lock()
	sentFirst := counter.requests
	counter.mu.Unlock()
	if sentFirst != 5 {
		t.Errorf("the first run sent %d requests, want 5 (one a day)", sentFirst)
	}
	r = runExporter(t, env, append(args, "--resume")...)
	if r.code != 0 {
		t.Fatalf("resumed run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, mintlifytest.DefaultKey) {
		t.Error("the backfill printed the API key")
	}
	for _, want := range []string{"by remote write", `target labels: job="mintlify", namespace="monitoring"`, " sent: ", "every day is in " + proxy.URL} {
		if !strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("the resumed run's output lacks %q:\n%s\n%s", want, r.stdout, r.stderr)
		}
	}
	counter.mu.Lock()
	for k, n := range counter.counts {
		if n != 1 {
			t.Errorf("%s sent %d times", k, n)
		}
	}
	if counter.requests != rwDays {
		t.Errorf("%d requests accepted in all, want %d (one a day)", counter.requests, rwDays)
	}
	t.Logf("remote write: %d samples in %d requests, each sent once, over two runs (%s since the test began)",
		len(counter.counts), counter.requests, time.Since(begin).Round(time.Millisecond))
	counter.mu.Unlock()

	// Read back: one point per day per series, equal to the fake's.
	start := first.AddDate(0, 0, 1).Add(-time.Second)
	end := start.AddDate(0, 0, rwDays-1)
	series, err := api.queryRange(`{__name__=~"mintlify_(visitors|page_visitors|views|page_views|assistant_queries|searches).*", window="1d"}`, start, end, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	want := expectedBackfill(srv, first, rwDays, 25)
	for _, s := range series {
		if s.Metric["job"] != "mintlify" || s.Metric["namespace"] != "monitoring" || s.Metric["instance"] != "" || s.Metric["pod"] != "" {
			t.Errorf("series %s: want job=\"mintlify\", namespace=\"monitoring\", no instance or pod", formatLabels(s.Metric))
		}
		delete(s.Metric, "job")
		delete(s.Metric, "namespace")
		for _, v := range s.Values {
			ts, _ := v[0].(float64)
			day := time.Unix(int64(ts), 0).UTC().Truncate(24 * time.Hour)
			k := seriesKey(s.Metric, day)
			w, ok := want[k]
			got, _ := strconv.ParseFloat(fmt.Sprint(v[1]), 64)
			if !ok || got != w {
				t.Errorf("%s on %s: %v, want %v (known: %v)", formatLabels(s.Metric), day.Format(time.DateOnly), got, w, ok)
			}
			delete(want, k)
		}
	}
	for k := range want {
		t.Errorf("no point for %s", k)
	}

	// The dashboard's query of deduplicated visitors over time, window 1d,
	// with every target ("All", the default) and with the live exporter's
	// instance alone selected (as Grafana writes a chosen value into a
	// regex, its backslashes doubled in the PromQL string): one series from
	// the first backfilled day to now either way.
	one := strings.ReplaceAll(regexp.QuoteMeta(exporter.addr), `\`, `\\`)
	for _, instance := range []string{grafanaValues["instance"], one} {
		checkJoined(t, api, srv, instance, start, end)
	}
}

// checkJoined evaluates the docs-traffic dashboard's query of deduplicated
// visitors over time, window 1d, with the instance variable instance, from
// start (the first backfilled day's last second) to a few minutes from now:
// it must return one series, with every backfilled day's value (equal to
// srv's) and live data after end.
func checkJoined(t *testing.T, api promAPI, srv *mintlifytest.Server, instance string, start, end time.Time) {
	t.Helper()
	vars := map[string]string{}
	for k, v := range grafanaValues {
		vars[k] = v
	}
	vars["window"], vars["path"], vars["instance"] = "1d", "/", instance
	expr := ""
	for _, q := range dashboardQueries(t, vars) {
		if strings.HasPrefix(q.key, "docs-traffic.json/Unique visitors over time/") && strings.Contains(q.expr, "mintlify_visitors_deduplicated{") {
			expr = q.expr
		}
	}
	if expr == "" {
		t.Fatal("no dashboard query of deduplicated visitors over time in docs-traffic.json")
	}
	// A step of 2 minutes from the first day's last second meets every
	// backfilled sample; the end, 3 minutes ahead, puts a step after the
	// first live sample, within the 5 minutes a sample is looked back for.
	joined, err := api.queryRange(expr, start, time.Now().Add(3*time.Minute), 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(joined) != 1 {
		var names []string
		for _, s := range joined {
			names = append(names, formatLabels(s.Metric))
		}
		t.Fatalf("instance %s: %s: %d series, want history and live data as one: %v", instance, expr, len(joined), names)
	}
	days, liveSeen := 0, false
	for _, v := range joined[0].Values {
		ts, _ := v[0].(float64)
		at := time.Unix(int64(ts), 0).UTC()
		switch {
		case at.After(end.Add(10 * time.Minute)):
			liveSeen = true
		case at.Add(time.Second).Truncate(24 * time.Hour).Equal(at.Add(time.Second)):
			days++
			totals, _ := srv.Visitors(projectDocs, at.Truncate(24*time.Hour), at.Truncate(24*time.Hour).AddDate(0, 0, 1))
			if got, _ := strconv.ParseFloat(fmt.Sprint(v[1]), 64); got != float64(totals.Total) {
				t.Errorf("instance %s: %s at %s: %v, want the backfilled %d", instance, expr, at.Format(time.RFC3339), got, totals.Total)
			}
		}
	}
	if days != rwDays || !liveSeen {
		t.Errorf("instance %s: %s: %d backfilled days (want %d), live data %v (want true)", instance, expr, days, rwDays, liveSeen)
	}
}

// TestBackfillRemoteWriteReceiverErrors runs the backfill against small
// receivers: one that answers 400 is asked once and the run stops with
// its answer; one that answers 503 once is asked again and gets the day.
// Both check the --remote-write.config file's bearer token file and tenant
// header.
func TestBackfillRemoteWriteReceiverErrors(t *testing.T) {
	dir := t.TempDir()
	yesterday := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -1)
	srv := apitest.Fake(t, mintlifytest.WithProject(projectDocs, mintlifytest.Generate(mintlifytest.GenerateOptions{
		Seed: 5, Paths: 10, Days: 5, End: yesterday,
	})))
	writeFile(t, dir, "token", []byte("tenant-token\n"))
	conf := writeFile(t, dir, "rw.yml", []byte("authorization:\n  credentials_file: token\nheaders:\n  X-Scope-OrgID: docs\n"))

	for _, tc := range []struct {
		name     string
		statuses []int // the answers, in order; 204 after them
		code     int
		requests int
		want     []string
	}{
		{"400", []int{400}, 1, 1, []string{"refused the samples", "400 Bad Request", "out of bounds", "--resume"}},
		{"503", []int{503}, 0, 2, []string{"503 Service Unavailable", "retry 1 of 10", "done: 1 fetch"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			n := 0
			recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				n++
				i := n
				mu.Unlock()
				if r.Header.Get("Authorization") != "Bearer tenant-token" || r.Header.Get("X-Scope-OrgID") != "docs" ||
					r.Header.Get("Content-Encoding") != "snappy" || r.Header.Get("X-Prometheus-Remote-Write-Version") != "0.1.0" {
					t.Errorf("request %d: headers %v", i, r.Header)
				}
				if i <= len(tc.statuses) {
					http.Error(w, "out of bounds", tc.statuses[i-1])
					return
				}
				w.WriteHeader(http.StatusNoContent)
			}))
			t.Cleanup(recv.Close)
			r := runExporter(t, []string{"MINTLIFY_API_KEY=" + mintlifytest.DefaultKey}, "backfill",
				"--from="+yesterday.Format(time.DateOnly), "--no-collector.views", "--no-collector.assistant", "--no-collector.searches",
				"--mintlify.api-url="+srv.URL(), "--mintlify.project-id="+projectDocs,
				"--remote-write.url="+recv.URL+"/api/v1/write", "--remote-write.config="+conf,
				"--remote-write.journal="+filepath.Join(dir, tc.name+".journal"))
			out := r.stdout + r.stderr
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\n%s", r.code, tc.code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("the output lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, "tenant-token") {
				t.Error("the token was printed")
			}
			mu.Lock()
			defer mu.Unlock()
			if n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
		})
	}
}
