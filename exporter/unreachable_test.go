package exporter_test

import (
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/exporter"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/logbuf"
	"github.com/mintlify-exporter/mintlify_exporter/statefile"
)

// TestUnreachableAPISpendsNothing: a --mintlify.api-url nothing listens on
// (connection refused) spends none of the budget, neither in memory nor in
// the journal, shows as a failure (mintlify_up 0, never "waiting"), and is
// logged once, naming the flag.
func TestUnreachableAPISpendsNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the client's real retry backoff (seconds): skipped under -short")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close() // nothing listens there any more: connections are refused
	key := apitest.Key(t)
	w, err := engine.ParseWindow("1d")
	if err != nil {
		t.Fatal(err)
	}
	logs := &logbuf.Buffer{}
	cache := filepath.Join(t.TempDir(), "state.json")
	x, err := exporter.New(exporter.Config{
		APIURL: url, Key: key, Timeout: 5 * time.Second, Projects: []string{"docs"}, RequestsPerHour: 90,
		Collectors: []string{"visitors"}, Windows: []engine.Window{w}, RefreshInterval: 15 * time.Minute,
		Sources: collector.Options{PageSize: 250}, CacheFile: cache, Logger: log.NewLogfmtLogger(logs),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	h := x.Handler()
	deadline := time.Now().Add(time.Minute) // a bound, not a timing assertion: the retries take seconds
	for {
		if code, _ := get(t, h, "/-/ready"); code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("/-/ready never 200: the units' first attempts did not end")
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, metrics := get(t, h, "/metrics")
	for _, want := range []string{
		"mintlify_api_budget_remaining 90\n",
		`mintlify_up{project="docs",source="visitors"} 0` + "\n",
		`mintlify_units_waiting{project="docs",source="visitors"} 0` + "\n",
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("the scrape lacks %q", strings.TrimSpace(want))
		}
	}
	if !strings.Contains(metrics, `mintlify_api_requests_total{code="error",endpoint="visitors"}`) {
		t.Error("the failed attempts are not counted in mintlify_api_requests_total{code=\"error\"}")
	}
	_, page := get(t, h, "/")
	if strings.Contains(page, "waiting for the request budget") {
		t.Error("the landing page says a unit waits for the budget; the API is unreachable")
	}
	var bad []string
	for line := range strings.SplitSeq(logs.String(), "\n") {
		if strings.Contains(line, "level=error") || strings.Contains(line, "level=warn") {
			bad = append(bad, line)
		}
	}
	if len(bad) == 0 || len(bad) > 3 {
		t.Errorf("%d warn/error lines, want 1 to 3:\n%s", len(bad), strings.Join(bad, "\n"))
	}
	for _, line := range bad {
		if !strings.Contains(line, "--mintlify.api-url") {
			t.Errorf("a line does not name --mintlify.api-url: %s", line)
		}
	}
	x.Close()
	_, st, err := statefile.OpenJournal(cache+statefile.JournalSuffix, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Sent) != 0 {
		t.Errorf("the budget journal holds %d requests that never reached the API", len(st.Sent))
	}
}
