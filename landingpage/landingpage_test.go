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
	"github.com/mintlify-exporter/mintlify_exporter/jobs"
)

func get(t *testing.T, h http.Handler) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
	body, _ := io.ReadAll(rec.Body)
	return string(body)
}

func TestPageShowsEveryUnitAndEscapes(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	w7, _ := engine.ParseWindow("7d")
	w1, _ := engine.ParseWindow("1d")
	w30, _ := engine.ParseWindow("30d")
	h := New(Config{Version: "1.2.3", TelemetryPath: "/metrics", JobsDescribe: "watching 2 job id(s)", Jobs: func() []jobs.Row { return nil },
		Units: func() []engine.UnitState {
			return []engine.UnitState{
				{Unit: engine.Unit{Source: "visitors", Project: "docs", Window: w7}, Range: client.LastNDays(now, 7), State: engine.StateOK,
					Next: now.Add(18 * time.Minute), Completed: now.Add(-90 * time.Second), Cost: 1, Summary: "5 paths", Interval: 20 * time.Minute},
				{Unit: engine.Unit{Source: "visitors", Project: "<script>x</script>", Window: w1}, State: engine.StateFailing,
					Next: now.Add(30 * time.Second), LastError: "visitors: HTTP 401: Unauthorized"},
				{Unit: engine.Unit{Source: "visitors", Project: "api", Window: w30}, State: engine.StateWaiting, Next: now.Add(65 * time.Minute),
					Deferred: "waiting for the request budget (40 requests)"},
			}
		},
		BudgetRemaining: func() int { return 70 },
		BudgetPerHour:   90,
		Now:             func() time.Time { return now },
	})
	page := get(t, h)
	for _, want := range []string{
		"Mintlify Exporter", "1.2.3", `href="/metrics"`, "-/ready", "70 of 90",
		`<td>visitors</td><td>docs</td><td>7d</td><td class="nowrap">[2026-03-04, 2026-03-11)</td><td class="detail">1</td><td class="detail">20m0s</td><td>5 paths</td><td>1m30s ago</td><td class="state-ok">ok, next refresh about 12:18 UTC</td>`,
		`<td class="state-failing">failing: visitors: HTTP 401: Unauthorized (next try about 12:00 UTC)</td>`,
		`<td class="state-waiting">waiting for the request budget (40 requests), expected about 13:05 UTC</td>`,
		"3 units: 1 ok, 1 waiting for the budget, 1 failing. Requests left this hour: 70 of 90. Next refresh about 12:00 UTC. All data expected by about 13:05 UTC.",
		"watching 2 job id(s)",
		"&lt;script&gt;x&lt;/script&gt;",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "<script>x</script>") {
		t.Error("a project id was not escaped")
	}
	if strings.Contains(page, "debug/pprof") {
		t.Error("the page links to /debug/pprof, which the exporter does not serve")
	}
}

func TestDemoBannerFirstAndExamples(t *testing.T) {
	h := New(Config{Version: "1.2.3", TelemetryPath: "/metrics",
		Examples:        []string{"mintlify_exporter agent get --demo --job=job-demo-done", "x --prompt='a<b'"},
		Units:           func() []engine.UnitState { return nil },
		BudgetRemaining: func() int { return 1 },
		Notes:           []string{"DEMO MODE: synthetic data"},
	})
	page := get(t, h)
	banner := strings.Index(page, "DEMO MODE: synthetic data")
	links := strings.Index(page, `href="/metrics"`)
	if banner < 0 || links < 0 || banner > links {
		t.Errorf("the demo banner (at %d) does not come before the links (at %d):\n%s", banner, links, page)
	}
	if !strings.Contains(page, "<pre>mintlify_exporter agent get --demo --job=job-demo-done\nx --prompt=&#39;a&lt;b&#39;\n</pre>") {
		t.Errorf("examples missing or not escaped:\n%s", page)
	}
}

func TestJobsTable(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	h := New(Config{TelemetryPath: "/metrics", JobsDescribe: "watching",
		Units:           func() []engine.UnitState { return nil },
		BudgetRemaining: func() int { return 1 },
		Now:             func() time.Time { return now },
		Jobs: func() []jobs.Row {
			return []jobs.Row{
				{Project: "docs", ID: "job-1", Status: "completed", CreatedAt: now.Add(-2 * time.Hour), PRLink: "https://github.com/acme/docs/pull/7", Known: true},
				{Project: "docs", ID: "job-<2>", NotFound: true},
				{Project: "docs", ID: "job-3", Status: "active", PRLink: "javascript:alert(1)", Known: true},
			}
		},
	})
	page := get(t, h)
	for _, want := range []string{
		"<th>project</th><th>job</th><th>status</th><th>age</th><th>pull request</th>",
		`<td>docs</td><td>job-1</td><td>completed</td><td>2h0m0s</td><td><a href="https://github.com/acme/docs/pull/7">`,
		"<td>job-&lt;2&gt;</td><td>not read yet (last read failed: not found (404): the job does not exist in this project)</td><td>-</td><td>-</td>",
		"<td>active</td><td>-</td><td>javascript:alert(1)</td>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, `href="javascript:`) {
		t.Error("a pull request link that is not http(s) became a link")
	}
}

// TestReserveSaysWhyUnitsWait: units waiting with requests left get a
// sentence saying what of the budget left they may not spend; none when no
// unit waits, when nothing is left, or when they wait for a 429 pause.
func TestReserveSaysWhyUnitsWait(t *testing.T) {
	now := time.Date(2026, 3, 10, 23, 30, 0, 0, time.UTC)
	w30, _ := engine.ParseWindow("30d")
	waiting := engine.UnitState{Unit: engine.Unit{Source: "visitors", Project: "api", Window: w30}, State: engine.StateWaiting,
		Next: now.Add(20 * time.Minute), Deferred: "waiting for the request budget (4 requests)"}
	paused := waiting
	paused.Deferred = "waiting for the API's rate-limit pause to end"
	ok := engine.UnitState{Unit: engine.Unit{Source: "views", Project: "api", Window: w30}, State: engine.StateOK, Completed: now}
	page := func(left, reserve int, units ...engine.UnitState) string {
		return get(t, New(Config{TelemetryPath: "/metrics",
			Units:           func() []engine.UnitState { return units },
			BudgetRemaining: func() int { return left },
			BudgetPerHour:   90,
			Reserve:         func() int { return reserve },
			Now:             func() time.Time { return now },
		}))
	}
	const why = "Why 1 units wait with 9 requests left: the last 9 are kept for units without data and the 1d windows&#39; new day at UTC midnight"
	if p := page(9, 9, waiting, ok); !strings.Contains(p, why+`; waiting units go in the order of the &#34;next request&#34; column as requests leave the sliding hour.`) {
		t.Errorf("the page does not say why the unit waits:\n%s", p)
	}
	for name, p := range map[string]string{
		"no unit waits":     page(9, 9, ok),
		"nothing left":      page(0, 9, waiting),
		"a rate-limit wait": page(9, 9, paused),
	} {
		if strings.Contains(p, "Why ") {
			t.Errorf("%s: the page explains a wait that is not the reserve's:\n%s", name, p)
		}
	}
}
