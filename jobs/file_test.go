package jobs_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/jobs"
)

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
` + jobsIntervalHeader + `mintlify_refresh_interval_seconds{project="p1",source="jobs"} 60
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

func TestJobsDiscovery(t *testing.T) {
	e := newJobsEnv(t)
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "a", Ref: "main", CreatedAt: jobsT0})
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "b", Status: "completed", CreatedAt: jobsT0})
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "c", Status: "failed", CreatedAt: jobsT0})
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "d", Status: "archived", CreatedAt: jobsT0})
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "e", CreatedAt: jobsT0})
	w := e.watcher(jobs.Config{Projects: []string{"p1"}, Discover: true})

	requests := func(listWant, getWant int) {
		t.Helper()
		if l, g := e.fake.CountRequests("list_jobs"), e.fake.CountRequests("get_job"); l != listWant || g != getWant {
			t.Errorf("list_jobs %d, get_job %d; want %d and %d", l, g, listWant, getWant)
		}
	}

	// Listed: active a and e (not haulted), completed b (haultReason
	// completed), failed c (haultReason error); archived d is not listed.
	e.poll(w)
	requests(1, 4)
	if got := watchedIDs(t, w); got != "a,b,c,e" {
		t.Fatalf("watched %q, want a,b,c,e", got)
	}
	e.expect(w, jobsHeader+jobsCounts("p1", 2, 0, 1, 1)+jobInfoHeader+`mintlify_agent_job_info{has_pr="false",job_id="a",model="claude-sonnet-4",project="p1",ref="main",repository="https://github.com/acme/docs",status="active"} 1
mintlify_agent_job_info{has_pr="false",job_id="e",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="active"} 1
mintlify_agent_job_info{has_pr="true",job_id="b",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="completed"} 1
mintlify_agent_job_info{has_pr="false",job_id="c",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="failed"} 1
`+jobCreatedHeader+`mintlify_agent_job_created_timestamp_seconds{job_id="a",project="p1"} 1.7408304e+09
mintlify_agent_job_created_timestamp_seconds{job_id="b",project="p1"} 1.7408304e+09
mintlify_agent_job_created_timestamp_seconds{job_id="c",project="p1"} 1.7408304e+09
mintlify_agent_job_created_timestamp_seconds{job_id="e",project="p1"} 1.7408304e+09
`)

	// b is archived (and so leaves the listing), c gets a follow-up and is
	// listed active again, e is deleted.
	e.fake.SetJobStatus("p1", "b", "archived")
	e.fake.SetJobStatus("p1", "c", "active")
	e.fake.RemoveJob("p1", "e")
	e.clock.Advance(time.Minute)
	e.poll(w)
	// a and e are active, so due; c's listed status changed, so it is read
	// at once rather than at its terminal interval; b is not due.
	requests(2, 7)
	if got := watchedIDs(t, w); got != "a,b,c" {
		t.Fatalf("watched %q, want a,b,c (b stays watched after leaving the listing, e answered 404)", got)
	}
	e.expect(w, jobsHeader+jobsCounts("p1", 2, 0, 1, 0)+jobInfoHeader+`mintlify_agent_job_info{has_pr="false",job_id="a",model="claude-sonnet-4",project="p1",ref="main",repository="https://github.com/acme/docs",status="active"} 1
mintlify_agent_job_info{has_pr="true",job_id="b",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="completed"} 1
mintlify_agent_job_info{has_pr="false",job_id="c",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="active"} 1
`+jobCreatedHeader+`mintlify_agent_job_created_timestamp_seconds{job_id="a",project="p1"} 1.7408304e+09
mintlify_agent_job_created_timestamp_seconds{job_id="b",project="p1"} 1.7408304e+09
mintlify_agent_job_created_timestamp_seconds{job_id="c",project="p1"} 1.7408304e+09
`+jobsNotFoundHeader+`mintlify_agent_jobs_not_found{project="p1"} 1
`)

	// At b's terminal interval the archive shows. The deleted e is not
	// read again: it answered 404 and is no longer listed.
	e.clock.Advance(14 * time.Minute)
	e.poll(w)
	requests(3, 10)
	e.expect(w, jobsHeader+jobsCounts("p1", 2, 1, 0, 0)+jobInfoHeader+`mintlify_agent_job_info{has_pr="false",job_id="a",model="claude-sonnet-4",project="p1",ref="main",repository="https://github.com/acme/docs",status="active"} 1
mintlify_agent_job_info{has_pr="true",job_id="b",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="archived"} 1
mintlify_agent_job_info{has_pr="false",job_id="c",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="active"} 1
`+jobCreatedHeader+`mintlify_agent_job_created_timestamp_seconds{job_id="a",project="p1"} 1.7408304e+09
mintlify_agent_job_created_timestamp_seconds{job_id="b",project="p1"} 1.7408304e+09
mintlify_agent_job_created_timestamp_seconds{job_id="c",project="p1"} 1.7408304e+09
`)

	// A failed listing fails the round, but known jobs are still read.
	e.fake.AddFault(mintlifytest.Fault{Endpoint: "list_jobs", Status: 500, Times: 1})
	e.clock.Advance(time.Minute)
	e.poll(w)
	requests(4, 12)
	e.expectUp(jobsUpHeader + `mintlify_up{project="p1",source="jobs"} 0
` + jobsIntervalHeader + `mintlify_refresh_interval_seconds{project="p1",source="jobs"} 60
`)
	if n := e.logs.CountLines("level=error", "list_jobs: HTTP 500"); n != 1 {
		t.Errorf("listing failure logged %d times, want once:\n%s", n, e.logs)
	}
}
