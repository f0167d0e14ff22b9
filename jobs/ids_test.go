package jobs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// writeJobsFile writes content with a given modification time, so a
// change is visible whatever the file system's timestamp granularity.
func writeJobsFile(t *testing.T, path, content string, mtime int64) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, time.Unix(mtime, 0), time.Unix(mtime, 0)); err != nil {
		t.Fatal(err)
	}
}

// watchedIDs returns the job ids of the watcher's info series.
func watchedIDs(t *testing.T, w *jobs.Watcher) string {
	t.Helper()
	var ids []string
	for _, m := range jobsGather(t, w, "mintlify_agent_job_info") {
		for _, l := range m.GetLabel() {
			if l.GetName() == "job_id" {
				ids = append(ids, l.GetValue())
			}
		}
	}
	slices.Sort(ids)
	return strings.Join(ids, ",")
}

func TestJobsFileReadAndReread(t *testing.T) {
	e := newJobsEnv(t)
	for _, id := range []string{"j1", "j2", "j3"} {
		e.fake.AddJob("p1", mintlifytest.JobSpec{ID: id, CreatedAt: jobsT0})
	}
	path := filepath.Join(t.TempDir(), "jobs.txt")
	writeJobsFile(t, path, "# watched jobs\nj1\n\n   j2   # the second one\n", 1000)
	w := e.watcher(jobs.Config{Projects: []string{"p1"}, File: path})

	step := func(want string) {
		t.Helper()
		e.clock.Advance(time.Minute)
		e.poll(w)
		if got := watchedIDs(t, w); got != want {
			t.Fatalf("watched %q, want %q", got, want)
		}
	}
	step("j1,j2")

	// Rewritten: j1 leaves, j3 arrives, without a restart.
	writeJobsFile(t, path, "j2\np1/j3\n", 2000)
	step("j2,j3")
	if n := e.logs.CountLines("jobs file re-read", "jobs=2"); n != 1 {
		t.Errorf("re-read logged %d times, want once:\n%s", n, e.logs)
	}
	e.expect(w, jobsHeader+jobsCounts("p1", 2, 0, 0, 0)+jobInfoHeader+`mintlify_agent_job_info{has_pr="false",job_id="j2",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="active"} 1
mintlify_agent_job_info{has_pr="false",job_id="j3",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="active"} 1
`+jobCreatedHeader+`mintlify_agent_job_created_timestamp_seconds{job_id="j2",project="p1"} 1.7408304e+09
mintlify_agent_job_created_timestamp_seconds{job_id="j3",project="p1"} 1.7408304e+09
`)

	// An invalid version keeps the last good list; one warning.
	writeJobsFile(t, path, "j1\np9/j4\n", 3000)
	step("j2,j3")
	step("j2,j3")
	if n := e.logs.CountLines("level=warn", "cannot use the jobs file", `jobs.txt:2: job id \"p9/j4\"`); n != 1 {
		t.Errorf("invalid file warned %d times, want once:\n%s", n, e.logs)
	}

	// A missing file too.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	step("j2,j3")
	step("j2,j3")
	if n := e.logs.CountLines("level=warn", "cannot use the jobs file"); n != 2 {
		t.Errorf("%d warnings about the file, want 2 (invalid, then missing):\n%s", n, e.logs)
	}

	// Back with a valid list.
	writeJobsFile(t, path, "j1\n", 4000)
	step("j1")

	// Replaced by rename with the same size and modification time (as
	// Kubernetes volumes and some editors do): still seen.
	tmp := path + ".new"
	writeJobsFile(t, tmp, "j3\n", 4000)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	step("j3")
	e.expectUp(jobsUpHeader + `mintlify_up{project="p1",source="jobs"} 1
` + jobsIntervalHeader + `mintlify_refresh_interval_seconds{part="all",project="p1",source="jobs",window=""} 60
`)
}

func TestJobsFileErrorsAtStart(t *testing.T) {
	e := newJobsEnv(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.txt")
	bad := filepath.Join(dir, "bad.txt")
	writeJobsFile(t, bad, "# two projects: each id needs its project\np1/j1\nj2\n", 1000)
	for _, tc := range []struct{ path, want string }{
		{missing, "--jobs.file: stat " + missing},
		{dir, "--jobs.file: " + dir + ": not a regular file"},
		{bad, "--jobs.file: " + bad + `:3: job id "j2" has no project: with 2 --mintlify.project-id values, write it as PROJECT/ID`},
	} {
		_, err := jobs.New(jobs.Config{Client: e.client, Status: e.status, Projects: []string{"p1", "p2"}, File: tc.path})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("file %s: error %v, want one containing %q", tc.path, err, tc.want)
		}
	}
}
