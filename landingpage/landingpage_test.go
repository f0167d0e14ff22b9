package landingpage

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
)

func TestPageShowsEveryWalkAndEscapes(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	snap := &collector.Snapshot{
		Project: "docs", Window: "7d",
		Range:     client.LastNDays(now, 7),
		Rows:      make([]client.PathVisitors, 3),
		Returned:  5,
		Pages:     1,
		Completed: now.Add(-90 * time.Second),
	}
	h := New(Config{Version: "1.2.3", TelemetryPath: "/metrics", JobsEnabled: true, JobsDescribe: "watching 2 job id(s)"}, State{
		Visitors: func() []collector.WalkState {
			return []collector.WalkState{
				{Project: "docs", Window: "7d", Snapshot: snap},
				{Project: "<script>x</script>", Window: "1d", LastError: "visitors: HTTP 401: Unauthorized"},
				{Project: "api", Window: "30d", Deferred: "needs 40 requests, 10 of 90 left in the last hour"},
			}
		},
		Interval:        func() time.Duration { return 20 * time.Minute },
		BudgetRemaining: func() int { return 70 },
		BudgetPerHour:   90,
		Notes:           []string{"DEMO MODE: synthetic data"},
		Now:             func() time.Time { return now },
	})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
	body, _ := io.ReadAll(rec.Body)
	page := string(body)
	for _, want := range []string{
		"Mintlify Exporter", "1.2.3", `href="/metrics"`, "-/ready",
		"Refresh interval: 20m0s", "70 of 90",
		"<td>docs</td><td>7d</td><td>[2026-03-04, 2026-03-11)</td><td>5 (3)</td><td>1</td><td>1m30s ago</td><td>ok</td>",
		"failing: visitors: HTTP 401: Unauthorized",
		"waiting: needs 40 requests",
		"watching 2 job id(s)", "DEMO MODE: synthetic data",
		"&lt;script&gt;x&lt;/script&gt;",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>x</script>") {
		t.Error("a project id was not escaped")
	}
}
