package landingpage

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
)

func TestPageShowsEveryUnitAndEscapes(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	w7 := engine.Window{Name: "7d", Days: 7}
	h := New(Config{Version: "1.2.3", TelemetryPath: "/metrics", JobsEnabled: true, JobsDescribe: "watching 2 job id(s)"}, State{
		Units: func() []engine.UnitState {
			return []engine.UnitState{
				{Unit: engine.Unit{Source: "visitors", Project: "docs", Window: w7}, Range: client.LastNDays(now, 7),
					Completed: now.Add(-90 * time.Second), Cost: 1, Summary: "5 paths, 3 exported", Interval: 20 * time.Minute},
				{Unit: engine.Unit{Source: "views", Project: "<script>x</script>", Window: engine.Window{Name: "1d", Days: 1}},
					LastError: "views: HTTP 401: Unauthorized", Cost: 1, Interval: 15 * time.Minute},
				{Unit: engine.Unit{Source: "searches", Project: "api", Window: engine.Window{Name: "30d", Days: 30, Site: true}},
					Deferred: "needs 40 requests, 10 of 90 left in the last hour", Cost: 40, Interval: time.Hour},
			}
		},
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
		"70 of 90",
		"<td>visitors</td><td>docs</td><td>7d</td><td>[2026-03-04, 2026-03-11)</td><td>1</td><td>20m0s</td><td>5 paths, 3 exported</td><td>1m30s ago</td><td>ok</td>",
		"<td>searches</td><td>api</td><td>30d:site</td><td>-</td><td>40</td><td>1h0m0s</td>",
		"failing: views: HTTP 401: Unauthorized",
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
