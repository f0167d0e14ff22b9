package jobs_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/health"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/logbuf"
	"github.com/mintlify-exporter/mintlify_exporter/internal/promtest"
	"github.com/mintlify-exporter/mintlify_exporter/jobs"
)

// jobsT0 is the start of the test clock: 2025-03-01T12:00:00Z.
var jobsT0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// jobsEnv is a fake API, a client of it and a clock they share.
type jobsEnv struct {
	t      *testing.T
	rig    *apitest.Rig
	clock  *mintlifytest.Clock
	fake   *mintlifytest.Server
	client *client.Client
	status *health.Status
	logs   *logbuf.Buffer
}

func newJobsEnv(t *testing.T) *jobsEnv {
	t.Helper()
	r := apitest.NewRig(t, jobsT0)
	c := r.Client(client.Config{Retry: client.RetryPolicy{MaxAttempts: 1}})
	return &jobsEnv{t: t, rig: r, clock: r.Clock, fake: r.Fake, client: c, status: health.NewStatus(), logs: &logbuf.Buffer{}}
}

// watcher returns a watcher of the env's fake; cfg's Client, Status,
// Logger and Now are filled in.
func (e *jobsEnv) watcher(cfg jobs.Config) *jobs.Watcher {
	e.t.Helper()
	cfg.Client, cfg.Status, cfg.Now = e.client, e.status, e.clock.Now
	cfg.Logger = log.NewLogfmtLogger(e.logs)
	w, err := jobs.New(cfg)
	if err != nil {
		e.t.Fatalf("New: %v", err)
	}
	return w
}

// poll runs one round.
func (e *jobsEnv) poll(w *jobs.Watcher) {
	e.t.Helper()
	w.Poll(context.Background())
}

// Exposition headers, literally as the watcher and the status describe them.
const (
	jobsHeader = `# HELP mintlify_agent_jobs Watched agent jobs by status.
# TYPE mintlify_agent_jobs gauge
`
	jobInfoHeader = `# HELP mintlify_agent_job_info Attributes of each watched agent job, always 1.
# TYPE mintlify_agent_job_info gauge
`
	jobStatusHeader = `# HELP mintlify_agent_job_status 1 for the watched agent job's current status, 0 for each other status.
# TYPE mintlify_agent_job_status gauge
`
	jobCreatedHeader = `# HELP mintlify_agent_job_created_timestamp_seconds Unix time at which the watched agent job was created.
# TYPE mintlify_agent_job_created_timestamp_seconds gauge
`
	jobsNotFoundHeader = `# HELP mintlify_agent_jobs_not_found Watched agent jobs whose last read answered 404 (not found).
# TYPE mintlify_agent_jobs_not_found gauge
`
	jobsUpHeader = `# HELP mintlify_up 0 when a unit of the source failed its last refresh, else 1.
# TYPE mintlify_up gauge
`
	jobsIntervalHeader = `# HELP mintlify_refresh_interval_seconds Interval between refreshes the exporter plans for the unit.
# TYPE mintlify_refresh_interval_seconds gauge
`
)

// infoWithStatus is a mintlify_agent_job_info line in the short form the
// tests write: with the job's status as a last label.
var infoWithStatus = regexp.MustCompile(`(?m)^(mintlify_agent_job_info\{has_pr="[^"]*",job_id="([^"]*)",model="[^"]*",project="([^"]*)",ref="[^"]*",repository="[^"]*"),status="([^"]*)"\} 1$`)

// expandJobs turns the tests' short form of an exposition into the
// watcher's: each mintlify_agent_job_info line written with a status label
// becomes the info line without it plus the job's mintlify_agent_job_status
// lines (1 for that status, 0 for each other documented one, and its own
// series for an undocumented one); and unless want gives
// mintlify_agent_jobs_not_found itself, it is 0 for every project with
// mintlify_agent_jobs lines.
func expandJobs(want string) string {
	var status strings.Builder
	want = infoWithStatus.ReplaceAllStringFunc(want, func(line string) string {
		m := infoWithStatus.FindStringSubmatch(line)
		job, project, current := m[2], m[3], m[4]
		known := false
		for _, s := range client.JobStatuses {
			v := "0"
			if string(s) == current {
				v, known = "1", true
			}
			fmt.Fprintf(&status, "mintlify_agent_job_status{job_id=%q,project=%q,status=%q} %s\n", job, project, s, v)
		}
		if !known {
			fmt.Fprintf(&status, "mintlify_agent_job_status{job_id=%q,project=%q,status=%q} 1\n", job, project, current)
		}
		return m[1] + "} 1"
	})
	if status.Len() > 0 {
		want += jobStatusHeader + status.String()
	}
	if !strings.Contains(want, "mintlify_agent_jobs_not_found") {
		seen := map[string]bool{}
		var nf strings.Builder
		for _, m := range regexp.MustCompile(`mintlify_agent_jobs\{project="([^"]*)"`).FindAllStringSubmatch(want, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				fmt.Fprintf(&nf, "mintlify_agent_jobs_not_found{project=%q} 0\n", m[1])
			}
		}
		want += jobsNotFoundHeader + nf.String()
	}
	return want
}

// expect compares the watcher's whole exposition with want, in the short
// form expandJobs reads.
func (e *jobsEnv) expect(w *jobs.Watcher, want string) {
	e.t.Helper()
	var names []string // every family, unless want gives mintlify_agent_sessions_skipped_total
	if !strings.Contains(want, "mintlify_agent_sessions_skipped_total") {
		names = []string{"mintlify_agent_jobs", "mintlify_agent_job_info", "mintlify_agent_job_status",
			"mintlify_agent_job_created_timestamp_seconds", "mintlify_agent_jobs_not_found"}
	}
	if err := testutil.CollectAndCompare(w, strings.NewReader(expandJobs(want)), names...); err != nil {
		e.t.Error(err)
	}
	problems, err := testutil.CollectAndLint(w)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, p := range problems {
		e.t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

// expectUp compares mintlify_up and mintlify_refresh_interval_seconds.
func (e *jobsEnv) expectUp(want string) {
	e.t.Helper()
	if err := testutil.CollectAndCompare(e.status, strings.NewReader(want), "mintlify_up", "mintlify_refresh_interval_seconds"); err != nil {
		e.t.Error(err)
	}
}

// jobsCounts renders the mintlify_agent_jobs lines of one project.
func jobsCounts(project string, active, archived, completed, failed int) string {
	var b strings.Builder
	for _, s := range []struct {
		name string
		n    int
	}{{"active", active}, {"archived", archived}, {"completed", completed}, {"failed", failed}} {
		b.WriteString(`mintlify_agent_jobs{project="` + project + `",status="` + s.name + `"} ` + strconv.Itoa(s.n) + "\n")
	}
	return b.String()
}

// jobsGather returns the series of one metric family of the watcher.
func jobsGather(t *testing.T, w *jobs.Watcher, name string) []*dto.Metric {
	t.Helper()
	return promtest.Gather(t, w, name)
}
