package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

func TestSendMessagePrompts(t *testing.T) {
	h := jobHarness(t, nil)
	prompts := []string{
		"Fix the typo on /quickstart",
		"Zeile 1\nZeile 2\r\n\ttabbed — «quotes» \"double\" 'single' \\ back/slash <b>&amp;</b> 😀 中文 \u2028",
		strings.Repeat("0123456789", 1000), // 10,000 bytes
		strings.Repeat("é", 5000),          // 10,000 bytes, 5,000 characters
		strings.Repeat("日本語のテキスト", 1250),   // 30,000 bytes, 10,000 characters (the fake's limit)
		" ",
	}
	for _, p := range prompts {
		job, err := h.c.SendMessage(context.Background(), testProject, "job-1", p)
		if err != nil {
			t.Fatalf("prompt of %d bytes: %v", len(p), err)
		}
		if job.ID != "job-1" || job.Status != client.StatusActive || job.PRLink != nil {
			t.Errorf("job %+v", job)
		}
	}
	if got := h.srv.Messages(testProject, "job-1"); !slices.Equal(got, prompts) {
		t.Errorf("the fake received different prompts")
	}
	for i, r := range h.requests() {
		var body map[string]any
		if err := json.Unmarshal(r.Body, &body); err != nil || len(body) != 1 || body["prompt"] != prompts[i] {
			t.Errorf("request %d body %.80q: want exactly {\"prompt\": ...}", i, r.Body)
		}
		if r.Method != "POST" || r.Path != "/v2/agent/"+testProject+"/job/job-1/message" {
			t.Errorf("request %d: %s %s", i, r.Method, r.Path)
		}
	}

	h.reset()
	_, err := h.c.SendMessage(context.Background(), testProject, "job-1", "")
	if !errors.Is(err, client.ErrEmptyPrompt) {
		t.Errorf("empty prompt: %v", err)
	}
	for _, id := range [][2]string{{"", "job-1"}, {testProject, ""}, {testProject, ".."}} {
		if _, err := h.c.SendMessage(context.Background(), id[0], id[1], "x"); err == nil {
			t.Errorf("project %q job %q accepted", id[0], id[1])
		}
		if _, err := h.c.GetJob(context.Background(), id[0], id[1]); err == nil {
			t.Errorf("GetJob project %q job %q accepted", id[0], id[1])
		}
	}
	if _, err := h.c.ListJobsV1(context.Background(), ""); err == nil {
		t.Error("ListJobsV1 of an empty project accepted")
	}
	if n := len(h.requests()); n != 0 {
		t.Errorf("%d requests sent for refused calls", n)
	}

	// Over the fake's limit: the API's 400, not retried.
	_, err = h.c.SendMessage(context.Background(), testProject, "job-1", strings.Repeat("x", 10001))
	if statusOf(err) != 400 || !strings.Contains(err.Error(), "at most 10000 characters") {
		t.Errorf("long prompt: %v", err)
	}
	// Unknown job: 404.
	if _, err := h.c.SendMessage(context.Background(), testProject, "nope", "x"); !client.IsNotFound(err) {
		t.Errorf("unknown job: %v", err)
	}
}

func TestGetJobLifecycle(t *testing.T) {
	now := testClock()
	clock := func() time.Time { return now }
	ds, _ := generated(1)
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds), mintlifytest.WithClock(func() time.Time { return clock() }))
	h.srv.AddJob(testProject, mintlifytest.JobSpec{ID: "run", Repository: "acme/docs", RunFor: time.Minute, CreatedAt: now.Add(-time.Hour)})

	j, err := h.c.GetJob(context.Background(), testProject, "run")
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != client.StatusActive || j.Status.Terminal() || j.PRLink != nil || j.Source.Ref != nil || !j.CreatedAt.Equal(now.Add(-time.Hour)) {
		t.Errorf("active job %+v", j)
	}
	now = now.Add(2 * time.Minute)
	if j, err = h.c.GetJob(context.Background(), testProject, "run"); err != nil {
		t.Fatal(err)
	}
	if j.Status != client.StatusCompleted || j.PRLink == nil || !strings.HasPrefix(*j.PRLink, "https://github.com/acme/docs/pull/") {
		t.Errorf("completed job %+v", j)
	}
	// A message makes it active again, with no PR link.
	if j, err = h.c.SendMessage(context.Background(), testProject, "run", "one more change"); err != nil {
		t.Fatal(err)
	}
	if j.Status != client.StatusActive || j.PRLink != nil {
		t.Errorf("after a message: %+v", j)
	}
	h.srv.SetJobStatus(testProject, "run", "archived")
	if j, err = h.c.GetJob(context.Background(), testProject, "run"); err != nil {
		t.Fatal(err)
	}
	if j.Status != client.StatusArchived || j.ArchivedAt == nil || !j.ArchivedAt.Equal(now) {
		t.Errorf("archived job %+v", j)
	}
	h.srv.SetJobStatus(testProject, "run", "waiting_for_review")
	if j, err = h.c.GetJob(context.Background(), testProject, "run"); err != nil {
		t.Fatal(err)
	}
	if j.Status != "waiting_for_review" || j.Status.Known() || j.Status.Terminal() {
		t.Errorf("unknown status: %q", j.Status)
	}
	var raw struct{ Status string }
	if err := json.Unmarshal(j.Raw, &raw); err != nil || raw.Status != "waiting_for_review" {
		t.Errorf("Raw %s", j.Raw)
	}
}

func TestListJobsV1(t *testing.T) {
	h := jobHarness(t, nil)
	base := testClock().Add(-24 * time.Hour)
	specs := []mintlifytest.JobSpec{
		{ID: "a-active", Ref: "feature", CreatedAt: base.Add(5 * time.Minute)},
		{ID: "b-completed", Status: "completed", CreatedAt: base.Add(4 * time.Minute)},
		{ID: "c-failed", Status: "failed", CreatedAt: base.Add(3 * time.Minute)},
		{ID: "d-archived", Status: "archived", CreatedAt: base.Add(2 * time.Minute)},
		{ID: "e-odd", Status: "paused", CreatedAt: base.Add(1 * time.Minute)},
	}
	h.srv.RemoveJob(testProject, "job-1")
	for _, s := range specs {
		h.srv.AddJob(testProject, s)
	}
	sessions, err := h.c.ListJobsV1(context.Background(), testProject)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		id     string
		status client.JobStatus
	}
	var gots []got
	for _, s := range sessions {
		gots = append(gots, got{s.SessionID, s.Status()})
	}
	want := []got{{"a-active", client.StatusActive}, {"b-completed", client.StatusCompleted}, {"c-failed", client.StatusFailed}, {"e-odd", "paused"}}
	if !slices.Equal(gots, want) {
		t.Errorf("sessions %v, want %v", gots, want)
	}
	if a := sessions[0]; a.Haulted || a.HaultReason != "processing" {
		t.Errorf("session %+v", a)
	}
	if b := sessions[1]; !b.Haulted || b.HaultReason != "completed" {
		t.Errorf("completed session %+v", b)
	}

	// No jobs: an empty, non-nil list.
	for _, s := range specs {
		h.srv.RemoveJob(testProject, s.ID)
	}
	sessions, err = h.c.ListJobsV1(context.Background(), testProject)
	if err != nil || sessions == nil || len(sessions) != 0 {
		t.Errorf("empty listing: %v, %v", sessions, err)
	}
	if _, err := h.c.ListJobsV1(context.Background(), "unknown-project"); !client.IsNotFound(err) {
		t.Errorf("unknown project: %v", err)
	}
}

func TestLegacySessionStatus(t *testing.T) {
	for _, tc := range []struct {
		haulted bool
		reason  string
		want    client.JobStatus
	}{
		{false, "", client.StatusActive},
		{false, "completed", client.StatusActive},
		{true, "completed", client.StatusCompleted},
		{true, "github_missconfigured", client.StatusFailed},
		{true, "error", client.StatusFailed},
		{false, "processing", client.StatusActive},
		{true, "processing", client.StatusActive},
		{true, "interrupted", client.StatusCompleted},
		{false, "interrupted", client.StatusActive},
		{true, "", "haulted"},
		{true, "cancelled", "cancelled"},
		{true, "Completed", "Completed"},
	} {
		s := client.LegacySession{Haulted: tc.haulted, HaultReason: tc.reason}
		if got := s.Status(); got != tc.want {
			t.Errorf("haulted %v reason %q: %q, want %q", tc.haulted, tc.reason, got, tc.want)
		}
	}
}

func TestCreateJob(t *testing.T) {
	h := jobHarness(t, nil)
	prompt := "Readers gave the page \"/quickstart\" many thumbs down.\nFix it."
	job, err := h.c.CreateJob(context.Background(), testProject, prompt)
	if err != nil {
		t.Fatal(err)
	}
	if job.ID == "" || job.Status != client.StatusActive {
		t.Errorf("job %+v", job)
	}
	if got := h.srv.Messages(testProject, job.ID); !slices.Equal(got, []string{prompt}) {
		t.Errorf("the fake's job holds prompts %q, want the one sent", got)
	}
	reqs := h.requests()
	if len(reqs) != 1 || reqs[0].Method != "POST" || reqs[0].Path != "/v2/agent/"+testProject+"/job" {
		t.Fatalf("requests %+v, want one POST /v2/agent/%s/job", reqs, testProject)
	}
	var body map[string]any
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil || len(body) != 1 || body["prompt"] != prompt {
		t.Errorf("body %q: want exactly {\"prompt\": ...}", reqs[0].Body)
	}
	got, err := h.c.GetJob(context.Background(), testProject, job.ID)
	if err != nil || got.ID != job.ID {
		t.Errorf("reading the new job back: %+v, %v", got, err)
	}

	h.reset()
	if _, err := h.c.CreateJob(context.Background(), testProject, ""); !errors.Is(err, client.ErrEmptyPrompt) {
		t.Errorf("empty prompt: %v", err)
	}
	if _, err := h.c.CreateJob(context.Background(), "..", "x"); err == nil {
		t.Error("project .. accepted")
	}
	if n := len(h.requests()); n != 0 {
		t.Errorf("%d requests sent for refused calls", n)
	}
	if _, err := h.c.CreateJob(context.Background(), "no-such-project", "x"); !client.IsNotFound(err) {
		t.Errorf("unknown project: %v", err)
	}
}
