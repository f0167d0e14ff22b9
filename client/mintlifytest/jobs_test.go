package mintlifytest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// jobJSON is the v2 job object, decoded strictly.
type jobJSON struct {
	ID     *string `json:"id"`
	Status *string `json:"status"`
	Source *struct {
		Repository *string `json:"repository"`
		Ref        *string `json:"ref"`
	} `json:"source"`
	Model      *string `json:"model"`
	PRLink     *string `json:"prLink"`
	CreatedAt  *string `json:"createdAt"`
	ArchivedAt *string `json:"archivedAt"`
}

// getJob fetches a job and checks that every field is present.
func getJob(t *testing.T, s *mintlifytest.Server, project, id string) jobJSON {
	t.Helper()
	r := get(t, s, "/v2/agent/"+project+"/job/"+id)
	if r.status != http.StatusOK {
		t.Fatalf("get job %s: %d %s", id, r.status, r.body)
	}
	return decodeJob(t, r.body)
}

func decodeJob(t *testing.T, b []byte) jobJSON {
	t.Helper()
	var j jobJSON
	decodeStrict(t, b, &j)
	for _, key := range []string{`"id":`, `"status":`, `"source":`, `"repository":`, `"ref":`, `"model":`, `"prLink":`, `"createdAt":`, `"archivedAt":`} {
		if !strings.Contains(string(b), key) {
			t.Fatalf("job without %s: %s", key, b)
		}
	}
	if j.ID == nil || j.Status == nil || j.Source == nil || j.Source.Repository == nil || j.Model == nil || j.CreatedAt == nil {
		t.Fatalf("job with null required fields: %s", b)
	}
	if _, err := time.Parse(time.RFC3339, *j.CreatedAt); err != nil || !strings.HasSuffix(*j.CreatedAt, "Z") {
		t.Fatalf("createdAt %q is not RFC 3339 UTC", *j.CreatedAt)
	}
	return j
}

func TestJobStateMachine(t *testing.T) {
	s, c := newServer(t)
	created := t0.Add(-time.Hour)
	s.AddJob("proj", mintlifytest.JobSpec{
		ID: "job1", Repository: "acme/handbook", Ref: "main", Model: "m1",
		RunFor: 10 * time.Minute, CreatedAt: created,
	})
	j := getJob(t, s, "proj", "job1")
	if *j.Status != "active" || j.PRLink != nil || j.ArchivedAt != nil {
		t.Fatalf("new job: %+v", j)
	}
	if *j.Source.Repository != "https://github.com/acme/handbook" || *j.Source.Ref != "main" || *j.Model != "m1" || *j.ID != "job1" {
		t.Fatalf("job fields: %+v %+v", j, j.Source)
	}
	if *j.CreatedAt != "2025-03-10T11:00:00.000Z" {
		t.Fatalf("createdAt %s", *j.CreatedAt)
	}
	c.Advance(10*time.Minute - time.Second)
	if j := getJob(t, s, "proj", "job1"); *j.Status != "active" {
		t.Fatalf("completed before RunFor: %s", *j.Status)
	}
	c.Advance(time.Second)
	j = getJob(t, s, "proj", "job1")
	if *j.Status != "completed" || j.PRLink == nil || !strings.HasPrefix(*j.PRLink, "https://github.com/acme/handbook/pull/") {
		t.Fatalf("after RunFor: status %s prLink %v", *j.Status, j.PRLink)
	}
	firstPR := *j.PRLink

	// A message makes it active again, prLink null, RunFor counted anew.
	r := postJSON(t, s, "/v2/agent/proj/job/job1/message", `{"prompt":"also fix the typo"}`)
	if r.status != http.StatusOK {
		t.Fatalf("message: %d %s", r.status, r.body)
	}
	j = decodeJob(t, r.body)
	if *j.Status != "active" || j.PRLink != nil {
		t.Fatalf("after message: status %s prLink %v", *j.Status, j.PRLink)
	}
	c.Advance(5 * time.Minute)
	if j := getJob(t, s, "proj", "job1"); *j.Status != "active" {
		t.Fatalf("RunFor not restarted by the message: %s", *j.Status)
	}
	c.Advance(5 * time.Minute)
	j = getJob(t, s, "proj", "job1")
	if *j.Status != "completed" || j.PRLink == nil || *j.PRLink == firstPR {
		t.Fatalf("second completion: status %s prLink %v (first %s)", *j.Status, j.PRLink, firstPR)
	}

	// Archiving sets archivedAt and keeps the rest.
	c.Advance(time.Hour)
	s.SetJobStatus("proj", "job1", "archived")
	j = getJob(t, s, "proj", "job1")
	if *j.Status != "archived" || j.ArchivedAt == nil || *j.ArchivedAt != "2025-03-10T13:20:00.000Z" || j.PRLink == nil {
		t.Fatalf("archived: %+v archivedAt %v", *j.Status, j.ArchivedAt)
	}
	if got := s.Messages("proj", "job1"); len(got) != 1 || got[0] != "also fix the typo" {
		t.Fatalf("Messages() = %q", got)
	}
}

func TestJobOutcomes(t *testing.T) {
	s, c := newServer(t)
	s.AddJob("proj", mintlifytest.JobSpec{ID: "fails", RunFor: time.Minute, Outcome: "failed"})
	s.AddJob("proj", mintlifytest.JobSpec{ID: "nochange", RunFor: time.Minute, NoChanges: true})
	s.AddJob("proj", mintlifytest.JobSpec{ID: "forever"})
	s.AddJob("proj", mintlifytest.JobSpec{ID: "done", Status: "completed"})
	s.AddJob("proj", mintlifytest.JobSpec{ID: "weird", Status: "paused"})
	c.Advance(24 * time.Hour)
	want := map[string]struct {
		status string
		pr     bool
	}{
		"fails":    {"failed", false},
		"nochange": {"completed", false},
		"forever":  {"active", false},
		"done":     {"completed", true},
		"weird":    {"paused", false},
	}
	for id, w := range want {
		j := getJob(t, s, "proj", id)
		if *j.Status != w.status || (j.PRLink != nil) != w.pr {
			t.Errorf("%s: status %s prLink %v, want %s with PR %v", id, *j.Status, j.PRLink, w.status, w.pr)
		}
		if j.Source.Ref != nil {
			t.Errorf("%s: ref %q, want null", id, *j.Source.Ref)
		}
	}
	s.SetJobStatus("proj", "forever", "some-new-status")
	if j := getJob(t, s, "proj", "forever"); *j.Status != "some-new-status" {
		t.Errorf("unknown status not passed through: %s", *j.Status)
	}
	s.SetJobStatus("proj", "fails", "completed")
	if j := getJob(t, s, "proj", "fails"); *j.Status != "completed" || j.PRLink == nil {
		t.Errorf("SetJobStatus completed: %s %v", *j.Status, j.PRLink)
	}
	s.RemoveJob("proj", "done")
	wantError(t, get(t, s, "/v2/agent/proj/job/done"), http.StatusNotFound)
	if s.Messages("proj", "done") != nil {
		t.Error("Messages of a removed job")
	}
}

func TestSendMessageValidation(t *testing.T) {
	s, _ := newServer(t)
	s.AddJob("proj", mintlifytest.JobSpec{ID: "job1"})
	long := strings.Repeat("é", 10000)
	tests := []struct {
		name, contentType, body string
		status                  int
	}{
		{"ok", "application/json", `{"prompt":"hi"}`, http.StatusOK},
		{"charset", "application/json; charset=utf-8", `{"prompt":"hi"}`, http.StatusOK},
		{"extra fields", "application/json", `{"prompt":"hi","other":1}`, http.StatusOK},
		{"10000 chars", "application/json", `{"prompt":"` + long + `"}`, http.StatusOK},
		{"10001 chars", "application/json", `{"prompt":"` + long + `x"}`, http.StatusBadRequest},
		{"empty prompt", "application/json", `{"prompt":""}`, http.StatusBadRequest},
		{"missing prompt", "application/json", `{"message":"hi"}`, http.StatusBadRequest},
		{"null prompt", "application/json", `{"prompt":null}`, http.StatusBadRequest},
		{"number prompt", "application/json", `{"prompt":5}`, http.StatusBadRequest},
		{"bad JSON", "application/json", `{"prompt":`, http.StatusBadRequest},
		{"array", "application/json", `["hi"]`, http.StatusBadRequest},
		{"empty body", "application/json", ``, http.StatusBadRequest},
		{"two objects", "application/json", `{"prompt":"a"}{"prompt":"b"}`, http.StatusBadRequest},
		{"text body", "text/plain", `{"prompt":"hi"}`, http.StatusBadRequest},
		{"no content type", "", `{"prompt":"hi"}`, http.StatusBadRequest},
	}
	accepted := 0
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, http.MethodPost, s.URL()+"/v2/agent/proj/job/job1/message", "Bearer "+mintlifytest.DefaultKey, tc.contentType, []byte(tc.body))
			if tc.status == http.StatusOK {
				if r.status != http.StatusOK {
					t.Fatalf("status %d: %s", r.status, r.body)
				}
				accepted++
				return
			}
			wantError(t, r, tc.status)
		})
	}
	if got := s.Messages("proj", "job1"); len(got) != accepted {
		t.Fatalf("%d messages recorded, %d accepted", len(got), accepted)
	}
	wantError(t, postJSON(t, s, "/v2/agent/proj/job/nope/message", `{"prompt":"hi"}`), http.StatusNotFound)
}

func TestSendMessageRateLimit(t *testing.T) {
	s, c := newServer(t)
	s.AddJob("proj", mintlifytest.JobSpec{ID: "job1"})
	s.AddJob("other", mintlifytest.JobSpec{ID: "job1"})
	for i := range 100 {
		if r := postJSON(t, s, "/v2/agent/proj/job/job1/message", `{"prompt":"go"}`); r.status != http.StatusOK {
			t.Fatalf("message %d: %d %s", i, r.status, r.body)
		}
		c.Advance(time.Second)
	}
	r := postJSON(t, s, "/v2/agent/proj/job/job1/message", `{"prompt":"one more"}`)
	wantError(t, r, http.StatusTooManyRequests)
	if ra := r.header.Get("Retry-After"); ra != "3500" {
		t.Fatalf("Retry-After %q, want 3500", ra)
	}
	if r := postJSON(t, s, "/v2/agent/other/job/job1/message", `{"prompt":"go"}`); r.status != http.StatusOK {
		t.Fatalf("the limit is per project: %d", r.status)
	}
	c.Advance(3500 * time.Second)
	if r := postJSON(t, s, "/v2/agent/proj/job/job1/message", `{"prompt":"go"}`); r.status != http.StatusOK {
		t.Fatalf("after the window slid: %d", r.status)
	}
	if n := len(s.Messages("proj", "job1")); n != 101 {
		t.Fatalf("%d messages recorded", n)
	}
}

func TestCreateJob(t *testing.T) {
	s, _ := newServer(t, mintlifytest.WithProject("proj", nil))
	r := postJSON(t, s, "/v2/agent/proj/job", `{"prompt":"document the API"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	j := decodeJob(t, r.body)
	if *j.Status != "active" {
		t.Fatalf("created job status %s", *j.Status)
	}
	if got := getJob(t, s, "proj", *j.ID); *got.ID != *j.ID {
		t.Fatal("created job not readable")
	}
	if m := s.Messages("proj", *j.ID); len(m) != 1 || m[0] != "document the API" {
		t.Fatalf("Messages() = %q", m)
	}
	wantError(t, postJSON(t, s, "/v2/agent/proj/job", `{"prompt":""}`), http.StatusBadRequest)
	wantError(t, postJSON(t, s, "/v2/agent/nope/job", `{"prompt":"x"}`), http.StatusNotFound)
}

// session is a v1 listing element, decoded strictly.
type session struct {
	SessionID       string  `json:"sessionId"`
	Subdomain       string  `json:"subdomain"`
	Branch          string  `json:"branch"`
	Haulted         bool    `json:"haulted"`
	HaultReason     *string `json:"haultReason"`
	PullRequestLink *string `json:"pullRequestLink"`
	MessageToUser   string  `json:"messageToUser"`
	Todos           []any   `json:"todos"`
	CreatedAt       string  `json:"createdAt"`
}

func TestListJobs(t *testing.T) {
	s, c := newServer(t)
	s.AddJob("proj", mintlifytest.JobSpec{ID: "a", CreatedAt: t0.Add(-4 * time.Hour), Ref: "docs-update"})
	s.AddJob("proj", mintlifytest.JobSpec{ID: "b", CreatedAt: t0.Add(-3 * time.Hour), RunFor: time.Minute})
	s.AddJob("proj", mintlifytest.JobSpec{ID: "c", CreatedAt: t0.Add(-2 * time.Hour), RunFor: time.Minute, Outcome: "failed"})
	s.AddJob("proj", mintlifytest.JobSpec{ID: "d", CreatedAt: t0.Add(-1 * time.Hour), Status: "archived"})
	s.AddJob("proj", mintlifytest.JobSpec{ID: "e", CreatedAt: t0.Add(-5 * time.Hour), Status: "stalled"})
	s.AddJob("elsewhere", mintlifytest.JobSpec{ID: "x"})
	c.Advance(time.Hour)
	r := get(t, s, "/v1/agent/proj/jobs")
	if r.status != http.StatusOK {
		t.Fatalf("listing: %d %s", r.status, r.body)
	}
	var body struct {
		AllSessions []session `json:"allSessions"`
	}
	decodeStrict(t, r.body, &body)
	type want struct {
		id      string
		haulted bool
		reason  string
		pr      bool
	}
	wants := []want{{"c", true, "error", false}, {"b", true, "completed", true}, {"a", false, "processing", false}, {"e", true, "stalled", false}}
	if len(body.AllSessions) != len(wants) {
		t.Fatalf("sessions %+v", body.AllSessions)
	}
	for i, w := range wants {
		got := body.AllSessions[i]
		reason := ""
		if got.HaultReason != nil {
			reason = *got.HaultReason
		}
		if got.SessionID != w.id || got.Haulted != w.haulted || reason != w.reason || (got.PullRequestLink != nil) != w.pr {
			t.Errorf("session %d: %+v, want %+v", i, got, w)
		}
		if got.Todos == nil || got.Subdomain != "proj" {
			t.Errorf("session %d: todos %v subdomain %q", i, got.Todos, got.Subdomain)
		}
		if _, err := time.Parse(time.RFC3339, got.CreatedAt); err != nil {
			t.Errorf("session %d: createdAt %q", i, got.CreatedAt)
		}
	}
	if body.AllSessions[2].Branch != "docs-update" {
		t.Errorf("branch %q", body.AllSessions[2].Branch)
	}
	if strings.Contains(string(r.body), `"haultReason":null`) {
		t.Errorf("a haultReason is null; the API's values are completed, github_missconfigured, error, processing, interrupted: %s", r.body)
	}
	// The schema says string: a session without a pull request has no
	// pullRequestLink at all, never null.
	if strings.Contains(string(r.body), `"pullRequestLink":null`) {
		t.Errorf("a pullRequestLink is null; the schema says string (omit it): %s", r.body)
	}
}

// listIDs reads one page of the v1 listing and returns its session ids.
func listIDs(t *testing.T, s *mintlifytest.Server, query string) []string {
	t.Helper()
	r := get(t, s, "/v1/agent/proj/jobs"+query)
	if r.status != http.StatusOK {
		t.Fatalf("listing %s: %d %s", query, r.status, r.body)
	}
	var body struct {
		AllSessions []session `json:"allSessions"`
	}
	decodeStrict(t, r.body, &body)
	ids := make([]string, len(body.AllSessions))
	for i, se := range body.AllSessions {
		ids[i] = se.SessionID
	}
	return ids
}

func TestListJobsPaging(t *testing.T) {
	s, _ := newServer(t)
	var all []string // newest first
	for i := 29; i >= 0; i-- {
		id := fmt.Sprintf("j%02d", i)
		s.AddJob("proj", mintlifytest.JobSpec{ID: id, Status: "completed", CreatedAt: t0.Add(-time.Duration(i) * time.Minute)})
	}
	for i := 0; i < 30; i++ {
		all = append(all, fmt.Sprintf("j%02d", i))
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", all[:12]}, // the API's default take is 12
		{"?skip=0", all[:12]},
		{"?take=100", all},
		{"?take=1", all[:1]},
		{"?skip=12", all[12:24]},
		{"?skip=24&take=12", all[24:]},
		{"?skip=10&take=5", all[10:15]},
		{"?skip=30&take=100", nil},
		{"?skip=1000", nil},
	} {
		if got := listIDs(t, s, tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.query, got, tc.want)
		}
	}
	for _, q := range []string{"?take=0", "?take=101", "?take=-1", "?take=x", "?take=", "?skip=-1", "?skip=1.5", "?skip=", "?take=1e2"} {
		r := get(t, s, "/v1/agent/proj/jobs"+q)
		if r.status != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", q, r.status, r.body)
			continue
		}
		var e struct {
			Error string `json:"error"`
		}
		decodeStrict(t, r.body, &e)
		if e.Error == "" {
			t.Errorf("%s: empty error message", q)
		}
	}
}

func TestListJobsHaultReasons(t *testing.T) {
	s, _ := newServer(t)
	s.AddJob("proj", mintlifytest.JobSpec{ID: "running", CreatedAt: t0.Add(-1 * time.Minute)})
	s.AddJob("proj", mintlifytest.JobSpec{ID: "stopped", CreatedAt: t0.Add(-2 * time.Minute)})
	s.AddJob("proj", mintlifytest.JobSpec{ID: "misconfigured", Status: "failed", HaultReason: "github_missconfigured", CreatedAt: t0.Add(-3 * time.Minute)})
	s.AddJob("proj", mintlifytest.JobSpec{ID: "broken", Status: "failed", CreatedAt: t0.Add(-4 * time.Minute)})
	s.AddJob("proj", mintlifytest.JobSpec{ID: "done", Status: "completed", CreatedAt: t0.Add(-5 * time.Minute)})
	s.InterruptJob("proj", "stopped")

	r := get(t, s, "/v1/agent/proj/jobs")
	var body struct {
		AllSessions []session `json:"allSessions"`
	}
	decodeStrict(t, r.body, &body)
	want := map[string][2]string{
		"running":       {"false", "processing"},
		"stopped":       {"true", "interrupted"},
		"misconfigured": {"true", "github_missconfigured"},
		"broken":        {"true", "error"},
		"done":          {"true", "completed"},
	}
	if len(body.AllSessions) != len(want) {
		t.Fatalf("sessions: %s", r.body)
	}
	for _, se := range body.AllSessions {
		if se.HaultReason == nil {
			t.Errorf("%s: haultReason null", se.SessionID)
			continue
		}
		if got := [2]string{fmt.Sprint(se.Haulted), *se.HaultReason}; got != want[se.SessionID] {
			t.Errorf("%s: haulted, haultReason = %v, want %v", se.SessionID, got, want[se.SessionID])
		}
	}
	// The interrupted job reads as completed in v2; a message clears the
	// interruption.
	if j := getJob(t, s, "proj", "stopped"); *j.Status != "completed" {
		t.Errorf("interrupted job's v2 status %q", *j.Status)
	}
	postJSON(t, s, "/v2/agent/proj/job/stopped/message", `{"prompt":"go on"}`)
	decodeStrict(t, get(t, s, "/v1/agent/proj/jobs").body, &body)
	for _, se := range body.AllSessions {
		if se.SessionID == "stopped" && (se.Haulted || *se.HaultReason != "processing") {
			t.Errorf("after a message: %+v", se)
		}
	}
}

func TestJobOmittedFields(t *testing.T) {
	s, _ := newServer(t)
	s.AddJob("proj", mintlifytest.JobSpec{ID: "bare", Omit: []string{"id", "status", "source", "model", "prLink", "createdAt", "archivedAt"}})
	s.AddJob("proj", mintlifytest.JobSpec{ID: "partial", Ref: "main", Omit: []string{"source.repository", "createdAt"}})
	s.AddJob("proj", mintlifytest.JobSpec{ID: "nullcreated", NullCreatedAt: true})

	if r := get(t, s, "/v2/agent/proj/job/bare"); r.status != http.StatusOK || string(r.body) != "{}" {
		t.Errorf("bare job: %d %s, want {}", r.status, r.body)
	}
	r := get(t, s, "/v2/agent/proj/job/partial")
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("partial job %s: %v", r.body, err)
	}
	if _, ok := m["createdAt"]; ok {
		t.Errorf("createdAt sent: %s", r.body)
	}
	if src, _ := m["source"].(map[string]any); len(src) != 1 || src["ref"] != "main" {
		t.Errorf("source %v, want only ref", m["source"])
	}
	r = get(t, s, "/v2/agent/proj/job/nullcreated")
	if !strings.Contains(string(r.body), `"createdAt":null`) {
		t.Errorf("null createdAt: %s", r.body)
	}
	// The listing leaves an omitted createdAt out too, and stays valid JSON.
	r = get(t, s, "/v1/agent/proj/jobs")
	var body struct {
		AllSessions []map[string]any `json:"allSessions"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil || len(body.AllSessions) != 3 {
		t.Fatalf("listing %s: %v", r.body, err)
	}
	for _, se := range body.AllSessions {
		_, has := se["createdAt"]
		if id := se["sessionId"]; (id == "bare" || id == "partial") == has {
			t.Errorf("session %v: createdAt present %v", id, has)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Omit of an unknown field accepted")
		}
	}()
	s.AddJob("proj", mintlifytest.JobSpec{ID: "x", Omit: []string{"nosuchfield"}})
}
