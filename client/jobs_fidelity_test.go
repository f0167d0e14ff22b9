package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// addJobs replaces the test project's jobs by n completed jobs j000..,
// newest first by number, and returns their ids in that order.
func addJobs(h *harness, n int) []string {
	h.srv.RemoveJob(testProject, "job-1")
	for i := range 1000 {
		h.srv.RemoveJob(testProject, fmt.Sprintf("j%03d", i))
	}
	ids := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("j%03d", i)
		h.srv.AddJob(testProject, mintlifytest.JobSpec{ID: ids[i], Status: "completed", CreatedAt: testEnd.Add(-time.Duration(i) * time.Minute)})
	}
	return ids
}

// listQueries returns the skip/take of every list_jobs request.
func listQueries(h *harness) []string {
	var out []string
	for _, r := range h.requests() {
		if r.Endpoint == mintlifytest.EndpointListJobs {
			out = append(out, "skip="+r.Query.Get("skip")+"&take="+r.Query.Get("take"))
		}
	}
	return out
}

func TestListJobsV1DiscoversEveryJob(t *testing.T) {
	h := jobHarness(t, nil)
	ids := addJobs(h, 250)
	sessions, err := h.c.ListJobsV1(context.Background(), testProject)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(sessions))
	for i, s := range sessions {
		got[i] = s.SessionID
	}
	if !slices.Equal(got, ids) {
		t.Errorf("discovered %d sessions, want all %d in the listing's order", len(got), len(ids))
	}
	if q := listQueries(h); !slices.Equal(q, []string{"skip=0&take=100", "skip=100&take=100", "skip=200&take=100"}) {
		t.Errorf("requests %v", q)
	}

	// Exactly a multiple of take: the walk needs the empty page to know.
	h.reset()
	addJobs(h, 200)
	if sessions, err = h.c.ListJobsV1(context.Background(), testProject); err != nil || len(sessions) != 200 {
		t.Fatalf("200 jobs: %d sessions, %v", len(sessions), err)
	}
	if q := listQueries(h); len(q) != 3 || q[2] != "skip=200&take=100" {
		t.Errorf("requests %v", q)
	}

	// No jobs: one request, an empty non-nil list.
	h.reset()
	addJobs(h, 0)
	if sessions, err = h.c.ListJobsV1(context.Background(), testProject); err != nil || sessions == nil || len(sessions) != 0 {
		t.Errorf("no jobs: %v, %v", sessions, err)
	}
}

func TestListJobsV1Bounds(t *testing.T) {
	h := jobHarness(t, nil)
	// A server that ignores skip sends the same full page forever.
	full := make([]any, client.ListJobsMaxTake)
	for i := range full {
		full[i] = map[string]any{"sessionId": fmt.Sprintf("s%d", i)}
	}
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointListJobs, Mutate: func(b map[string]any) { b["allSessions"] = full }})
	_, err := h.c.ListJobsV1(context.Background(), testProject)
	if !errors.Is(err, client.ErrTooManyPages) {
		t.Errorf("full pages forever: %v, want ErrTooManyPages", err)
	}
	last := fmt.Sprintf("skip=%d&take=%d", (client.DefaultListJobsMaxPages-1)*client.ListJobsMaxTake, client.ListJobsMaxTake)
	if q := listQueries(h); len(q) != client.DefaultListJobsMaxPages || q[len(q)-1] != last {
		t.Errorf("%d requests, the last %v, want %d ending with %s", len(q), q[len(q)-1:], client.DefaultListJobsMaxPages, last)
	}

	// A job created during the walk shifts the listing: the session seen at
	// the end of page 1 comes again at the start of page 2, and is kept once.
	h = jobHarness(t, nil)
	ids := addJobs(h, 250)
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointListJobs, AfterN: 1, Times: 1, Mutate: func(b map[string]any) {
		rows := b["allSessions"].([]any)
		dup := map[string]any{"sessionId": ids[99], "haulted": true, "haultReason": "completed"}
		b["allSessions"] = append([]any{dup}, rows[:len(rows)-1]...)
	}})
	s, err := h.c.ListJobsV1(context.Background(), testProject)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range s {
		got = append(got, x.SessionID)
	}
	want := slices.Delete(slices.Clone(ids), 199, 200) // the row pushed off page 2
	if !slices.Equal(got, want) {
		t.Errorf("sessions %v, want %v", got, want)
	}
}

func TestListJobsV1HaultReasons(t *testing.T) {
	h := jobHarness(t, nil)
	h.srv.AddJob(testProject, mintlifytest.JobSpec{ID: "stopped", Status: "active", CreatedAt: testEnd})
	h.srv.AddJob(testProject, mintlifytest.JobSpec{ID: "misconfigured", Status: "failed", HaultReason: "github_missconfigured", CreatedAt: testEnd})
	h.srv.AddJob(testProject, mintlifytest.JobSpec{ID: "new-reason", Status: "failed", HaultReason: "quota_exhausted", CreatedAt: testEnd})
	h.srv.InterruptJob(testProject, "stopped")
	sessions, err := h.c.ListJobsV1(context.Background(), testProject)
	if err != nil {
		t.Fatal(err)
	}
	got := make(map[string]client.JobStatus)
	for _, s := range sessions {
		got[s.SessionID] = s.Status()
	}
	want := map[string]client.JobStatus{
		"job-1":         client.StatusActive, // haultReason processing
		"stopped":       client.StatusCompleted,
		"misconfigured": client.StatusFailed,
		"new-reason":    "quota_exhausted",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %q, want %q", id, got[id], w)
		}
	}
}

func TestGetJobWithoutFields(t *testing.T) {
	h := jobHarness(t, nil)
	h.srv.AddJob(testProject, mintlifytest.JobSpec{ID: "bare", Omit: []string{"id", "status", "source", "model", "prLink", "createdAt", "archivedAt"}})
	h.srv.AddJob(testProject, mintlifytest.JobSpec{ID: "no-created", Omit: []string{"createdAt"}})
	h.srv.AddJob(testProject, mintlifytest.JobSpec{ID: "null-created", NullCreatedAt: true, Status: "completed"})
	h.srv.AddJob(testProject, mintlifytest.JobSpec{ID: "no-repo", Ref: "main", Omit: []string{"source.repository", "model"}})

	j, err := h.c.GetJob(context.Background(), testProject, "bare")
	if err != nil {
		t.Fatalf("a job without any field: %v", err)
	}
	if j.ID != "bare" || j.Status != "" || j.Status.Known() || j.Status.Terminal() || j.Model != "" ||
		j.Source != (client.JobSource{}) || j.PRLink != nil || !j.CreatedAt.IsZero() || j.ArchivedAt != nil || string(j.Raw) != "{}" {
		t.Errorf("bare job %+v", j)
	}
	for _, id := range []string{"no-created", "null-created"} {
		j, err := h.c.GetJob(context.Background(), testProject, id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if !j.CreatedAt.IsZero() || j.ID != id || j.Status == "" || j.Model == "" {
			t.Errorf("%s: %+v", id, j)
		}
	}
	j, err = h.c.GetJob(context.Background(), testProject, "no-repo")
	if err != nil {
		t.Fatal(err)
	}
	if j.Source.Repository != "" || j.Source.Ref == nil || *j.Source.Ref != "main" || j.Model != "" || j.CreatedAt.IsZero() {
		t.Errorf("no-repo: %+v", j)
	}
	// send-message answers are read the same way.
	if j, err = h.c.SendMessage(context.Background(), testProject, "bare", "go on"); err != nil || j.ID != "bare" {
		t.Errorf("send-message to a bare job: %+v, %v", j, err)
	}
}

func TestJobsFromTheFuture(t *testing.T) {
	h := jobHarness(t, nil)
	future := func(b map[string]any) {
		b["status"] = "waiting_for_review"
		b["title"] = "Fix the quickstart"
		b["userId"] = "user_123"
		b["cost"] = map[string]any{"tokens": 12345, "usd": 0.12, "breakdown": []any{1, 2, 3}}
		b["labels"] = []any{"docs", map[string]any{"nested": []any{nil, true}}}
		b["resolutionStatus"] = nil
		if src, ok := b["source"].(map[string]any); ok {
			src["provider"] = "github"
			src["commit"] = map[string]any{"sha": "abc"}
		}
	}
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Mutate: future})
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointListJobs, Mutate: func(b map[string]any) {
		b["nextCursor"] = "abc"
		b["total"] = 1
		for _, s := range b["allSessions"].([]any) {
			s := s.(map[string]any)
			s["haulted"], s["haultReason"] = true, "paused_by_policy"
			s["title"], s["userId"], s["priority"] = "t", "u", map[string]any{"level": 3}
		}
	}})
	j, err := h.c.GetJob(context.Background(), testProject, "job-1")
	if err != nil {
		t.Fatalf("a job with future fields: %v", err)
	}
	if j.Status != "waiting_for_review" || j.Status.Known() || j.ID != "job-1" || j.Source.Ref == nil || *j.Source.Ref != "main" {
		t.Errorf("job %+v", j)
	}
	if !strings.Contains(string(j.Raw), `"userId":"user_123"`) {
		t.Errorf("Raw lost the unknown fields: %s", j.Raw)
	}
	sessions, err := h.c.ListJobsV1(context.Background(), testProject)
	if err != nil {
		t.Fatalf("a listing with future fields: %v", err)
	}
	if len(sessions) != 1 || sessions[0].Status() != "paused_by_policy" {
		t.Errorf("sessions %+v", sessions)
	}
}

func TestForbiddenSaysWhy(t *testing.T) {
	const ro = "mint_readonly000000000000000000000"
	h := jobHarness(t, func(c *client.Config) { c.Key, _ = client.StaticKey(ro) })
	h.srv.SetKeyScopes(ro, mintlifytest.ScopeRead)

	// A read-only key reads everything the exporter needs.
	if _, err := h.c.GetJob(context.Background(), testProject, "job-1"); err != nil {
		t.Errorf("read-only key, get job: %v", err)
	}
	if _, err := h.c.ListJobsV1(context.Background(), testProject); err != nil {
		t.Errorf("read-only key, list jobs: %v", err)
	}
	// ... but cannot send a message.
	_, err := h.c.SendMessage(context.Background(), testProject, "job-1", "more")
	want := "send_message: HTTP 403: API key does not have the write scope: the key needs the write scope, or this IP is not on the organization's allowlist"
	if err == nil || err.Error() != want || !client.IsRefused(err) || client.IsUnauthorized(err) {
		t.Errorf("read-only key, send message:\n got %v\nwant %s", err, want)
	}

	// Outside the allowlist every endpoint is refused; a GET's error names
	// the allowlist first, and the read scope.
	h.srv.SetAllowlist(netip.MustParsePrefix("192.0.2.0/24"))
	for _, o := range getOps {
		err := o.run(h, context.Background())
		if !client.IsRefused(err) || client.IsUnauthorized(err) || !strings.HasSuffix(err.Error(), ": this IP is not on the organization's allowlist, or the key lacks the read scope") {
			t.Errorf("%s outside the allowlist: %v", o.name, err)
		}
		if strings.Contains(err.Error(), ro) {
			t.Errorf("%s: the key is in the error", o.name)
		}
	}
	// A 401 is not a 403 and carries no scope advice.
	h.srv.SetAllowlist()
	h.srv.RevokeKey(ro)
	_, err = h.c.GetJob(context.Background(), testProject, "job-1")
	if !client.IsUnauthorized(err) || !client.IsRefused(err) || strings.Contains(err.Error(), "scope") {
		t.Errorf("revoked key: %v", err)
	}
}
