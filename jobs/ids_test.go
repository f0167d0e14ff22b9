package jobs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/jobs"
)

// TestJobsDotIDsRefusedAtTheDoor: "." and ".." cannot be job ids (they
// would address another route): refused in --jobs.id and --jobs.file with
// a message naming them, and skipped (logged once) in the v1 listing,
// where they must not stop the polling of the project's other jobs.
func TestJobsDotIDsRefusedAtTheDoor(t *testing.T) {
	e := newJobsEnv(t)
	for _, id := range []string{".", "..", "p1/..", "p1/."} {
		_, err := jobs.New(jobs.Config{Client: e.client, Status: e.status,
			Projects: []string{"p1"}, IDs: []string{"a", id}})
		if err == nil || !strings.Contains(err.Error(), "--jobs.id") || !strings.Contains(err.Error(), `"`+strings.TrimPrefix(id, "p1/")+`"`) {
			t.Errorf("--jobs.id=%s: %v", id, err)
		}
	}
	for _, d := range []time.Duration{time.Nanosecond, time.Millisecond, 999 * time.Millisecond, -time.Second} {
		if _, err := jobs.New(jobs.Config{Client: e.client, Status: e.status,
			Projects: []string{"p1"}, IDs: []string{"a"}, PollInterval: d}); err == nil || !strings.Contains(err.Error(), "at least 1s") {
			t.Errorf("PollInterval %s: %v, want refused", d, err)
		}
	}
	file := filepath.Join(t.TempDir(), "jobs")
	if err := os.WriteFile(file, []byte("a\n..\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := jobs.New(jobs.Config{Client: e.client, Status: e.status,
		Projects: []string{"p1"}, File: file}); err == nil || !strings.Contains(err.Error(), file+":2") {
		t.Errorf("a jobs file with ..: %v", err)
	}

	// 20 active jobs and one listed as "..".
	for i := range 20 {
		e.fake.AddJob("p1", mintlifytest.JobSpec{ID: fmt.Sprintf("job-%02d", i), CreatedAt: jobsT0})
	}
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "..", CreatedAt: jobsT0})
	w := e.watcher(jobs.Config{Projects: []string{"p1"}, Discover: true})
	for round := 1; round <= 3; round++ {
		e.poll(w)
		if n := e.fake.CountRequests("get_job"); n != 20*round {
			t.Fatalf("round %d: %d get_job requests in all, want %d: every job is read", round, n, 20*round)
		}
		e.clock.Advance(time.Minute)
	}
	if got := strings.Count(watchedIDs(t, w), ",") + 1; got != 20 {
		t.Errorf("%d jobs exported, want 20", got)
	}
	e.expectUp(jobsUp("1", "60"))
	if n := e.logs.CountLines("level=warn", `\"..\"`); n != 1 {
		t.Errorf("the listed .. logged %d times, want once:\n%s", n, e.logs)
	}
}

// TestJobsWatchAddsJobs: a watcher with nothing but Added starts empty;
// Watch adds a job, read at the next poll and kept; Lookup reports it.
func TestJobsWatchAddsJobs(t *testing.T) {
	e := newJobsEnv(t)
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "j1", Status: "completed", CreatedAt: jobsT0.Add(-time.Hour)})
	if err := jobs.CheckConfig(jobs.Config{Projects: []string{"p1"}}); err == nil {
		t.Error("a watcher with nothing to watch was accepted")
	}
	w := e.watcher(jobs.Config{Projects: []string{"p1"}, Added: true})
	e.poll(w)
	if n := e.fake.CountRequests("get_job"); n != 0 {
		t.Errorf("%d get_job requests with no job, want 0", n)
	}
	if _, _, known := w.Lookup("p1", "j1"); known {
		t.Error("Lookup knows a job never watched")
	}
	if err := w.Watch("p2", "j1"); err == nil {
		t.Error("Watch accepted a project that is not configured")
	}
	if err := w.Watch("p1", ".."); err == nil {
		t.Error("Watch accepted an id that cannot be a path segment")
	}
	if err := w.Watch("p1", "j1"); err != nil {
		t.Fatal(err)
	}
	e.poll(w)
	if n := e.fake.CountRequests("get_job"); n != 1 {
		t.Errorf("%d get_job requests after Watch, want 1", n)
	}
	status, pr, known := w.Lookup("p1", "j1")
	if !known || status != client.StatusCompleted || pr == "" {
		t.Errorf("Lookup = %q, %q, %v; want completed with a pull request", status, pr, known)
	}
	if rows := w.Jobs(); len(rows) != 1 || rows[0].ID != "j1" {
		t.Errorf("Jobs() = %+v, want j1", rows)
	}
}
