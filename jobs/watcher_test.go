package jobs_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/jobs"
)

func TestJobsWatcherFollowsStateMachine(t *testing.T) {
	e := newJobsEnv(t)
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "j1", Repository: "acme/docs", Ref: "main", RunFor: 5 * time.Minute, CreatedAt: jobsT0.Add(-time.Hour)})
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "j2", Model: "claude-opus-4", RunFor: 3 * time.Minute, Outcome: "failed", CreatedAt: jobsT0.Add(-2 * time.Hour)})
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "j3", Status: "completed", NoChanges: true, CreatedAt: jobsT0.Add(-3 * time.Hour)})
	w := e.watcher(jobs.Config{Projects: []string{"p1"}, IDs: []string{"j1", "j2", "p1/j3"}})

	// Before the first round the project is registered, with no job: up,
	// since nothing failed.
	e.expectUp(jobsUpHeader + `mintlify_up{project="p1",source="jobs"} 1
` + jobsIntervalHeader + `mintlify_refresh_interval_seconds{part="all",project="p1",source="jobs",window=""} 60
`)
	e.expect(w, jobsHeader+jobsCounts("p1", 0, 0, 0, 0))

	e.poll(w)
	if n := e.fake.CountRequests("get_job"); n != 3 {
		t.Errorf("first round: %d get_job requests, want 3", n)
	}
	e.expect(w, jobsHeader+jobsCounts("p1", 2, 0, 1, 0)+jobInfoHeader+`mintlify_agent_job_info{has_pr="false",job_id="j1",model="claude-sonnet-4",project="p1",ref="main",repository="https://github.com/acme/docs",status="active"} 1
mintlify_agent_job_info{has_pr="false",job_id="j2",model="claude-opus-4",project="p1",ref="",repository="https://github.com/acme/docs",status="active"} 1
mintlify_agent_job_info{has_pr="false",job_id="j3",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="completed"} 1
`+jobCreatedHeader+`mintlify_agent_job_created_timestamp_seconds{job_id="j1",project="p1"} 1.7408268e+09
mintlify_agent_job_created_timestamp_seconds{job_id="j2",project="p1"} 1.7408232e+09
mintlify_agent_job_created_timestamp_seconds{job_id="j3",project="p1"} 1.7408196e+09
`)
	e.expectUp(jobsUpHeader + `mintlify_up{project="p1",source="jobs"} 1
` + jobsIntervalHeader + `mintlify_refresh_interval_seconds{part="all",project="p1",source="jobs",window=""} 60
`)

	// Five minutes on, j1 completed with a pull request and j2 failed. The
	// completed j3 is not due yet, so only the two active jobs are read.
	e.fake.ResetRequests()
	e.clock.Advance(5 * time.Minute)
	e.poll(w)
	if n := e.fake.CountRequests("get_job"); n != 2 {
		t.Errorf("second round: %d get_job requests, want 2 (the active jobs)", n)
	}
	e.expect(w, jobsHeader+jobsCounts("p1", 0, 0, 2, 1)+jobInfoHeader+`mintlify_agent_job_info{has_pr="true",job_id="j1",model="claude-sonnet-4",project="p1",ref="main",repository="https://github.com/acme/docs",status="completed"} 1
mintlify_agent_job_info{has_pr="false",job_id="j2",model="claude-opus-4",project="p1",ref="",repository="https://github.com/acme/docs",status="failed"} 1
mintlify_agent_job_info{has_pr="false",job_id="j3",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="completed"} 1
`+jobCreatedHeader+`mintlify_agent_job_created_timestamp_seconds{job_id="j1",project="p1"} 1.7408268e+09
mintlify_agent_job_created_timestamp_seconds{job_id="j2",project="p1"} 1.7408232e+09
mintlify_agent_job_created_timestamp_seconds{job_id="j3",project="p1"} 1.7408196e+09
`)
	// One info line for each job that ended while watched (not j3, which
	// was completed when first read), with its pull request.
	logs := e.logs.String()
	for _, want := range []string{
		`msg="agent job ended" project=p1 job_id=j1 status=completed pull_request=https://github.com/acme/docs/pull/1`,
		`msg="agent job ended" project=p1 job_id=j2 status=failed pull_request=`,
	} {
		if strings.Count(logs, want) != 1 {
			t.Errorf("the log has not exactly one %q:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, "job_id=j3 status=completed") {
		t.Errorf("j3 was logged as ended although it was completed when first read:\n%s", logs)
	}
}

func TestJobsTerminalJobsReadAtTerminalInterval(t *testing.T) {
	e := newJobsEnv(t)
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "done", Status: "completed", CreatedAt: jobsT0})
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "busy", CreatedAt: jobsT0})
	// Poll interval 1m: the terminal interval defaults to max(15m, 10m).
	w := e.watcher(jobs.Config{Projects: []string{"p1"}, IDs: []string{"done", "busy"}, PollInterval: time.Minute})

	reads := func(id string) int {
		n := 0
		for _, r := range e.fake.Requests() {
			if r.Endpoint == "get_job" && strings.HasSuffix(r.Path, "/job/"+id) {
				n++
			}
		}
		return n
	}
	e.poll(w)
	// The completed job gets archived after 5 minutes; the watcher learns
	// it at the next terminal read, 15 minutes after the first.
	for minute := 1; minute <= 15; minute++ {
		e.clock.Advance(time.Minute)
		if minute == 5 {
			e.fake.SetJobStatus("p1", "done", "archived")
		}
		e.poll(w)
		wantDone := 1
		if minute >= 15 {
			wantDone = 2
		}
		if got := reads("done"); got != wantDone {
			t.Fatalf("after %d min: terminal job read %d times, want %d", minute, got, wantDone)
		}
		if got := reads("busy"); got != minute+1 {
			t.Fatalf("after %d min: active job read %d times, want %d", minute, got, minute+1)
		}
		if minute == 14 {
			e.expect(w, jobsHeader+jobsCounts("p1", 1, 0, 1, 0)+jobInfoHeader+`mintlify_agent_job_info{has_pr="false",job_id="busy",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="active"} 1
mintlify_agent_job_info{has_pr="true",job_id="done",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="completed"} 1
`+jobCreatedHeader+`mintlify_agent_job_created_timestamp_seconds{job_id="busy",project="p1"} 1.7408304e+09
mintlify_agent_job_created_timestamp_seconds{job_id="done",project="p1"} 1.7408304e+09
`)
		}
	}
	e.expect(w, jobsHeader+jobsCounts("p1", 1, 1, 0, 0)+jobInfoHeader+`mintlify_agent_job_info{has_pr="false",job_id="busy",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="active"} 1
mintlify_agent_job_info{has_pr="true",job_id="done",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="archived"} 1
`+jobCreatedHeader+`mintlify_agent_job_created_timestamp_seconds{job_id="busy",project="p1"} 1.7408304e+09
mintlify_agent_job_created_timestamp_seconds{job_id="done",project="p1"} 1.7408304e+09
`)
}

// TestJobsTerminalIntervalIsTenPolls: with a poll interval over 1m30s, a
// terminal job is read every 10 poll intervals.
func TestJobsTerminalIntervalIsTenPolls(t *testing.T) {
	e := newJobsEnv(t)
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "done", Status: "failed", CreatedAt: jobsT0})
	w := e.watcher(jobs.Config{Projects: []string{"p1"}, IDs: []string{"done"}, PollInterval: 2 * time.Minute})
	for i := range 11 { // rounds every 2 minutes: reads at 0 and 20 minutes
		if i > 0 {
			e.clock.Advance(2 * time.Minute)
		}
		e.poll(w)
		want := 1
		if i == 10 {
			want = 2
		}
		if got := e.fake.CountRequests("get_job"); got != want {
			t.Fatalf("round at %d min: %d reads, want %d", 2*i, got, want)
		}
	}
}

func TestJobsUnknownStatusCountedAndLoggedOnce(t *testing.T) {
	e := newJobsEnv(t)
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "j1", Status: "paused", CreatedAt: jobsT0})
	w := e.watcher(jobs.Config{Projects: []string{"p1"}, IDs: []string{"j1"}})
	for range 3 {
		e.poll(w)
		e.clock.Advance(time.Minute)
	}
	// An unknown status is not terminal: it is read every round.
	if n := e.fake.CountRequests("get_job"); n != 3 {
		t.Errorf("%d reads of a job in an unknown status, want 3", n)
	}
	e.expect(w, jobsHeader+jobsCounts("p1", 0, 0, 0, 0)+`mintlify_agent_jobs{project="p1",status="paused"} 1
`+jobInfoHeader+`mintlify_agent_job_info{has_pr="false",job_id="j1",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="paused"} 1
`+jobCreatedHeader+`mintlify_agent_job_created_timestamp_seconds{job_id="j1",project="p1"} 1.7408304e+09
`)
	if n := e.logs.CountLines("level=warn", "status=paused", "job_id=j1"); n != 1 {
		t.Errorf("unknown status logged %d times, want once:\n%s", n, e.logs)
	}
}

func TestJobsNotFoundLeavesCountsNotUp(t *testing.T) {
	e := newJobsEnv(t)
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "j1", CreatedAt: jobsT0})
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "j2", CreatedAt: jobsT0})
	w := e.watcher(jobs.Config{Projects: []string{"p1"}, IDs: []string{"j1", "j2", "nope"}})
	e.poll(w)
	e.fake.RemoveJob("p1", "j2")
	e.clock.Advance(time.Minute)
	e.poll(w)
	e.clock.Advance(time.Minute)
	e.poll(w)
	e.expect(w, jobsHeader+jobsCounts("p1", 1, 0, 0, 0)+jobInfoHeader+`mintlify_agent_job_info{has_pr="false",job_id="j1",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="active"} 1
`+jobCreatedHeader+`mintlify_agent_job_created_timestamp_seconds{job_id="j1",project="p1"} 1.7408304e+09
`+jobsNotFoundHeader+`mintlify_agent_jobs_not_found{project="p1"} 2
`)
	e.expectUp(jobsUpHeader + `mintlify_up{project="p1",source="jobs"} 1
` + jobsIntervalHeader + `mintlify_refresh_interval_seconds{part="all",project="p1",source="jobs",window=""} 60
`)
	for _, id := range []string{"nope", "j2"} {
		if n := e.logs.CountLines("level=warn", "not found", "job_id="+id); n != 1 {
			t.Errorf("404 of %s logged %d times, want once:\n%s", id, n, e.logs)
		}
	}
	// A job that answered 404 is checked again only at the terminal
	// interval: rounds 2 and 3 read j1 and j2, then j1 alone.
	if n := e.fake.CountRequests("get_job"); n != 3+2+1 {
		t.Errorf("%d get_job requests, want 6", n)
	}
}

func TestJobsIDForms(t *testing.T) {
	e := newJobsEnv(t)
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "j1", CreatedAt: jobsT0})
	e.fake.AddJob("p2", mintlifytest.JobSpec{ID: "j1", Status: "failed", CreatedAt: jobsT0})

	bad := []struct {
		projects, ids []string
		want          string
	}{
		{[]string{"p1", "p2"}, []string{"j1"}, `job id "j1" has no project: with 2 --mintlify.project-id values, write it as PROJECT/ID`},
		{[]string{"p1"}, []string{"p3/j1"}, `project "p3" is not one of the configured --mintlify.project-id values`},
		{[]string{"p1"}, []string{"p1/"}, `want ID or PROJECT/ID`},
		{[]string{"p1"}, []string{""}, `empty job id`},
		{[]string{"p1"}, nil, `nothing to watch: set --jobs.id, --jobs.file or --jobs.discover`},
	}
	for _, tc := range bad {
		_, err := jobs.New(jobs.Config{Client: e.client, Status: e.status, Projects: tc.projects, IDs: tc.ids})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("projects %q ids %q: error %v, want one containing %q", tc.projects, tc.ids, err, tc.want)
		}
	}

	w := e.watcher(jobs.Config{Projects: []string{"p1", "p2"}, IDs: []string{"p1/j1", "p2/j1"}})
	e.poll(w)
	e.expect(w, jobsHeader+jobsCounts("p1", 1, 0, 0, 0)+jobsCounts("p2", 0, 0, 0, 1)+jobInfoHeader+`mintlify_agent_job_info{has_pr="false",job_id="j1",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="active"} 1
mintlify_agent_job_info{has_pr="false",job_id="j1",model="claude-sonnet-4",project="p2",ref="",repository="https://github.com/acme/docs",status="failed"} 1
`+jobCreatedHeader+`mintlify_agent_job_created_timestamp_seconds{job_id="j1",project="p1"} 1.7408304e+09
mintlify_agent_job_created_timestamp_seconds{job_id="j1",project="p2"} 1.7408304e+09
`)
	e.expectUp(jobsUpHeader + `mintlify_up{project="p1",source="jobs"} 1
mintlify_up{project="p2",source="jobs"} 1
` + jobsIntervalHeader + `mintlify_refresh_interval_seconds{part="all",project="p1",source="jobs",window=""} 60
mintlify_refresh_interval_seconds{part="all",project="p2",source="jobs",window=""} 60
`)
}

func TestJobsRunPollsUntilCancelled(t *testing.T) {
	e := newJobsEnv(t)
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "a", CreatedAt: jobsT0})
	sent := make(chan struct{}, 1)
	c := e.rig.Client(client.Config{Hooks: client.Hooks{Observe: func(client.Attempt) {
		select {
		case sent <- struct{}{}:
		default:
		}
	}}})
	w, err := jobs.New(jobs.Config{Client: c, Status: e.status, Projects: []string{"p1"}, IDs: []string{"a"},
		PollInterval: time.Hour, Logger: log.NewNopLogger(), Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		w.Run(ctx)
		close(done)
	}()
	select {
	case <-sent:
	case <-time.After(10 * time.Second):
		t.Fatal("Run sent no request")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if n := e.fake.CountRequests("get_job"); n != 1 {
		t.Errorf("%d requests, want 1 (the next round is an hour away)", n)
	}
}

func TestJobsDiscoverEveryJob(t *testing.T) {
	e := newJobsEnv(t)
	for i := range 250 {
		status := "completed"
		if i%50 == 0 {
			status = "active"
		}
		e.fake.AddJob("p1", mintlifytest.JobSpec{ID: fmt.Sprintf("j%03d", i), Status: status, CreatedAt: jobsT0.Add(-time.Duration(i) * time.Minute)})
	}
	w := e.watcher(jobs.Config{Projects: []string{"p1"}, Discover: true, Concurrency: 8})
	e.poll(w)
	if n := e.fake.CountRequests("list_jobs"); n != 3 {
		t.Errorf("%d list_jobs requests for 250 jobs, want 3 (take=100)", n)
	}
	if n := e.fake.CountRequests("get_job"); n != 250 {
		t.Errorf("%d get_job requests, want 250", n)
	}
	if n := len(w.Jobs()); n != 250 {
		t.Errorf("%d jobs watched, want 250", n)
	}
	if got := jobsGather(t, w, "mintlify_agent_jobs"); len(got) != 4 {
		t.Fatalf("mintlify_agent_jobs: %v", got)
	} else {
		want := map[string]float64{"active": 5, "completed": 245, "archived": 0, "failed": 0}
		for _, m := range got {
			status := m.GetLabel()[1].GetValue()
			if m.GetGauge().GetValue() != want[status] {
				t.Errorf("status %s: %v jobs, want %v", status, m.GetGauge().GetValue(), want[status])
			}
		}
	}
}

func TestJobsDiscoveredButNotFound(t *testing.T) {
	e := newJobsEnv(t)
	// The listing calls job j1 "sess-1", an id get-agent-job does not know.
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "j1", SessionID: "sess-1", CreatedAt: jobsT0})
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "j2", CreatedAt: jobsT0})
	w := e.watcher(jobs.Config{Projects: []string{"p1"}, Discover: true})
	for range 3 {
		e.poll(w)
		e.clock.Advance(16 * time.Minute) // past the terminal interval: sess-1 is read again
	}
	if n := e.fake.CountRequests("get_job"); n != 6 {
		t.Errorf("%d get_job requests, want 6 (both ids every round)", n)
	}
	e.expectUp(jobsUp("1", "60"))
	e.expect(w, jobsHeader+jobsCounts("p1", 1, 0, 0, 0)+jobInfoHeader+`mintlify_agent_job_info{has_pr="false",job_id="j2",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs",status="active"} 1
`+jobCreatedHeader+`mintlify_agent_job_created_timestamp_seconds{job_id="j2",project="p1"} 1.7408304e+09
`+jobsNotFoundHeader+`mintlify_agent_jobs_not_found{project="p1"} 1
`)
	if n := e.logs.CountLines("level=warn", "sessionId may not be the job id", "job_id=sess-1"); n != 1 {
		t.Errorf("the 404 of a discovered id logged %d times in 3 rounds, want once:\n%s", n, e.logs)
	}
	if rows := w.Jobs(); len(rows) != 2 || rows[0].ID != "j2" || rows[1].ID != "sess-1" || !rows[1].NotFound || rows[1].Known || rows[1].Status != "active" {
		t.Errorf("rows %+v", rows)
	}
}

// TestBadListedSessionSkipped: a malformed session of the v1 listing (no
// sessionId, which the schema does not require) is skipped, counted in
// mintlify_agent_sessions_skipped_total and logged once; the project's
// discovery does not fail (mintlify_up stays 1) and the other sessions are
// watched.
func TestBadListedSessionSkipped(t *testing.T) {
	e := newJobsEnv(t)
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "a", CreatedAt: jobsT0})
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "b", CreatedAt: jobsT0})
	e.fake.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointListJobs, Mutate: func(b map[string]any) {
		delete(b["allSessions"].([]any)[0].(map[string]any), "sessionId")
	}})
	w := e.watcher(jobs.Config{Projects: []string{"p1"}, Discover: true})
	for range 2 {
		e.poll(w)
		e.clock.Advance(time.Minute)
	}
	e.expectUp(jobsUp("1", "60"))
	if got := watchedIDs(t, w); got != "a" && got != "b" {
		t.Errorf("watched %q, want the one good session", got)
	}
	if err := testutil.CollectAndCompare(w, strings.NewReader(`# HELP mintlify_agent_sessions_skipped_total Sessions of the deprecated v1 job listing skipped as malformed.
# TYPE mintlify_agent_sessions_skipped_total counter
mintlify_agent_sessions_skipped_total{project="p1"} 2
`), "mintlify_agent_sessions_skipped_total"); err != nil {
		t.Error(err)
	}
	if n := e.logs.CountLines("skipped malformed sessions of the v1 job listing"); n != 1 {
		t.Errorf("%d log lines for the skipped sessions, want 1:\n%s", n, e.logs)
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
` + jobsIntervalHeader + `mintlify_refresh_interval_seconds{part="all",project="p1",source="jobs",window=""} 60
`)
	if n := e.logs.CountLines("level=error", "list_jobs: HTTP 500"); n != 1 {
		t.Errorf("listing failure logged %d times, want once:\n%s", n, e.logs)
	}
}
