package jobs_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
	"go.uber.org/goleak"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/health"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/logbuf"
	"github.com/mintlify-exporter/mintlify_exporter/jobs"
)

// The project and clock of the fault tests.
const faultProject = "docs"

var day0 = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// faultJobsEnv is a jobs watcher of a fake holding active jobs a and b,
// polled by hand with a test clock.
type faultJobsEnv struct {
	t      *testing.T
	clock  *mintlifytest.Clock
	srv    *mintlifytest.Server
	hc     *http.Client
	status *health.Status
	logs   *logbuf.Buffer
	w      *jobs.Watcher
}

func newFaultJobsEnv(t *testing.T) *faultJobsEnv {
	t.Helper()
	r := apitest.NewRig(t, day0)
	e := &faultJobsEnv{t: t, clock: r.Clock, srv: r.Fake, status: health.NewStatus(), logs: &logbuf.Buffer{}}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.Proxy = nil
	e.hc = &http.Client{Transport: base}
	t.Cleanup(e.close)
	for _, id := range []string{"a", "b"} {
		e.srv.AddJob(faultProject, mintlifytest.JobSpec{ID: id, CreatedAt: day0})
	}
	c := r.Client(client.Config{HTTPClient: e.hc,
		Retry: client.RetryPolicy{Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }}})
	var err error
	e.w, err = jobs.New(jobs.Config{Client: c, Projects: []string{faultProject}, IDs: []string{"a", "b"},
		PollInterval: time.Minute, Status: e.status, Logger: log.NewLogfmtLogger(e.logs), Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// close stops the fake and the client's connections (before goleak looks).
func (e *faultJobsEnv) close() {
	e.srv.Close()
	e.hc.CloseIdleConnections()
}

// poll runs one round a minute after the last one.
func (e *faultJobsEnv) poll() {
	e.clock.Advance(time.Minute)
	e.w.Poll(context.Background())
}

// reads counts the get-agent-job requests for a job.
func (e *faultJobsEnv) reads(id string) int {
	n := 0
	for _, r := range e.srv.Requests() {
		if r.Endpoint == mintlifytest.EndpointGetJob && strings.HasSuffix(r.Path, "/job/"+id) {
			n++
		}
	}
	return n
}

// series returns the watcher's exposition.
func (e *faultJobsEnv) series() string {
	e.t.Helper()
	b, err := testutil.CollectAndFormat(e.w, expfmt.TypeTextPlain,
		"mintlify_agent_jobs", "mintlify_agent_job_info", "mintlify_agent_job_status", "mintlify_agent_job_created_timestamp_seconds")
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func (e *faultJobsEnv) expectUp() {
	e.t.Helper()
	if !e.status.Up(faultProject, jobs.Source) {
		e.t.Fatalf("mintlify_up{source=\"jobs\"} is 0; logs:\n%s", e.logs)
	}
}

// TestFaultJobs covers the two job rows of the fault table: a job that
// answers 404 and a job with a status the exporter does not know. Neither
// fails the project's polling.
func TestFaultJobs(t *testing.T) {
	t.Run("job 404", func(t *testing.T) {
		running := goleak.IgnoreCurrent()
		e := newFaultJobsEnv(t)
		e.poll()
		e.srv.RemoveJob(faultProject, "a")
		before := e.reads("a")
		for range 60 {
			e.poll()
			e.expectUp()
			if s := e.series(); strings.Contains(s, `job_id="a"`) || !strings.Contains(s, `mintlify_agent_jobs{project="docs",status="active"} 1`) {
				t.Fatalf("a job that answers 404 is still exported or counted:\n%s\nlogs:\n%s", s, e.logs)
			}
		}
		// Read again every terminal interval (15 m), not every poll.
		if n := e.reads("a") - before; n < 4 || n > 5 {
			t.Errorf("%d reads of the missing job in an hour of polls every minute, want 4..5", n)
		}
		if n := e.logs.CountLines("agent job not found"); n != 1 {
			t.Errorf("the 404 was logged %d times, want once:\n%s", n, e.logs)
		}
		if n := e.logs.CountLines("level=error"); n != 0 {
			t.Errorf("a 404 logged as an error:\n%s", e.logs)
		}
		e.srv.AddJob(faultProject, mintlifytest.JobSpec{ID: "a", CreatedAt: day0})
		for range 15 {
			e.poll()
		}
		if s := e.series(); !strings.Contains(s, `mintlify_agent_jobs{project="docs",status="active"} 2`) {
			t.Fatalf("the job is not exported again 15 minutes after it came back:\n%s", s)
		}
		if n := e.logs.CountLines("agent job found again"); n != 1 {
			t.Errorf("the job's return was logged %d times, want once", n)
		}
		e.close()
		goleak.VerifyNone(t, running)
	})
	t.Run("unknown job status", func(t *testing.T) {
		running := goleak.IgnoreCurrent()
		e := newFaultJobsEnv(t)
		e.poll()
		e.srv.SetJobStatus(faultProject, "a", "paused")
		before := e.reads("a")
		for range 10 {
			e.poll()
			e.expectUp()
			s := e.series()
			for _, want := range []string{
				`mintlify_agent_jobs{project="docs",status="paused"} 1`,
				`mintlify_agent_jobs{project="docs",status="active"} 1`,
				`mintlify_agent_jobs{project="docs",status="completed"} 0`,
				`mintlify_agent_jobs{project="docs",status="archived"} 0`,
				`mintlify_agent_jobs{project="docs",status="failed"} 0`,
				`mintlify_agent_job_info{has_pr="false",job_id="a",model="claude-sonnet-4",project="docs",ref="",repository="https://github.com/acme/docs"} 1`,
				`mintlify_agent_job_status{job_id="a",project="docs",status="paused"} 1`,
				`mintlify_agent_job_status{job_id="a",project="docs",status="active"} 0`,
			} {
				if !strings.Contains(s, want) {
					t.Fatalf("missing %s in:\n%s", want, s)
				}
			}
		}
		// An unknown status is not terminal: polled every interval.
		if n := e.reads("a") - before; n != 10 {
			t.Errorf("%d reads of the job in 10 polls, want 10", n)
		}
		if n := e.logs.CountLines("status the exporter does not know"); n != 1 {
			t.Errorf("the unknown status was logged %d times, want once:\n%s", n, e.logs)
		}
		e.srv.SetJobStatus(faultProject, "a", "active")
		e.poll()
		if s := e.series(); strings.Contains(s, `status="paused"`) {
			t.Fatalf("the unknown status is still exported after the job left it:\n%s", s)
		}
		e.close()
		goleak.VerifyNone(t, running)
	})
}
