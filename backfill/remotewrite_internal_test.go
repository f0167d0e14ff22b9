package backfill

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/exp/api/remote"
)

// The package's tests retry a remote write twice, without waiting.
func init() { remoteBackoff = remote.BackoffConfig{MaxRetries: 2} }

// TestRetryAfterIsCapped: a receiver's Retry-After reaches the client as
// seconds, at most MaxRetryAfter, whatever its form.
func TestRetryAfterIsCapped(t *testing.T) {
	now := time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]string{
		"30":                   "30",
		"86400":                "300",
		"99999999999999999999": "300", // beyond int64: capped as any long delay
		"-5":                   "0",
		now.Add(2 * time.Minute).Format(http.TimeFormat): "120",
		now.Add(48 * time.Hour).Format(http.TimeFormat):  "300",
		"soon": "0",
	} {
		if got := capRetryAfter(in, now); got != want {
			t.Errorf("capRetryAfter(%q) = %q, want %q", in, got, want)
		}
	}
}

// roundTripFunc is an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestHeaderTransport: the configured headers go out, the status and a
// capped Retry-After come back.
func TestHeaderTransport(t *testing.T) {
	tr := &headerTransport{headers: map[string]string{"X-Scope-OrgID": "docs"},
		next: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.Header.Get("X-Scope-OrgID") != "docs" {
				t.Errorf("header not sent: %v", r.Header)
			}
			return &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {"3600"}}}, nil
		})}
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:9/api/v1/write", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Header.Get("Retry-After"); got != "300" || tr.code.Load() != 429 {
		t.Errorf("Retry-After %q, status %d; want 300 and 429", got, tr.code.Load())
	}
	if req.Header.Get("X-Scope-OrgID") != "" {
		t.Error("the caller's request was changed")
	}
}

// BenchmarkWriteRequest builds the request of one day of a large site: 4
// sources of 1000 paths, 3 samples a path.
func BenchmarkWriteRequest(b *testing.B) {
	var entries []*entry
	for s := range 4 {
		e := &entry{Day: "2025-03-01", Source: fmt.Sprintf("src%d", s), Project: "docs"}
		for f := range 3 {
			fam := family{Name: fmt.Sprintf("mintlify_page_metric_%d_%d", s, f), Help: "h", Labels: []string{"path", "traffic"}}
			for p := range 1000 {
				fam.Series = append(fam.Series, series{L: []string{fmt.Sprintf("/page/%d", p), "human"}, V: "12"})
			}
			e.Families = append(e.Families, fam)
		}
		entries = append(entries, e)
	}
	labels := []Label{{"job", DefaultJob}}
	b.ReportAllocs()
	for b.Loop() {
		req, n := writeRequest(entries, labels)
		if n != 12000 || len(req.Timeseries) != 12000 {
			b.Fatalf("%d samples, %d series", n, len(req.Timeseries))
		}
	}
}
