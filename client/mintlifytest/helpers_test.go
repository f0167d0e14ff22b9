package mintlifytest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// t0 is the tests' "now": a Monday.
var t0 = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)

// day returns midnight UTC of t0's date plus n days.
func day(n int) time.Time {
	y, m, d := t0.Date()
	return time.Date(y, m, d+n, 0, 0, 0, 0, time.UTC)
}

// newServer starts a server with a fake clock at t0 and closes it when the
// test ends.
func newServer(t testing.TB, opts ...mintlifytest.Option) (*mintlifytest.Server, *mintlifytest.Clock) {
	t.Helper()
	c := mintlifytest.NewClock(t0)
	s := mintlifytest.NewServer(append([]mintlifytest.Option{mintlifytest.WithClock(c.Now)}, opts...)...)
	t.Cleanup(s.Close)
	return s, c
}

// response is an answer read in full.
type response struct {
	status int
	header http.Header
	body   []byte
}

// call sends a request with the given Authorization header value ("" sends
// none) and reads the answer.
func call(t testing.TB, method, url, auth, contentType string, body []byte) response {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s: Content-Type %q, want application/json", method, url, ct)
	}
	return response{resp.StatusCode, resp.Header, b}
}

// get sends an authorized GET.
func get(t testing.TB, s *mintlifytest.Server, path string) response {
	t.Helper()
	return call(t, http.MethodGet, s.URL()+path, "Bearer "+mintlifytest.DefaultKey, "", nil)
}

// postJSON sends an authorized JSON POST.
func postJSON(t testing.TB, s *mintlifytest.Server, path, body string) response {
	t.Helper()
	return call(t, http.MethodPost, s.URL()+path, "Bearer "+mintlifytest.DefaultKey, "application/json", []byte(body))
}

// visitorsPage is the visitors answer, decoded strictly.
type visitorsPage struct {
	Totals   *counts `json:"totals"`
	Visitors []row   `json:"visitors"`
	HasMore  *bool   `json:"hasMore"`
}

type counts struct {
	Human *int64 `json:"human"`
	AI    *int64 `json:"ai"`
	Total *int64 `json:"total"`
}

type row struct {
	Path  string `json:"path"`
	Human *int64 `json:"human"`
	AI    *int64 `json:"ai"`
	Total *int64 `json:"total"`
}

func (c *counts) value(t testing.TB) mintlifytest.Counts {
	t.Helper()
	if c == nil || c.Human == nil || c.AI == nil || c.Total == nil {
		t.Fatalf("incomplete counts %+v", c)
	}
	return mintlifytest.Counts{Human: *c.Human, AI: *c.AI, Total: *c.Total}
}

func (r row) value(t testing.TB) mintlifytest.Row {
	t.Helper()
	if r.Human == nil || r.AI == nil || r.Total == nil {
		t.Fatalf("incomplete row %+v", r)
	}
	return mintlifytest.Row{Path: r.Path, Counts: mintlifytest.Counts{Human: *r.Human, AI: *r.AI, Total: *r.Total}}
}

// decodeStrict decodes JSON, refusing unknown fields and trailing data.
func decodeStrict(t testing.TB, b []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	if dec.More() {
		t.Fatalf("trailing data after JSON in %s", b)
	}
}

// page fetches and decodes one visitors page, failing on a non-200 answer.
func page(t testing.TB, s *mintlifytest.Server, path string) (mintlifytest.Counts, []mintlifytest.Row, bool) {
	t.Helper()
	r := get(t, s, path)
	if r.status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, r.status, r.body)
	}
	var p visitorsPage
	decodeStrict(t, r.body, &p)
	if p.Totals == nil || p.Visitors == nil || p.HasMore == nil {
		t.Fatalf("GET %s: missing field in %s", path, r.body)
	}
	rows := make([]mintlifytest.Row, len(p.Visitors))
	for i, v := range p.Visitors {
		rows[i] = v.value(t)
	}
	return p.Totals.value(t), rows, *p.HasMore
}

// errorBody is {"error": ..., "details": [...]}.
type errorBody struct {
	Error   string `json:"error"`
	Details []struct {
		Message string `json:"message"`
	} `json:"details"`
}

// wantError checks an error answer's status and that its body is an API
// error object with a non-empty message.
func wantError(t testing.TB, r response, status int) errorBody {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d (body %s)", r.status, status, r.body)
	}
	var e errorBody
	decodeStrict(t, r.body, &e)
	if e.Error == "" {
		t.Fatalf("error body without message: %s", r.body)
	}
	return e
}
