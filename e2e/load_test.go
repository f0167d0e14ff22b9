package e2e

// Many concurrent scrapers while refreshes run: nothing fails,
// --web.max-requests is enforced, memory stays bounded.

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// loadResult is what one load phase observed.
type loadResult struct {
	requests, ok, unavailable, failed int
	elapsed, p50, p99, max            time.Duration
	bytes                             int64
}

// loadPhase runs 50 concurrent scrapers of url until d passes or
// 20,000 scrapes were made.
func loadPhase(t *testing.T, url string, d time.Duration) loadResult {
	t.Helper()
	const scrapers, maxRequests = 50, 20000
	tr := &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: scrapers, MaxConnsPerHost: 0}
	defer tr.CloseIdleConnections()
	c := &http.Client{Timeout: 30 * time.Second, Transport: tr}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		res       loadResult
		n         atomic.Int64
		wg        sync.WaitGroup
		failures  []string
	)
	begin := time.Now()
	stop := begin.Add(d)
	for range scrapers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) && n.Add(1) <= maxRequests {
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				req.Header.Set("Accept-Encoding", "gzip")
				start := time.Now()
				r, err := c.Do(req)
				var size int64
				if err == nil {
					size, err = io.Copy(io.Discard, r.Body)
					r.Body.Close()
				}
				took := time.Since(start)
				mu.Lock()
				res.requests++
				switch {
				case err != nil:
					res.failed++
					failures = append(failures, err.Error())
				case r.StatusCode == http.StatusOK && size > 0:
					res.ok++
					res.bytes += size
					latencies = append(latencies, took)
				case r.StatusCode == http.StatusServiceUnavailable:
					res.unavailable++
				default:
					res.failed++
					failures = append(failures, fmt.Sprintf("HTTP %d, %d bytes", r.StatusCode, size))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(begin)
	if len(failures) > 0 {
		t.Errorf("%d failed scrapes, e.g. %v", len(failures), failures[:min(3, len(failures))])
	}
	slices.Sort(latencies)
	if len(latencies) > 0 {
		res.p50 = latencies[len(latencies)/2]
		res.p99 = latencies[len(latencies)*99/100]
		res.max = latencies[len(latencies)-1]
	}
	return res
}

// TestScrapesUnderLoad: 50 concurrent scrapers for 10 s against 10,000
// paths × 3 windows while refreshes keep running against a slow fake: no
// scrape fails; with --web.max-requests=5 the excess gets 503 and nothing else
// fails; peak memory stays bounded.
func TestScrapesUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test skipped under -short")
	}
	fake := fakeWithKey(t, secretKey, 10000)
	keyFile := writeKeyFile(t, filepath.Join(t.TempDir(), "key"), secretKey)
	args := []string{"--mintlify.api-url=" + fake.URL(), "--mintlify.api-key-file=" + keyFile,
		"--mintlify.project-id=docs", "--no-collector.views", "--no-collector.assistant", "--no-collector.feedback", "--no-collector.searches", "--analytics.max-paths=0", "--analytics.refresh-interval=1s",
		"--mintlify.requests-per-hour=10000000"}
	for _, phase := range []struct {
		maxRequests int
		d           time.Duration
	}{{0, 10 * time.Second}, {5, 3 * time.Second}} {
		fake.SetLatency(0) // the first walks, quickly
		p := startExporter(t, nil, append(slices.Clip(args), "--web.max-requests="+strconv.Itoa(phase.maxRequests))...)
		eventually(t, 30*time.Second, "readiness", func() string {
			p.get(t, "/metrics", nil) // scrapes start the refreshes
			resp, _ := p.get(t, "/-/ready", nil)
			if resp.StatusCode == http.StatusOK {
				return ""
			}
			return "/-/ready: " + resp.Status
		})
		_, b := p.get(t, "/metrics", nil)
		body := string(b)
		text := len(body)
		if v, _ := gaugeValue(t, body, "mintlify_visitors_paths_exported", "project", "docs", "window", "30d"); v != 10000 {
			t.Fatalf("30d window exports %v paths, want 10000", v)
		}
		fake.SetLatency(50 * time.Millisecond)
		before := fake.CountRequests(mintlifytest.EndpointVisitors)
		res := loadPhase(t, "http://"+p.addr+"/metrics", phase.d)
		refreshRequests := fake.CountRequests(mintlifytest.EndpointVisitors) - before
		rss := p.peakRSS(t)
		t.Logf("--web.max-requests=%d: %d scrapes in %s (%d ok, %d answered 503, %d failed) of %.1f MiB of text, %.2f MiB gzip; latency p50 %s p99 %s max %s; %d upstream requests meanwhile (50 ms each); peak RSS %.0f MiB",
			phase.maxRequests, res.requests, res.elapsed.Round(100*time.Millisecond), res.ok, res.unavailable, res.failed,
			float64(text)/(1<<20), float64(res.bytes)/float64(max(1, res.ok))/(1<<20), res.p50.Round(time.Millisecond), res.p99.Round(time.Millisecond),
			res.max.Round(time.Millisecond), refreshRequests, float64(rss)/(1<<20))
		if res.ok == 0 {
			t.Fatal("no successful scrape")
		}
		if refreshRequests == 0 {
			t.Error("no refresh ran during the load")
		}
		if phase.maxRequests == 0 && res.unavailable > 0 {
			t.Errorf("%d scrapes answered 503 without a limit", res.unavailable)
		}
		if phase.maxRequests > 0 && res.unavailable == 0 {
			t.Error("50 concurrent scrapers never exceeded --web.max-requests=5")
		}
		if rss > 512<<20 {
			t.Errorf("peak RSS %d MiB, over 512 MiB", rss>>20)
		}
		_, b = p.get(t, "/metrics", nil)
		body = string(b)
		if v, ok := gaugeValue(t, body, "mintlify_up", "project", "docs", "source", "visitors"); !ok || v != 1 {
			t.Errorf("mintlify_up is %v after the load", v)
		}
		p.stop(t)
	}
}

// peakRSS returns the process's peak resident set size in bytes.
func (p *process) peakRSS(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	m := regexp.MustCompile(`(?m)^VmHWM:\s+([0-9]+) kB`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no VmHWM in /proc/%d/status", p.cmd.Process.Pid)
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10
}
