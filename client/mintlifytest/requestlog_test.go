package mintlifytest_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

func TestRequestLog(t *testing.T) {
	s, _ := newServer(t, mintlifytest.WithProject("proj", tinyDataset()))
	s.AddJob("proj", mintlifytest.JobSpec{ID: "job1"})
	get(t, s, "/v1/analytics/proj/visitors?limit=5&dateFrom=2025-03-01")
	postJSON(t, s, "/v2/agent/proj/job/job1/message", `{"prompt":"hello"}`)
	call(t, "GET", s.URL()+"/v2/agent/proj/job/job1", "Bearer nope", "", nil)
	call(t, "GET", s.URL()+"/elsewhere", "", "", nil)

	reqs := s.Requests()
	want := []mintlifytest.Request{
		{Method: "GET", Path: "/v1/analytics/proj/visitors", Endpoint: "visitors", Project: "proj", Authorized: true, AuthHeader: "Bearer " + mintlifytest.DefaultKey, Status: 200},
		{Method: "POST", Path: "/v2/agent/proj/job/job1/message", Endpoint: "send_message", Project: "proj", Authorized: true, AuthHeader: "Bearer " + mintlifytest.DefaultKey, Status: 200},
		{Method: "GET", Path: "/v2/agent/proj/job/job1", Endpoint: "get_job", Project: "proj", AuthHeader: "Bearer nope", Status: 401},
		{Method: "GET", Path: "/elsewhere", Status: 404},
	}
	if len(reqs) != len(want) {
		t.Fatalf("%d requests logged", len(reqs))
	}
	for i, w := range want {
		g := reqs[i]
		if g.Method != w.Method || g.Path != w.Path || g.Endpoint != w.Endpoint || g.Project != w.Project ||
			g.Authorized != w.Authorized || g.AuthHeader != w.AuthHeader || g.Status != w.Status {
			t.Errorf("request %d: %+v, want %+v", i, g, w)
		}
	}
	if q := reqs[0].Query; q.Get("limit") != "5" || q.Get("dateFrom") != "2025-03-01" {
		t.Errorf("query %v", q)
	}
	if string(reqs[1].Body) != `{"prompt":"hello"}` {
		t.Errorf("body %q", reqs[1].Body)
	}
	if reqs[0].Body != nil {
		t.Errorf("GET body %q", reqs[0].Body)
	}
	for ep, n := range map[string]int{"visitors": 1, "send_message": 1, "get_job": 1, "list_jobs": 0, "": 4} {
		if got := s.CountRequests(ep); got != n {
			t.Errorf("CountRequests(%q) = %d, want %d", ep, got, n)
		}
	}
	reqs[0].Path = "/changed"
	if s.Requests()[0].Path == "/changed" {
		t.Error("Requests() exposes the log")
	}
	s.ResetRequests()
	if n := len(s.Requests()); n != 0 {
		t.Fatalf("%d requests after ResetRequests", n)
	}
}

func TestConcurrentUse(t *testing.T) {
	s, c := newServer(t, mintlifytest.WithProject("proj", mintlifytest.Generate(mintlifytest.GenerateOptions{
		Seed: 1, Paths: 500, Days: 7, End: t0,
	})), mintlifytest.WithRateLimit(100000))
	s.AddJob("proj", mintlifytest.JobSpec{ID: "job1", RunFor: 1})
	_, want := s.Visitors("proj", day(-6), day(1))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 10 {
				_, rows, _ := page(t, s, visitorsPath("proj", day(-6), day(1), 50, 50*i))
				if rows[0] != want[50*i] {
					t.Errorf("goroutine %d page %d: %+v", g, i, rows[0])
				}
				get(t, s, "/v2/agent/proj/job/job1")
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			c.Advance(1)
			s.SetKeys(mintlifytest.DefaultKey)
			s.AddFault(mintlifytest.Fault{Endpoint: "list_jobs"})
			s.SetJobStatus("proj", "job1", "active")
			s.Requests()
			s.SetProject("other", tinyDataset())
		}
	})
	wg.Wait()
	if n := s.CountRequests(http.MethodGet); n != 0 {
		t.Fatalf("CountRequests(GET) = %d: endpoints are not methods", n)
	}
}
