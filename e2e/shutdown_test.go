package e2e

// Shutdown: SIGTERM while a refresh and a scrape are in flight.

import (
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
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	select {
	case <-a.arrived:
	case <-timer.C:
		t.Fatal("no refresh started")
	}
	// The first refresh is under way (its request waits 2 s at the fake):
	// a scrape answers at once, whole, without visitors data.
	resp, body := p.get(t, "/metrics", scrapeHeaders)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a scrape during the first refresh: status %d", resp.StatusCode)
	}
	fams := promtest.ParseText(t, body)
	if _, ok := fams["mintlify_visitors"]; ok {
		t.Error("visitors served although no refresh finished")
	}
	if _, ok := fams["mintlify_up"]; !ok {
		t.Error("the scrape has no mintlify_up")
	}
	took := p.stop(t)
	t.Logf("exited %v after SIGTERM with a refresh in flight", took)

	// One request is sent at a time: the one in flight at the SIGTERM.
	if n := a.count.Load(); n > 1 {
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
