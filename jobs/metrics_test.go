package jobs_test

import (
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/jobs"
)

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
