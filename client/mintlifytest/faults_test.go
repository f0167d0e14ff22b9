package mintlifytest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

func faultServer(t *testing.T) *mintlifytest.Server {
	t.Helper()
	s, _ := newServer(t, mintlifytest.WithProject("proj", mintlifytest.Generate(mintlifytest.GenerateOptions{
		Seed: 1, Paths: 30, Days: 3, End: t0,
	})), mintlifytest.WithProject("other", tinyDataset()))
	s.AddJob("proj", mintlifytest.JobSpec{ID: "job1"})
	return s
}

func TestFaultStatus(t *testing.T) {
	s := faultServer(t)
	s.AddFault(mintlifytest.Fault{Endpoint: "visitors", Offset: mintlifytest.AnyOffset, Status: 503, Times: 2})
	wantError(t, get(t, s, "/v1/analytics/proj/visitors"), 503)
	wantError(t, get(t, s, "/v1/analytics/proj/visitors?offset=10"), 503)
	if r := get(t, s, "/v1/analytics/proj/visitors"); r.status != 200 {
		t.Fatalf("fault fired more than Times: %d", r.status)
	}
	if r := get(t, s, "/v2/agent/proj/job/job1"); r.status != 200 {
		t.Fatalf("visitors fault hit get_job: %d", r.status)
	}
}

func TestFaultMatching(t *testing.T) {
	s := faultServer(t)
	s.AddFault(mintlifytest.Fault{Endpoint: "visitors", Project: "proj", Offset: 20, AfterN: 1, Status: 500})
	if r := get(t, s, "/v1/analytics/proj/visitors?limit=20&offset=20"); r.status != 200 {
		t.Fatalf("AfterN 1: first matching request failed: %d", r.status)
	}
	if r := get(t, s, "/v1/analytics/proj/visitors?limit=20"); r.status != 200 {
		t.Fatalf("offset 0 matched a fault for offset 20: %d", r.status)
	}
	if r := get(t, s, "/v1/analytics/other/visitors?offset=20"); r.status != 200 {
		t.Fatalf("other project matched: %d", r.status)
	}
	wantError(t, get(t, s, "/v1/analytics/proj/visitors?limit=20&offset=20"), 500)
	wantError(t, get(t, s, "/v1/analytics/proj/visitors?offset=20"), 500) // Times 0: forever

	// The zero Offset means offset 0 (an absent offset is 0).
	s.ClearFaults()
	s.AddFault(mintlifytest.Fault{Endpoint: "visitors", Status: 502})
	wantError(t, get(t, s, "/v1/analytics/other/visitors"), 502)
	if r := get(t, s, "/v1/analytics/other/visitors?offset=1"); r.status != 200 {
		t.Fatalf("Offset 0 matched offset 1: %d", r.status)
	}
	s.ClearFaults()

	// Endpoint "" matches every endpoint; Offset is ignored for jobs.
	remove := s.AddFault(mintlifytest.Fault{Status: 500, Offset: 7})
	wantError(t, get(t, s, "/v2/agent/proj/job/job1"), 500)
	wantError(t, get(t, s, "/v1/agent/proj/jobs"), 500)
	wantError(t, postJSON(t, s, "/v2/agent/proj/job/job1/message", `{"prompt":"x"}`), 500)
	remove()
	remove()
	if r := get(t, s, "/v2/agent/proj/job/job1"); r.status != 200 {
		t.Fatalf("removed fault still fires: %d", r.status)
	}
	if got := s.Messages("proj", "job1"); len(got) != 0 {
		t.Fatalf("a faulted message was delivered: %q", got)
	}

	// Unauthorized requests never reach faults.
	s.AddFault(mintlifytest.Fault{Status: 500})
	wantError(t, call(t, "GET", s.URL()+"/v2/agent/proj/job/job1", "", "", nil), 401)
}

func TestFaultsQueueInOrder(t *testing.T) {
	s := faultServer(t)
	s.AddFault(mintlifytest.Fault{Endpoint: "get_job", Status: 500, Times: 1})
	s.AddFault(mintlifytest.Fault{Endpoint: "get_job", Status: 502, Times: 1})
	s.AddFault(mintlifytest.Fault{Endpoint: "get_job", Status: 504, AfterN: 3, Times: 1})
	for i, want := range []int{500, 502, 200, 504, 200} {
		if r := get(t, s, "/v2/agent/proj/job/job1"); r.status != want {
			t.Fatalf("request %d: %d, want %d", i, r.status, want)
		}
	}
}

func TestFault429RetryAfter(t *testing.T) {
	s := faultServer(t)
	s.AddFault(mintlifytest.Fault{Offset: mintlifytest.AnyOffset, Status: 429, RetryAfter: "120", Times: 1})
	s.AddFault(mintlifytest.Fault{Offset: mintlifytest.AnyOffset, Status: 429, Times: 1})
	r := get(t, s, "/v1/analytics/proj/visitors")
	if e := wantError(t, r, 429); e.Error != "Rate limit exceeded" {
		t.Errorf("error %q", e.Error)
	}
	if ra := r.header.Get("Retry-After"); ra != "120" {
		t.Fatalf("Retry-After %q", ra)
	}
	r = get(t, s, "/v1/analytics/proj/visitors")
	wantError(t, r, 429)
	if _, ok := r.header["Retry-After"]; ok {
		t.Fatal("Retry-After sent though the fault has none")
	}
}

func TestFaultBody(t *testing.T) {
	s := faultServer(t)
	s.AddFault(mintlifytest.Fault{Endpoint: "get_job", Body: "not json", Times: 1})
	s.AddFault(mintlifytest.Fault{Endpoint: "get_job", Body: "<html>bad gateway</html>", Status: 502, Times: 1})
	s.AddFault(mintlifytest.Fault{Endpoint: "get_job", Body: "{\"id\":\"\xff\"}", Times: 1})
	for _, want := range []struct {
		status int
		body   string
	}{{200, "not json"}, {502, "<html>bad gateway</html>"}, {200, "{\"id\":\"\xff\"}"}} {
		r := get(t, s, "/v2/agent/proj/job/job1")
		if r.status != want.status || string(r.body) != want.body {
			t.Fatalf("got %d %q, want %d %q", r.status, r.body, want.status, want.body)
		}
	}
}

func TestFaultDelay(t *testing.T) {
	s := faultServer(t)
	s.AddFault(mintlifytest.Fault{Endpoint: "get_job", Delay: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL()+"/v2/agent/proj/job/job1", nil)
	req.Header.Set("Authorization", "Bearer "+mintlifytest.DefaultKey)
	start := time.Now()
	_, err := http.DefaultClient.Do(req)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want a deadline", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("delay did not honour the context")
	}
	s.ClearFaults()
	s.AddFault(mintlifytest.Fault{Endpoint: "get_job", Delay: 20 * time.Millisecond})
	start = time.Now()
	if r := get(t, s, "/v2/agent/proj/job/job1"); r.status != 200 {
		t.Fatalf("delay only: %d", r.status)
	}
	if time.Since(start) < 20*time.Millisecond {
		t.Fatal("answered before the delay")
	}
}

// rawGet sends one request on a fresh connection and returns the read error.
func rawGet(t *testing.T, url string) (*http.Response, []byte, error) {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+mintlifytest.DefaultKey)
	resp, err := c.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

func TestFaultTruncate(t *testing.T) {
	s := faultServer(t)
	s.AddFault(mintlifytest.Fault{Endpoint: "visitors", Truncate: true, Times: 1})
	resp, b, err := rawGet(t, s.URL()+"/v1/analytics/proj/visitors")
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("read error %v, want unexpected EOF", err)
	}
	if resp.StatusCode != 200 || resp.ContentLength != int64(2*len(b)) && resp.ContentLength != int64(2*len(b)+1) {
		t.Fatalf("status %d, Content-Length %d, got %d bytes", resp.StatusCode, resp.ContentLength, len(b))
	}
	if !strings.HasPrefix(string(b), `{"totals":`) {
		t.Fatalf("truncated body %q is not the start of the real one", b)
	}
	if _, _, err := rawGet(t, s.URL()+"/v1/analytics/proj/visitors"); err != nil {
		t.Fatalf("after the fault: %v", err)
	}
	if reqs := s.Requests(); reqs[0].Status != 200 {
		t.Fatalf("logged status %d", reqs[0].Status)
	}
}

func TestFaultReset(t *testing.T) {
	s := faultServer(t)
	s.AddFault(mintlifytest.Fault{Endpoint: "get_job", Reset: true, Times: 1})
	if _, _, err := rawGet(t, s.URL()+"/v2/agent/proj/job/job1"); err == nil {
		t.Fatal("no error from a reset connection")
	}
	if _, _, err := rawGet(t, s.URL()+"/v2/agent/proj/job/job1"); err != nil {
		t.Fatalf("after the fault: %v", err)
	}
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[0].Status != 0 || reqs[1].Status != 200 {
		t.Fatalf("log %+v", reqs)
	}
}

func TestFaultVisitorsShapes(t *testing.T) {
	s := faultServer(t)
	_, all := s.Visitors("proj", time.Time{}, time.Time{})

	s.AddFault(mintlifytest.Fault{Endpoint: "visitors", Offset: 10, HasMoreForever: true, Times: 1})
	_, rows, more := page(t, s, "/v1/analytics/proj/visitors?limit=10&offset=10")
	if !more || len(rows) != 10 || rows[0] != all[10] {
		t.Fatalf("HasMoreForever with rows: %d rows, hasMore %v", len(rows), more)
	}
	s.AddFault(mintlifytest.Fault{Endpoint: "visitors", Offset: mintlifytest.AnyOffset, HasMoreForever: true, EmptyPage: true, Times: 1})
	_, rows, more = page(t, s, "/v1/analytics/proj/visitors?limit=10&offset=1000")
	if !more || len(rows) != 0 {
		t.Fatalf("HasMoreForever+EmptyPage: %d rows, hasMore %v", len(rows), more)
	}
	s.AddFault(mintlifytest.Fault{Endpoint: "visitors", EmptyPage: true, Times: 1})
	_, rows, more = page(t, s, "/v1/analytics/proj/visitors?limit=10")
	if !more || len(rows) != 0 {
		t.Fatalf("EmptyPage keeps the data's hasMore: %d rows, hasMore %v", len(rows), more)
	}
	s.AddFault(mintlifytest.Fault{Endpoint: "visitors", Offset: mintlifytest.AnyOffset, DuplicateRows: true, Times: 2})
	_, rows, _ = page(t, s, "/v1/analytics/proj/visitors?limit=10")
	if len(rows) != 10 || rows[0] != all[0] {
		t.Fatalf("DuplicateRows at offset 0 changed the page: %+v", rows)
	}
	_, rows, more = page(t, s, "/v1/analytics/proj/visitors?limit=10&offset=10")
	if len(rows) != 11 || rows[0] != all[9] || rows[1] != all[10] || !more {
		t.Fatalf("DuplicateRows: %d rows starting %+v", len(rows), rows[0])
	}
}

func TestFaultMutate(t *testing.T) {
	s := faultServer(t)
	s.AddFault(mintlifytest.Fault{Endpoint: "visitors", Times: 1, Mutate: func(body map[string]any) {
		rows := body["visitors"].([]any)
		first := rows[0].(map[string]any)
		if _, ok := first["human"].(json.Number); !ok {
			panic("numbers not decoded as json.Number")
		}
		first["human"] = -5
		first["path"] = json.RawMessage("\"/bad-\xff\"")
		delete(body, "hasMore")
		body["totals"].(map[string]any)["total"] = "many"
	}})
	r := get(t, s, "/v1/analytics/proj/visitors?limit=2")
	if r.status != 200 {
		t.Fatalf("status %d", r.status)
	}
	for _, want := range []string{`"human":-5`, "\"path\":\"/bad-\xff\"", `"total":"many"`} {
		if !strings.Contains(string(r.body), want) {
			t.Errorf("mutated body %q lacks %q", r.body, want)
		}
	}
	if strings.Contains(string(r.body), "hasMore") {
		t.Errorf("hasMore not removed: %s", r.body)
	}
	// Mutate also edits error answers and job objects.
	s.AddFault(mintlifytest.Fault{Endpoint: "get_job", Times: 1, Mutate: func(body map[string]any) {
		body["status"] = 7
		body["createdAt"] = "yesterday"
	}})
	r = get(t, s, "/v2/agent/proj/job/job1")
	if !strings.Contains(string(r.body), `"status":7`) || !strings.Contains(string(r.body), `"createdAt":"yesterday"`) {
		t.Fatalf("mutated job %s", r.body)
	}
	// A non-object body is left alone.
	called := false
	s.AddFault(mintlifytest.Fault{Endpoint: "get_job", Body: "[1]", Times: 1, Mutate: func(map[string]any) { called = true }})
	if r := get(t, s, "/v2/agent/proj/job/job1"); string(r.body) != "[1]" || called {
		t.Fatalf("non-object body: %q, Mutate called %v", r.body, called)
	}
}

func TestFaultRequestsAreLoggedButNotLimited(t *testing.T) {
	s := faultServer(t)
	s.EnableRateLimit(1)
	s.AddFault(mintlifytest.Fault{Endpoint: "visitors", Status: 500, Times: 3})
	for range 3 {
		wantError(t, get(t, s, "/v1/analytics/proj/visitors"), 500)
	}
	if r := get(t, s, "/v1/analytics/proj/visitors"); r.status != 200 {
		t.Fatalf("faulted requests spent the rate limit: %d", r.status)
	}
	if n := s.CountRequests("visitors"); n != 4 {
		t.Fatalf("CountRequests = %d", n)
	}
}
