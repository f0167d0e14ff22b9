package jobs_test

import (
	"context"
	"fmt"
	"net/netip"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/jobs"
)

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

func TestJobsStatusMetricKeepsInfoSeries(t *testing.T) {
	e := newJobsEnv(t)
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "j1", Ref: "main", RunFor: 5 * time.Minute, Outcome: "failed", CreatedAt: jobsT0})
	w := e.watcher(jobs.Config{Projects: []string{"p1"}, IDs: []string{"j1"}})
	info := `mintlify_agent_job_info{has_pr="false",job_id="j1",model="claude-sonnet-4",project="p1",ref="main",repository="https://github.com/acme/docs"} 1
`
	created := jobCreatedHeader + `mintlify_agent_job_created_timestamp_seconds{job_id="j1",project="p1"} 1.7408304e+09
`
	notFound := jobsNotFoundHeader + `mintlify_agent_jobs_not_found{project="p1"} 0
`
	e.poll(w)
	e.expect(w, jobsHeader+jobsCounts("p1", 1, 0, 0, 0)+jobInfoHeader+info+jobStatusHeader+`mintlify_agent_job_status{job_id="j1",project="p1",status="active"} 1
mintlify_agent_job_status{job_id="j1",project="p1",status="archived"} 0
mintlify_agent_job_status{job_id="j1",project="p1",status="completed"} 0
mintlify_agent_job_status{job_id="j1",project="p1",status="failed"} 0
`+created+notFound)
	// It fails: the same info series, the status series change value.
	e.clock.Advance(5 * time.Minute)
	e.poll(w)
	e.expect(w, jobsHeader+jobsCounts("p1", 0, 0, 0, 1)+jobInfoHeader+info+jobStatusHeader+`mintlify_agent_job_status{job_id="j1",project="p1",status="active"} 0
mintlify_agent_job_status{job_id="j1",project="p1",status="archived"} 0
mintlify_agent_job_status{job_id="j1",project="p1",status="completed"} 0
mintlify_agent_job_status{job_id="j1",project="p1",status="failed"} 1
`+created+notFound)
	// An undocumented status: its own series with 1, the known ones 0.
	e.fake.SetJobStatus("p1", "j1", "waiting_for_review")
	e.clock.Advance(15 * time.Minute)
	e.poll(w)
	e.expect(w, jobsHeader+jobsCounts("p1", 0, 0, 0, 0)+`mintlify_agent_jobs{project="p1",status="waiting_for_review"} 1
`+jobInfoHeader+info+jobStatusHeader+`mintlify_agent_job_status{job_id="j1",project="p1",status="active"} 0
mintlify_agent_job_status{job_id="j1",project="p1",status="archived"} 0
mintlify_agent_job_status{job_id="j1",project="p1",status="completed"} 0
mintlify_agent_job_status{job_id="j1",project="p1",status="failed"} 0
mintlify_agent_job_status{job_id="j1",project="p1",status="waiting_for_review"} 1
`+created+notFound)
}

func TestJobsWithAbsentFields(t *testing.T) {
	e := newJobsEnv(t)
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "bare", Omit: []string{"id", "status", "source", "model", "prLink", "createdAt", "archivedAt"}})
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "nocreated", Status: "completed", NoChanges: true, Omit: []string{"createdAt", "source.repository"}})
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "nullcreated", NullCreatedAt: true})
	w := e.watcher(jobs.Config{Projects: []string{"p1"}, IDs: []string{"bare", "nocreated", "nullcreated"}})
	e.poll(w)
	e.expectUp(jobsUp("1", "60"))
	e.expect(w, jobsHeader+jobsCounts("p1", 1, 0, 1, 0)+`mintlify_agent_jobs{project="p1",status=""} 1
`+jobInfoHeader+`mintlify_agent_job_info{has_pr="false",job_id="bare",model="",project="p1",ref="",repository=""} 1
mintlify_agent_job_info{has_pr="false",job_id="nocreated",model="claude-sonnet-4",project="p1",ref="",repository=""} 1
mintlify_agent_job_info{has_pr="false",job_id="nullcreated",model="claude-sonnet-4",project="p1",ref="",repository="https://github.com/acme/docs"} 1
`+jobStatusHeader+`mintlify_agent_job_status{job_id="bare",project="p1",status="active"} 0
mintlify_agent_job_status{job_id="bare",project="p1",status="archived"} 0
mintlify_agent_job_status{job_id="bare",project="p1",status="completed"} 0
mintlify_agent_job_status{job_id="bare",project="p1",status="failed"} 0
mintlify_agent_job_status{job_id="bare",project="p1",status=""} 1
mintlify_agent_job_status{job_id="nocreated",project="p1",status="active"} 0
mintlify_agent_job_status{job_id="nocreated",project="p1",status="archived"} 0
mintlify_agent_job_status{job_id="nocreated",project="p1",status="completed"} 1
mintlify_agent_job_status{job_id="nocreated",project="p1",status="failed"} 0
mintlify_agent_job_status{job_id="nullcreated",project="p1",status="active"} 1
mintlify_agent_job_status{job_id="nullcreated",project="p1",status="archived"} 0
mintlify_agent_job_status{job_id="nullcreated",project="p1",status="completed"} 0
mintlify_agent_job_status{job_id="nullcreated",project="p1",status="failed"} 0
`+jobsNotFoundHeader+`mintlify_agent_jobs_not_found{project="p1"} 0
`)
	if n := e.logs.CountLines("level=warn", "has no status", "job_id=bare"); n != 1 {
		t.Errorf("a job without status logged %d times, want once:\n%s", n, e.logs)
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

func TestJobsForbiddenStopsRoundAndSaysWhy(t *testing.T) {
	e := newJobsEnv(t)
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "a", CreatedAt: jobsT0})
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "b", CreatedAt: jobsT0})
	w := e.watcher(jobs.Config{Projects: []string{"p1"}, IDs: []string{"a", "b"}, Discover: true, Concurrency: 1})
	e.fake.SetAllowlist(netip.MustParsePrefix("192.0.2.0/24"))
	for range 2 {
		e.poll(w)
		e.clock.Advance(time.Minute)
	}
	// The listing is refused, and so no job is read: a 403 concerns every
	// request of the key from this place.
	if l, g := e.fake.CountRequests("list_jobs"), e.fake.CountRequests("get_job"); l != 2 || g != 0 {
		t.Errorf("list_jobs %d, get_job %d; want 2 and 0", l, g)
	}
	e.expectUp(jobsUp("0", "60"))
	if n := e.logs.CountLines("level=error", "this IP is not on the organization's allowlist, or the key lacks the read scope"); n != 1 {
		t.Errorf("the refusal was logged %d times, want once, saying why:\n%s", n, e.logs)
	}
}

func TestJobsRows(t *testing.T) {
	e := newJobsEnv(t)
	e.fake.AddJob("p2", mintlifytest.JobSpec{ID: "z", Status: "completed", CreatedAt: jobsT0})
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "b", CreatedAt: jobsT0.Add(-time.Hour)})
	e.fake.AddJob("p1", mintlifytest.JobSpec{ID: "a", Status: "completed", Omit: []string{"createdAt"}})
	w := e.watcher(jobs.Config{Projects: []string{"p2", "p1"}, IDs: []string{"p2/z", "p1/b", "p1/a", "p1/gone"}})
	if rows := w.Jobs(); len(rows) != 4 || rows[0].Known || rows[0].NotFound {
		t.Errorf("before the first poll: %+v", rows)
	}
	e.poll(w)
	rows := w.Jobs()
	pr := "https://github.com/acme/docs/pull/"
	want := []jobs.Row{
		{Project: "p1", ID: "a", Status: "completed", Known: true},
		{Project: "p1", ID: "b", Status: "active", CreatedAt: jobsT0.Add(-time.Hour), Known: true},
		{Project: "p1", ID: "gone", NotFound: true},
		{Project: "p2", ID: "z", Status: "completed", Known: true, CreatedAt: jobsT0},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %+v", rows)
	}
	for i := range want {
		got := rows[i]
		if got.PRLink != "" {
			if len(got.PRLink) <= len(pr) || got.PRLink[:len(pr)] != pr {
				t.Errorf("row %d: PR link %q", i, got.PRLink)
			}
			got.PRLink = ""
		}
		if !got.CreatedAt.Equal(want[i].CreatedAt) {
			t.Errorf("row %d: created %v, want %v", i, got.CreatedAt, want[i].CreatedAt)
		}
		got.CreatedAt = want[i].CreatedAt
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("row %d: %+v, want %+v", i, got, want[i])
		}
	}
	if rows[0].PRLink == "" || rows[3].PRLink == "" || rows[1].PRLink != "" {
		t.Errorf("PR links: %q %q %q", rows[0].PRLink, rows[1].PRLink, rows[3].PRLink)
	}

	// Race-free against polls (go test -race).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 20 {
			w.Poll(ctx)
		}
	}()
	for range 200 {
		if n := len(w.Jobs()); n != 4 {
			t.Errorf("%d rows during polls", n)
			break
		}
	}
	wg.Wait()
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
	if err := testutil.CollectAndCompare(w, strings.NewReader(`# HELP mintlify_agent_sessions_skipped_total Sessions of the deprecated v1 job listing skipped as malformed (not an object, no usable sessionId, a field of the wrong type), by project; the other sessions of the listing are kept.
# TYPE mintlify_agent_sessions_skipped_total counter
mintlify_agent_sessions_skipped_total{project="p1"} 2
`), "mintlify_agent_sessions_skipped_total"); err != nil {
		t.Error(err)
	}
	if n := e.logs.CountLines("skipped malformed sessions of the v1 job listing"); n != 1 {
		t.Errorf("%d log lines for the skipped sessions, want 1:\n%s", n, e.logs)
	}
}
