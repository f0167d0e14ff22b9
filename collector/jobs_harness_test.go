package collector_test

import (
	"context"
	"github.com/mintlify-exporter/mintlify_exporter/internal/logbuf"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
)

// jobsT0 is the start of the test clock: 2025-03-01T12:00:00Z.
var jobsT0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// jobsEnv is a fake API, a client of it and a clock they share.
type jobsEnv struct {
	t      *testing.T
	clock  *mintlifytest.Clock
	fake   *mintlifytest.Server
	client *client.Client
	status *collector.Status
	logs   *logbuf.Buffer
}

func newJobsEnv(t *testing.T) *jobsEnv {
	t.Helper()
	clk := mintlifytest.NewClock(jobsT0)
	fake := mintlifytest.NewServer(mintlifytest.WithClock(clk.Now))
	t.Cleanup(fake.Close)
	key, err := client.StaticKey(mintlifytest.DefaultKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.Config{
		BaseURL: fake.URL(),
		Key:     key,
		Retry:   client.RetryPolicy{MaxAttempts: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &jobsEnv{t: t, clock: clk, fake: fake, client: c, status: collector.NewStatus(), logs: &logbuf.Buffer{}}
}

// watcher returns a watcher of the env's fake; cfg's Client, Status,
// Logger and Now are filled in.
func (e *jobsEnv) watcher(cfg collector.JobsConfig) *collector.JobsWatcher {
	e.t.Helper()
	cfg.Client, cfg.Status, cfg.Now = e.client, e.status, e.clock.Now
	cfg.Logger = log.NewLogfmtLogger(e.logs)
	w, err := collector.NewJobsWatcher(cfg)
	if err != nil {
		e.t.Fatalf("NewJobsWatcher: %v", err)
	}
	return w
}

// poll runs one round.
func (e *jobsEnv) poll(w *collector.JobsWatcher) {
	e.t.Helper()
	w.Poll(context.Background())
}

// Exposition headers, literally as the watcher and the status describe them.
const (
	jobsHeader = `# HELP mintlify_agent_jobs Watched agent jobs by status, read from the API every poll interval (terminal jobs less often). The four documented statuses are always present; an undocumented status is counted under its own value.
# TYPE mintlify_agent_jobs gauge
`
	jobInfoHeader = `# HELP mintlify_agent_job_info Always 1 for each watched agent job, with its state as read from the API every poll interval (terminal jobs less often). ref is empty when the API sends none; has_pr is true once the job has a pull request link.
# TYPE mintlify_agent_job_info gauge
`
	jobCreatedHeader = `# HELP mintlify_agent_job_created_timestamp_seconds Unix time at which each watched agent job was created (its createdAt), read from the API every poll interval (terminal jobs less often).
# TYPE mintlify_agent_job_created_timestamp_seconds gauge
`
	jobsUpHeader = `# HELP mintlify_up 1 when the last refresh of the source (visitors, views, assistant, feedback, searches, conversations, jobs) succeeded for the project, 0 when it failed. For an analytics source, every window must have succeeded.
# TYPE mintlify_up gauge
`
	jobsIntervalHeader = `# HELP mintlify_refresh_interval_seconds Interval between refreshes the exporter currently plans for the source, after any stretching to fit the request budget.
# TYPE mintlify_refresh_interval_seconds gauge
`
)

// expect compares the watcher's whole exposition with want.
func (e *jobsEnv) expect(w *collector.JobsWatcher, want string) {
	e.t.Helper()
	if err := testutil.CollectAndCompare(w, strings.NewReader(want)); err != nil {
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
func jobsGather(t *testing.T, w *collector.JobsWatcher, name string) []*dto.Metric {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(w)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()
		}
	}
	return nil
}
