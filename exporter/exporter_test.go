package exporter_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/exporter"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
	"github.com/mintlify-exporter/mintlify_exporter/jobs"
	"github.com/mintlify-exporter/mintlify_exporter/statefile"
)

func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	b, _ := io.ReadAll(rec.Body)
	return rec.Code, string(b)
}

// TestReadyWithoutAScrape: the first refresh of every unit starts at
// start-up, so /-/ready turns 200 without any scrape; the landing page
// shows every unit and the watched jobs; Close saves the cache file, and
// keeps the event stream's section it held (this exporter has no stream).
func TestReadyWithoutAScrape(t *testing.T) {
	now := time.Now()
	fake := apitest.Fake(t, mintlifytest.WithProject("docs",
		mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 1, Paths: 200, Days: 10, End: now})))
	fake.AddJob("docs", mintlifytest.JobSpec{ID: "job-1", Repository: "acme/docs", Model: "m", Status: "completed"})
	key := apitest.Key(t)
	windows := apitest.Windows(t, "1d", "7d:site")
	cache := filepath.Join(t.TempDir(), "state.json")
	if err := statefile.Write(cache, statefile.File{Stream: json.RawMessage(`{"checkpoint":"a"}`)}); err != nil {
		t.Fatal(err)
	}
	x, err := exporter.New(exporter.Config{
		APIURL: fake.URL(), Key: key, Timeout: 5 * time.Second, Projects: []string{"docs"}, RequestsPerHour: 90,
		Collectors: []string{"visitors"}, Windows: windows, RefreshInterval: 15 * time.Minute, Sources: collector.Options{PageSize: 250},
		Jobs:      exporter.JobsConfig{Enabled: true, Config: jobs.Config{IDs: []string{"job-1"}, PollInterval: time.Minute}},
		CacheFile: cache,
	})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			x.Close()
		}
	}()
	h := x.Handler()
	deadline := time.Now().Add(20 * time.Second) // a bound, not a timing assertion
	for {
		code, _ := get(t, h, "/-/ready")
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/-/ready still %d without a scrape", code)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// 1d: its totals and a walk of 1 page; 1 request for the site window.
	if n := fake.CountRequests(mintlifytest.EndpointVisitors); n != 3 {
		t.Errorf("%d visitors requests before any scrape, want 3", n)
	}
	for _, r := range fake.Requests() {
		if r.Endpoint == mintlifytest.EndpointVisitors && r.Query.Get("dateFrom") == now.UTC().AddDate(0, 0, -6).Format("2006-01-02") &&
			r.Query.Get("limit") != "1" {
			t.Errorf("the 7d:site window asked for limit=%s, want 1", r.Query.Get("limit"))
		}
	}
	// Without --remediation.config the webhook's path is a 404 that says
	// so, not the landing page (an Alertmanager would take a 200 for a
	// delivery).
	if code, body := get(t, h, "/webhook/alertmanager"); code != http.StatusNotFound || !strings.Contains(body, "--remediation.config") {
		t.Errorf("the webhook's path without the webhook: %d %q, want 404 naming --remediation.config", code, body)
	}
	_, page := get(t, h, "/")
	for _, want := range []string{"<td>visitors</td><td>docs</td><td>1d totals</td>", "<td>visitors</td><td>docs</td><td>1d pages</td>", "<td>7d:site</td>", "site-wide totals", "job-1"} {
		if !strings.Contains(page, want) {
			t.Errorf("the landing page lacks %q", want)
		}
	}
	_, metrics := get(t, h, "/metrics")
	if !strings.Contains(metrics, `mintlify_visitors_deduplicated{project="docs",window="7d"}`) ||
		strings.Contains(metrics, `mintlify_page_visitors_deduplicated{path="/",project="docs",window="7d"}`) {
		t.Errorf("the site window should export site-wide figures only")
	}
	x.Close()
	closed = true
	f, err := statefile.Read(cache)
	if err != nil || len(f.Units) != 3 || string(f.Stream) != `{"checkpoint":"a"}` {
		t.Fatalf("cache file after Close: %d units, stream %s, %v; want 3 (1d totals and walk, 7d:site) and the stream's section kept", len(f.Units), f.Stream, err)
	}
}
