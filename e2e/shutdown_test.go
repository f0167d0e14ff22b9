package e2e

// Shutdown: SIGTERM while a refresh and a scrape are in flight.

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/promtest"
)

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

func TestSIGTERMDuringRefresh(t *testing.T) {
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
		if series(promtest.ParseText(t, body))[key("promhttp_metric_handler_requests_in_flight")] >= 2 {
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
		fams := promtest.ParseText(t, r.body)
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
	assertNoSecret(t, map[string]string{"stderr": logs, "stdout": p.stdout.String()}, defaultKeyMark)
}
