package mintlifytest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

func TestAnalyticsRateLimit(t *testing.T) {
	s, c := newServer(t,
		mintlifytest.WithRateLimit(3),
		mintlifytest.WithProject("a", tinyDataset()),
		mintlifytest.WithProject("b", tinyDataset()),
	)
	s.AddJob("a", mintlifytest.JobSpec{ID: "job1"})
	// Three requests at 0s, 10s and 20s, across projects, with a 400 among
	// them: all count.
	for i, p := range []string{"/v1/analytics/a/visitors", "/v1/analytics/b/visitors?limit=0", "/v1/analytics/a/visitors?offset=5"} {
		if r := get(t, s, p); r.status == http.StatusTooManyRequests {
			t.Fatalf("request %d limited early", i)
		}
		c.Advance(10 * time.Second)
	}
	// Unauthorized requests and job requests do not count.
	wantError(t, call(t, "GET", s.URL()+"/v1/analytics/a/visitors", "Bearer mint_wrong", "", nil), http.StatusUnauthorized)
	if r := get(t, s, "/v2/agent/a/job/job1"); r.status != http.StatusOK {
		t.Fatalf("get_job: %d", r.status)
	}
	// Now at 30s: the oldest request (0s) leaves the window at 3600s.
	r := get(t, s, "/v1/analytics/b/visitors")
	if e := wantError(t, r, http.StatusTooManyRequests); e.Error != "Rate limit exceeded" {
		t.Errorf("error %q", e.Error)
	}
	if ra := r.header.Get("Retry-After"); ra != "3570" {
		t.Fatalf("Retry-After %q, want 3570", ra)
	}
	// Rounded up to whole seconds.
	c.Advance(500 * time.Millisecond)
	if ra := get(t, s, "/v1/analytics/a/visitors").header.Get("Retry-After"); ra != "3570" {
		t.Fatalf("Retry-After %q, want 3570 (3569.5 rounded up)", ra)
	}
	// Refused requests do not count: once 0s leaves, one request fits.
	c.Advance(3570*time.Second - 500*time.Millisecond - time.Nanosecond)
	wantError(t, get(t, s, "/v1/analytics/a/visitors"), http.StatusTooManyRequests)
	c.Advance(time.Nanosecond)
	if r := get(t, s, "/v1/analytics/a/visitors"); r.status != http.StatusOK {
		t.Fatalf("after the oldest left the window: %d %s", r.status, r.body)
	}
	r = get(t, s, "/v1/analytics/a/visitors")
	wantError(t, r, http.StatusTooManyRequests)
	if ra := r.header.Get("Retry-After"); ra != "10" {
		t.Fatalf("Retry-After %q, want 10 (the 10s request leaves next)", ra)
	}

	s.EnableRateLimit(0)
	for range 10 {
		if r := get(t, s, "/v1/analytics/a/visitors"); r.status != http.StatusOK {
			t.Fatalf("limiter off: %d", r.status)
		}
	}
	s.EnableRateLimit(2)
	get(t, s, "/v1/analytics/a/visitors")
	get(t, s, "/v1/analytics/a/visitors")
	wantError(t, get(t, s, "/v1/analytics/a/visitors"), http.StatusTooManyRequests)
}

func TestRateLimitOffByDefault(t *testing.T) {
	s, _ := newServer(t, mintlifytest.WithProject("a", tinyDataset()))
	for i := range 150 {
		if r := get(t, s, "/v1/analytics/a/visitors"); r.status != http.StatusOK {
			t.Fatalf("request %d: %d", i, r.status)
		}
	}
}
