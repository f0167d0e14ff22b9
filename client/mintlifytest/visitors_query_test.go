package mintlifytest_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

func TestVisitorsQueryValidation(t *testing.T) {
	s, _ := newServer(t, mintlifytest.WithProject("proj", mintlifytest.Generate(mintlifytest.GenerateOptions{
		Seed: 3, Paths: 300, Days: 10, End: t0,
	})))
	tests := []struct {
		query string
		ok    bool
		param string // the parameter the 400 details must name
	}{
		{"", true, ""},
		{"limit=1", true, ""},
		{"limit=250", true, ""},
		{"limit=50&offset=0", true, ""},
		{"limit=0", false, "limit"},
		{"limit=251", false, "limit"},
		{"limit=-1", false, "limit"},
		{"limit=abc", false, "limit"},
		{"limit=1.5", false, "limit"},
		{"limit=", false, "limit"},
		{"limit=1e2", false, "limit"},
		{"limit=99999999999999999999", false, "limit"},
		{"offset=0", true, ""},
		{"offset=100000", true, ""},
		{"offset=-1", false, "offset"},
		{"offset=1.5", false, "offset"},
		{"offset=abc", false, "offset"},
		{"offset=", false, "offset"},
		{"dateFrom=2025-03-01", true, ""},
		{"dateTo=2025-03-11", true, ""},
		{"dateFrom=2025-03-01&dateTo=2025-03-11", true, ""},
		{"dateFrom=2025-03-10&dateTo=2025-03-10", true, ""},
		{"dateFrom=2025-03-01T00:00:00Z&dateTo=2025-03-11T00:00:00Z", true, ""},
		{"dateFrom=2025-03-01T10:30:00.123%2B02:00", true, ""},
		{"dateFrom=2025-03-01T10:30:00-05:00", true, ""},
		{"dateFrom=2025-3-1", false, "dateFrom"},
		{"dateFrom=2025-02-30", false, "dateFrom"},
		{"dateFrom=20250301", false, "dateFrom"},
		{"dateFrom=03/01/2025", false, "dateFrom"},
		{"dateFrom=2025-03-01T00:00:00", false, "dateFrom"},
		{"dateFrom=yesterday", false, "dateFrom"},
		{"dateFrom=", false, "dateFrom"},
		{"dateTo=2025-13-01", false, "dateTo"},
		{"dateTo=1741600000", false, "dateTo"},
		{"dateFrom=2025-03-05&dateTo=2025-03-04", false, "dateFrom"},
		{"dateFrom=2025-03-05T12:00:00Z&dateTo=2025-03-05T11:00:00Z", false, "dateFrom"},
		{"unknown=1&limit=10", true, ""},
		{"LIMIT=0", true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			r := get(t, s, "/v1/analytics/proj/visitors?"+tc.query)
			if tc.ok {
				if r.status != http.StatusOK {
					t.Fatalf("status %d, want 200: %s", r.status, r.body)
				}
				return
			}
			e := wantError(t, r, http.StatusBadRequest)
			if e.Error != "Invalid query parameters" {
				t.Errorf("error %q", e.Error)
			}
			if len(e.Details) != 1 || !strings.Contains(e.Details[0].Message, tc.param) {
				t.Errorf("details %+v do not name %s", e.Details, tc.param)
			}
		})
	}
}

func TestVisitorsQueryAllProblemsReported(t *testing.T) {
	s, _ := newServer(t, mintlifytest.WithProject("proj", mintlifytest.NewDataset()))
	q := url.Values{"limit": {"0"}, "offset": {"-3"}, "dateFrom": {"x"}, "dateTo": {"y"}}
	e := wantError(t, get(t, s, "/v1/analytics/proj/visitors?"+q.Encode()), http.StatusBadRequest)
	if len(e.Details) != 4 {
		t.Fatalf("details %+v, want one per bad parameter", e.Details)
	}
}

func TestVisitorsDefaults(t *testing.T) {
	s, _ := newServer(t, mintlifytest.WithProject("proj", mintlifytest.Generate(mintlifytest.GenerateOptions{
		Seed: 4, Paths: 120, Days: 5, End: t0,
	})))
	_, rows, more := page(t, s, "/v1/analytics/proj/visitors")
	if len(rows) != 50 || !more {
		t.Fatalf("default page: %d rows, hasMore %v; want 50, true", len(rows), more)
	}
	_, want := s.Visitors("proj", day(-4), day(1))
	for i := range rows {
		if rows[i] != want[i] {
			t.Fatalf("row %d = %+v, want %+v", i, rows[i], want[i])
		}
	}
	_, rows, more = page(t, s, "/v1/analytics/proj/visitors?offset=100")
	if len(rows) != 20 || more {
		t.Fatalf("offset 100: %d rows, hasMore %v; want 20, false", len(rows), more)
	}
	_, rows, more = page(t, s, "/v1/analytics/proj/visitors?offset=120")
	if len(rows) != 0 || more {
		t.Fatalf("offset past the end: %d rows, hasMore %v", len(rows), more)
	}
	// Repeated parameters: the first value counts.
	_, rows, _ = page(t, s, "/v1/analytics/proj/visitors?limit=3&limit=500")
	if len(rows) != 3 {
		t.Fatalf("repeated limit: %d rows", len(rows))
	}
}
