package mintlifytest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// TestAnalyticsQueryValidation: every analytics endpoint refuses
// parameters out of their published ranges with 400 and the
// AnalyticsErrorResponse body, and accepts the edges.
func TestAnalyticsQueryValidation(t *testing.T) {
	s, _ := newServer(t, mintlifytest.WithProject("p", mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 1, Paths: 30, Days: 5, End: t0})))
	for _, tc := range []struct {
		path   string
		status int
		detail string
	}{
		{"/v1/analytics/p/views?limit=250&offset=0", 200, ""},
		{"/v1/analytics/p/views?limit=251", 400, "limit"},
		{"/v1/analytics/p/views?offset=-1", 400, "offset"},
		{"/v1/analytics/p/assistant/caller-stats?dateFrom=2025-03-01&dateTo=2025-03-05", 200, ""},
		{"/v1/analytics/p/assistant/caller-stats?dateFrom=yesterday", 400, "dateFrom"},
		{"/v1/analytics/p/feedback/by-page?limit=100&source=thumbs_only&status=pending,resolved", 200, ""},
		{"/v1/analytics/p/feedback/by-page?limit=101", 400, "limit"},
		{"/v1/analytics/p/feedback/by-page?limit=0", 400, "limit"},
		{"/v1/analytics/p/feedback/by-page?offset=10", 400, "offset"},
		{"/v1/analytics/p/feedback/by-page?cursor=abc", 400, "cursor"},
		{"/v1/analytics/p/feedback/by-page?source=email", 400, "source"},
		{"/v1/analytics/p/feedback/by-page?status=pending,open", 400, "status"},
		{"/v1/analytics/p/searches?limit=100", 200, ""},
		{"/v1/analytics/p/searches?limit=101", 400, "limit"},
		{"/v1/analytics/p/searches?cursor=bm9wZQ", 400, "cursor"},
		{"/v1/analytics/p/assistant?limit=1000", 200, ""},
		{"/v1/analytics/p/assistant?limit=1001", 400, "limit"},
		{"/v1/analytics/p/assistant?cursor=01J00000000000000000000000", 200, ""},
		{"/v1/analytics/p/assistant?cursor=not-a-ulid", 400, "cursor"},
		{"/v1/analytics/p/assistant?cursor=81J00000000000000000000000", 400, "cursor"},
	} {
		r := get(t, s, tc.path)
		if tc.status == 200 {
			if r.status != 200 {
				t.Errorf("%s: %d %s", tc.path, r.status, r.body)
			}
			continue
		}
		e := wantError(t, r, tc.status)
		if e.Error != "Invalid query parameters" || len(e.Details) == 0 || !strings.HasPrefix(e.Details[0].Message, tc.detail) {
			t.Errorf("%s: %+v, want a detail about %s", tc.path, e, tc.detail)
		}
	}
}

// TestAnalyticsRateLimitCountsEveryEndpoint: one limit for all six
// analytics endpoints together; 429 without Retry-After on request.
func TestAnalyticsRateLimitCountsEveryEndpoint(t *testing.T) {
	paths := []string{"visitors", "views", "assistant/caller-stats", "feedback/by-page", "searches", "assistant"}
	for _, withRA := range []bool{true, false} {
		opts := []mintlifytest.Option{mintlifytest.WithRateLimit(len(paths)), mintlifytest.WithProject("p", tinyDataset())}
		if !withRA {
			opts = append(opts, mintlifytest.WithoutRetryAfter())
		}
		s, _ := newServer(t, opts...)
		for _, p := range paths {
			if r := get(t, s, "/v1/analytics/p/"+p); r.status != http.StatusOK {
				t.Fatalf("%s: %d", p, r.status)
			}
		}
		for _, p := range paths {
			r := get(t, s, "/v1/analytics/p/"+p)
			wantError(t, r, http.StatusTooManyRequests)
			if got := r.header.Get("Retry-After") != ""; got != withRA {
				t.Errorf("%s: Retry-After present %v, want %v", p, got, withRA)
			}
		}
		if got := s.CountRequests(mintlifytest.EndpointCallerStats); got != 2 {
			t.Errorf("caller_stats logged %d times, want 2", got)
		}
	}
}

// TestGenerateEverySignalPerDay: Generate fills every signal, and windows
// of different lengths differ.
func TestGenerateEverySignalPerDay(t *testing.T) {
	s, _ := newServer(t, mintlifytest.WithProject("p", mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 2, Paths: 150, Days: 30, End: t0})))
	var last [5]int64
	for i, days := range []int{1, 7, 30} {
		from, to := day(1-days), day(1)
		vt, vrows := s.Views("p", from, to)
		cs := s.CallerStats("p", from, to)
		fb := s.FeedbackByPage("p", from, to)
		terms, total := s.Searches("p", from, to)
		conv := s.Conversations("p", from, to)
		turns := 0
		for _, n := range conv {
			turns += n
		}
		now := [5]int64{vt.Total, cs.Total, int64(len(fb)), total, int64(turns)}
		for k := range now {
			if now[k] <= last[k] {
				t.Errorf("%dd: signal %d = %d, not above the shorter window's %d", days, k, now[k], last[k])
			}
		}
		last = now
		if len(vrows) == 0 || len(terms) == 0 || cs.Total < cs.Web+cs.API+cs.Other {
			t.Errorf("%dd: %d view rows, %d terms, callers %+v", days, len(vrows), len(terms), cs)
		}
		if i == 2 && (len(fb) <= 100 || cs.Total == cs.Web+cs.API+cs.Other) {
			t.Errorf("30d: %d pages with feedback (want more than 100), callers %+v (want some of no known caller)", len(fb), cs)
		}
	}
}
