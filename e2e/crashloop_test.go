package e2e

// A crash loop (SIGKILL, as the OOM killer or a liveness probe sends it)
// must not spend more than the request budget in any sliding hour, and a
// SIGKILL during a 429 pause must not end the pause: the budget journal
// next to --cache.file holds both, synced before the next request.

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// kill sends SIGKILL to the exporter and waits for it to end.
func (p *process) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil && !p.exited() {
		t.Fatalf("SIGKILL to %s: %v", p.name, err)
	}
	<-p.done
}

func TestCrashLoopStaysWithinBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("waits about 20 s of real time (-short)")
	}
	t.Parallel()
	const budget = 12
	today := utcToday()
	// Two projects of 2,000 paths: the first round (3 windows each, up to 8
	// pages of 250 per window) needs far more than 12 requests.
	projects := []string{"loop-a", "loop-b"}
	srv := newFake(t, today, map[string]int{"loop-a": 2000, "loop-b": 2000})
	cacheFile := filepath.Join(t.TempDir(), "state.json")
	args := append(exporterArgs(srv.URL(), projects...), "--cache.file="+cacheFile,
		"--mintlify.requests-per-hour=12", "--analytics.page-size=250")

	first := startExporter(t, keyEnv, args...)
	eventually(t, 20*time.Second, "the first process spends its budget", func() string {
		if n := srv.CountRequests(mintlifytest.EndpointVisitors); n < budget {
			return "visitors requests: " + strconv.Itoa(n)
		}
		return ""
	})
	first.kill(t)
	for i := range 10 {
		p := startExporter(t, keyEnv, args...)
		// Long enough for a process that forgot the ledger to send a
		// round: the first one sent 12 requests well within this.
		time.Sleep(time.Second)
		p.kill(t)
		if n := srv.CountRequests(mintlifytest.EndpointVisitors); n > budget {
			t.Fatalf("after %d SIGKILLs the fake received %d visitors requests within a few seconds; the budget is %d an hour",
				i+2, n, budget)
		}
	}
	if n := srv.CountRequests(mintlifytest.EndpointVisitors); n != budget {
		t.Errorf("the fake received %d visitors requests in the crash loop, want the budget, %d", n, budget)
	}
	if _, err := os.Stat(cacheFile + ".ledger"); err != nil {
		t.Errorf("no budget journal next to the cache file: %v", err)
	}
}

func TestKillDuringRateLimitPause(t *testing.T) {
	if testing.Short() {
		t.Skip("waits a few seconds of real time (-short)")
	}
	t.Parallel()
	today := utcToday()
	srv := newFake(t, today, map[string]int{"pause-a": 600})
	srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset,
		Status: 429, RetryAfter: "600", Times: 1})
	cacheFile := filepath.Join(t.TempDir(), "state.json")
	args := append(exporterArgs(srv.URL(), "pause-a"), "--cache.file="+cacheFile)

	first := startExporter(t, keyEnv, args...)
	eventually(t, 20*time.Second, "the exporter pauses after the 429", func() string {
		if !strings.Contains(first.stderr.String(), "so every analytics request pauses until retry_at") {
			return "no pause logged"
		}
		return ""
	})
	first.kill(t)
	before := srv.CountRequests(mintlifytest.EndpointVisitors)

	second := startExporter(t, keyEnv, args...)
	// The pause has 10 minutes to run: the restarted exporter must send
	// nothing. Scrape a few times over 3 s (a scrape may hold for a first
	// refresh that can send: it must not).
	for range 3 {
		second.get(t, "/metrics", map[string]string{"X-Prometheus-Scrape-Timeout-Seconds": "1"})
		time.Sleep(time.Second)
	}
	if n := srv.CountRequests(mintlifytest.EndpointVisitors); n != before {
		t.Errorf("the exporter restarted during a 429 pause of 10 minutes sent %d visitors requests", n-before)
	}
	if !strings.Contains(second.stderr.String(), "stay paused after a 429") {
		t.Errorf("the restarted exporter does not say it is paused:\n%s", second.stderr.String())
	}
	second.stop(t)
}
