package health

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// Source names as the exporter's sources use them.
const (
	SourceVisitors = "visitors"
	SourceJobs     = "jobs"
)

// TestStatusPerUnit: mintlify_up and the duration are per project and
// source; the last success and the interval are per unit, the last
// success from the unit's first data on, whatever the other units of the
// pair. (They were per pair, the last success exported only once every
// unit had data: at 10 projects x 500 paths it was absent for 65 minutes,
// and the stale alert compared 1d data with the longest interval.)
func TestStatusPerUnit(t *testing.T) {
	s := NewStatus()
	t0 := time.Unix(1_700_000_000, 0)
	s.Track("docs", SourceVisitors, "1d", PartTotals)
	s.Track("docs", SourceVisitors, "1d", PartPages)
	s.Track("docs", SourceVisitors, "7d", PartPages)
	s.Track("api", SourceJobs, "", PartAll)
	s.SetInterval("docs", SourceVisitors, "1d", PartTotals, 15*time.Minute)
	s.SetInterval("docs", SourceVisitors, "1d", PartPages, 30*time.Minute)
	s.SetInterval("docs", SourceVisitors, "7d", PartPages, 20*time.Hour)
	s.SetInterval("api", SourceJobs, "", PartAll, time.Minute)
	s.Succeeded("docs", SourceVisitors, "1d", PartTotals, t0, 2*time.Second)
	// 7d never succeeded: down, and no last-success timestamp for it yet.
	s.Failed("docs", SourceVisitors, "7d", PartPages, 3*time.Second)
	s.Succeeded("api", SourceJobs, "", PartAll, t0.Add(time.Minute), 500*time.Millisecond)

	expected := `
# HELP mintlify_last_success_timestamp_seconds Unix time at the end of the unit's last successful refresh.
# TYPE mintlify_last_success_timestamp_seconds gauge
mintlify_last_success_timestamp_seconds{part="all",project="api",source="jobs",window=""} 1.70000006e+09
mintlify_last_success_timestamp_seconds{part="totals",project="docs",source="visitors",window="1d"} 1.7e+09
# HELP mintlify_refresh_duration_seconds Duration of the source's last refresh, successful or not.
# TYPE mintlify_refresh_duration_seconds gauge
mintlify_refresh_duration_seconds{project="api",source="jobs"} 0.5
mintlify_refresh_duration_seconds{project="docs",source="visitors"} 3
# HELP mintlify_refresh_interval_seconds Interval between refreshes the exporter plans for the unit.
# TYPE mintlify_refresh_interval_seconds gauge
mintlify_refresh_interval_seconds{part="all",project="api",source="jobs",window=""} 60
mintlify_refresh_interval_seconds{part="pages",project="docs",source="visitors",window="1d"} 1800
mintlify_refresh_interval_seconds{part="pages",project="docs",source="visitors",window="7d"} 72000
mintlify_refresh_interval_seconds{part="totals",project="docs",source="visitors",window="1d"} 900
# HELP mintlify_up 0 when a unit of the source failed its last refresh, else 1.
# TYPE mintlify_up gauge
mintlify_up{project="api",source="jobs"} 1
mintlify_up{project="docs",source="visitors"} 0
`
	if err := testutil.CollectAndCompare(s, strings.NewReader(expected)); err != nil {
		t.Fatal(err)
	}
	s.Succeeded("docs", SourceVisitors, "7d", PartPages, t0.Add(-time.Minute), time.Second)
	s.Succeeded("docs", SourceVisitors, "1d", PartPages, t0.Add(-time.Hour), 0)
	if !s.Up("docs", SourceVisitors) {
		t.Fatal("docs visitors not up")
	}
	last := `
# HELP mintlify_last_success_timestamp_seconds Unix time at the end of the unit's last successful refresh.
# TYPE mintlify_last_success_timestamp_seconds gauge
mintlify_last_success_timestamp_seconds{part="all",project="api",source="jobs",window=""} 1.70000006e+09
mintlify_last_success_timestamp_seconds{part="pages",project="docs",source="visitors",window="1d"} 1.6999964e+09
mintlify_last_success_timestamp_seconds{part="pages",project="docs",source="visitors",window="7d"} 1.69999994e+09
mintlify_last_success_timestamp_seconds{part="totals",project="docs",source="visitors",window="1d"} 1.7e+09
`
	if err := testutil.CollectAndCompare(s, strings.NewReader(last), "mintlify_last_success_timestamp_seconds"); err != nil {
		t.Fatal(err)
	}
	if problems, err := testutil.CollectAndLint(s); err != nil || len(problems) > 0 {
		t.Fatalf("lint: %v %v", problems, err)
	}
}

// TestStatusNotTriedIsNotDown: a part tracked but never refreshed (it waits
// for the request budget) leaves the pair up; a failure takes it down and
// a later success brings it back.
func TestStatusNotTriedIsNotDown(t *testing.T) {
	s := NewStatus()
	s.Track("docs", SourceVisitors, "1d", PartTotals)
	s.Track("docs", SourceVisitors, "30d", PartTotals)
	if !s.Up("docs", SourceVisitors) {
		t.Fatal("a source nothing was tried of is down")
	}
	s.Succeeded("docs", SourceVisitors, "1d", PartTotals, time.Unix(1_700_000_000, 0), time.Second)
	if !s.Up("docs", SourceVisitors) {
		t.Fatal("a source whose 30d window waits is down")
	}
	s.Failed("docs", SourceVisitors, "30d", PartTotals, time.Second)
	if s.Up("docs", SourceVisitors) {
		t.Fatal("a failed window leaves the source up")
	}
	s.Succeeded("docs", SourceVisitors, "30d", PartTotals, time.Unix(1_700_000_000, 0), time.Second)
	if !s.Up("docs", SourceVisitors) {
		t.Fatal("a window that succeeded again leaves the source down")
	}
}
