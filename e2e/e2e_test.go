package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/promtest"
)

// The fake organization.
const (
	projectDocs = "e2e-docs"
	// streamSubdomain is projectDocs' deployment in the event stream.
	streamSubdomain = "e2e-docs-site"
	projectAPI      = "e2e-api"

	jobFailing = "job-failing" // active, fails failAfter after the exporter starts
	jobActive  = "job-active"  // created three hours ago, never ends
	jobDone    = "job-done"    // completed from the start
)

// failAfter is how long the failing job runs. It leaves the stack time to
// start, so that Prometheus records the job as active before it fails.
const failAfter = 15 * time.Second

// sources are the exporter's sources, all of which the test turns on.
var sources = []string{"visitors", "views", "assistant", "feedback", "searches", "conversations", "jobs"}

// gapTerm is a search term of projectDocs that nobody clicks a result for:
// the most searched term of the 1d and 7d windows, so that the top terms
// exported include a content gap.
const gapTerm = "e2e term without an answer"

// Values of Grafana's variables in dashboard queries. $__interval is the
// scrape interval; $__rate_interval is what Grafana computes for a data
// source whose scrape interval is 1s (4 × the scrape interval); $__range
// is a short dashboard range. $project, $window and $path get real values.
var grafanaValues = map[string]string{
	"__interval":      "1s",
	"__interval_ms":   "1000",
	"__rate_interval": "4s",
	"__range":         "30s",
	"__range_s":       "30",
	"__range_ms":      "30000",
	"project":         projectDocs,
	"window":          "7d",
	// job and instance are Grafana's "All" (their allValue), as they are
	// by default; the queries' instance=~"$instance|" still selects the
	// backfilled series, which have no instance label.
	"job":      ".+",
	"instance": ".+",
	// "path" is set to the most visited page of projectDocs.
}

// stack is the running system under test.
type stack struct {
	tools        toolset
	srv          *mintlifytest.Server
	docs, api    *mintlifytest.Dataset // the data of projectDocs and projectAPI
	s3           *mintlifytest.S3      // the event stream's bucket
	sw           *mintlifytest.StreamWriter
	exporter     *process
	alertmanager *process
	prometheus   *process
	prom         promAPI
	hook         *webhook
	ruleAlerts   []string // alert names of the shipped rules file
	path         string   // the most visited page of projectDocs
	scrape       []byte   // the exporter's text exposition once every source was up
	ledger       string   // the remediation webhook's ledger
	thumbsPage   string   // the page made to collect thumbs down

	queries  []dashQuery
	failedAt time.Time // first sample of 1 in the failing job's failed status series
}

// TestPrometheusEndToEnd runs the exporter, Prometheus with the shipped
// rules, and Alertmanager, and checks the dashboards and alerts against
// them. The phases share one stack and run in order; the last one breaks
// the upstream API.
func TestPrometheusEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test with real Prometheus and Alertmanager: skipped with -short")
	}
	tools := lookTools(t)
	begin := time.Now()
	s := startStack(t, tools)
	t.Logf("stack started in %s", time.Since(begin).Round(time.Millisecond))

	t.Run("amtool check-config", s.checkAlertmanagerConfig)
	t.Run("promtool check metrics", s.checkMetrics)
	t.Run("rules loaded", s.checkRulesLoaded)
	t.Run("agent job failed", s.checkJobFailed)
	// Before the dashboards: it makes the API send a malformed row, which
	// the skipped-rows panel needs.
	t.Run("docs quality alerts", s.checkDocsQualityAlerts)
	t.Run("remediation", s.checkRemediation)
	t.Run("dashboards", s.checkDashboards)
	t.Run("rate limited", s.checkRateLimited)
	t.Run("refresh failing", s.checkRefreshFailing)
	t.Run("no secret", s.checkNoSecret)
	t.Logf("end-to-end test took %s", time.Since(begin).Round(time.Millisecond))
}

// startStack starts the fake API, the exporter, the webhook, Alertmanager
// and Prometheus, in that order.
func startStack(t *testing.T, tools toolset) *stack {
	t.Helper()
	dir := t.TempDir()
	s := &stack{tools: tools}

	// Data up to tomorrow, so a UTC midnight during the test changes
	// nothing.
	today := time.Now().UTC().Truncate(24 * time.Hour)
	s.docs = mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 1, Paths: 60, Days: 30, End: today.AddDate(0, 0, 1)})
	s.api = mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 2, Paths: 25, Days: 30, End: today.AddDate(0, 0, 1)})
	s.docs.SetSearch(today, gapTerm, 500, 0, "")
	s.srv = apitest.Fake(t, mintlifytest.WithProject(projectDocs, s.docs), mintlifytest.WithProject(projectAPI, s.api))
	_, rows := s.srv.Visitors(projectDocs, today.AddDate(0, 0, -6), today.AddDate(0, 0, 1))
	if len(rows) == 0 {
		t.Fatal("the generated data has no page in the 7d window")
	}
	s.path = rows[0].Path

	// The Enterprise event stream of projectDocs too, with every fault (the
	// stream dashboard shows refused lines, duplicates and a vanished
	// object): the last half hour's events, in an S3 fake. Written before
	// the jobs are added: the 10 MB line takes a while.
	s.s3 = mintlifytest.NewS3("e2e-events")
	t.Cleanup(s.s3.Close)
	s.s3.SetAccessKey("AKIDE2E")
	s.sw = mintlifytest.NewStreamWriter(s.s3, "events/", 1)
	if err := s.sw.Write(t.Context(), mintlifytest.StreamOptions{Events: 600, Subdomains: []string{streamSubdomain},
		Start: time.Now().Add(-30 * time.Minute), Every: 2 * time.Second, PerObject: 60,
		Faults: mintlifytest.AllStreamFaults()}); err != nil {
		t.Fatal(err)
	}

	s.srv.AddJob(projectDocs, mintlifytest.JobSpec{ID: jobActive, Repository: "acme/docs", Ref: "main",
		CreatedAt: time.Now().Add(-3 * time.Hour)})
	s.srv.AddJob(projectAPI, mintlifytest.JobSpec{ID: jobDone, Repository: "acme/api-docs", Model: "claude-opus-4",
		Status: "completed"})
	s.srv.AddJob(projectDocs, mintlifytest.JobSpec{ID: jobFailing, Repository: "acme/docs", Ref: "fix-links",
		RunFor: failAfter, Outcome: "failed"})
	jobAdded := time.Now()

	// Every source is on. The budget is raised from the default 90
	// requests an hour, which would stretch the 2s refresh interval of
	// 6 sources × 2 projects × 3 windows (one request each) to hours and
	// keep the alerts from firing within the test. The fake enforces no
	// rate limit.
	s.ledger = filepath.Join(dir, "state.json.remediation")
	tokenFile := writeFile(t, dir, "remediation-token", []byte(remediationToken+"\n"))
	s.exporter = startExporter(t, []string{"MINTLIFY_API_KEY=" + mintlifytest.DefaultKey,
		"AWS_ACCESS_KEY_ID=AKIDE2E", "AWS_SECRET_ACCESS_KEY=e2e-secret", "AWS_CONFIG_FILE=/nonexistent",
		"AWS_SHARED_CREDENTIALS_FILE=/nonexistent", "AWS_EC2_METADATA_DISABLED=true"},
		"--stream.s3.bucket=e2e-events",
		"--stream.s3.prefix=events/",
		"--stream.s3.endpoint="+s.s3.URL(),
		"--stream.s3.region=us-east-1",
		"--stream.poll-interval=1s",
		"--stream.project="+streamSubdomain+"="+projectDocs,
		// Both paths for the mapped project: the REST dashboards' queries need its views too.
		"--stream.keep-rest",
		"--remediation.config="+writeFile(t, dir, "remediation.yml", remediationRules(t)),
		"--remediation.token-file="+tokenFile,
		"--cache.file="+filepath.Join(dir, "state.json"),
		"--mintlify.api-url="+s.srv.URL(),
		"--mintlify.project-id="+projectDocs,
		"--mintlify.project-id="+projectAPI,
		"--mintlify.requests-per-hour=200000",
		"--analytics.refresh-interval=2s",
		"--collector.conversations",
		"--searches.top-terms=5",
		"--collector.jobs",
		"--jobs.id="+projectDocs+"/"+jobFailing,
		"--jobs.id="+projectDocs+"/"+jobActive,
		"--jobs.id="+projectAPI+"/"+jobDone,
		"--jobs.poll-interval=1s",
		"--log.level=debug")
	// The first scrapes start the first refreshes; Prometheus starts once
	// every source is up, so that no alert fires from the start-up.
	eventually(t, 20*time.Second, "every project's sources up in the exporter", s.scrapeUp)

	s.hook = newWebhook(t)
	amConfig := writeFile(t, dir, "alertmanager.yml", []byte(alertmanagerConfig(s.hook.URL(), "http://"+s.exporter.addr+"/webhook/alertmanager", tokenFile)))
	if out, err := runTool(t, nil, tools.amtool, "check-config", amConfig); err != nil {
		t.Fatalf("amtool check-config on the test's configuration: %v\n%s", err, out)
	}
	s.alertmanager = startProcess(t, "alertmanager", tools.alertmanager, environ(), func(addr string) []string {
		return []string{
			"--config.file=" + amConfig,
			"--storage.path=" + dir + "/alertmanager-data",
			"--web.listen-address=" + addr,
			"--cluster.listen-address=", // no clustering
		}
	}, "/-/ready")

	rules, alerts := testRules(t)
	s.ruleAlerts = alerts
	rulesFile := writeFile(t, dir, "mintlify.rules.yml", rules)
	promConfig := writeFile(t, dir, "prometheus.yml",
		[]byte(prometheusConfig(rulesFile, s.exporter.addr, s.alertmanager.addr)))
	if out, err := runTool(t, nil, tools.promtool, "check", "config", promConfig); err != nil {
		t.Fatalf("promtool check config on the test's configuration: %v\n%s", err, out)
	}
	s.prometheus = startProcess(t, "prometheus", tools.prometheus, environ(), func(addr string) []string {
		return []string{
			"--config.file=" + promConfig,
			"--storage.tsdb.path=" + dir + "/prometheus-data",
			"--web.listen-address=" + addr,
		}
	}, "/-/ready")
	s.prom = promAPI{base: "http://" + s.prometheus.addr}
	eventually(t, 20*time.Second, "Prometheus scraping the exporter", func() string {
		return s.expectData(fmt.Sprintf(`up{job=%q} == 1`, scrapeJob), time.Time{})
	})
	t.Logf("Prometheus scraped the exporter %s after the failing job started", time.Since(jobAdded).Round(time.Millisecond))
	return s
}

// scrapeUp scrapes the exporter in the text format and returns why it is
// not ready yet: every project's mintlify_up must be 1 for every source
// and every watched job must be exported. The scrape is kept for promtool.
func (s *stack) scrapeUp() string {
	req, err := http.NewRequest(http.MethodGet, "http://"+s.exporter.addr+"/metrics", nil)
	if err != nil {
		return err.Error()
	}
	// As Prometheus does; the exporter never waits for it.
	req.Header.Set("X-Prometheus-Scrape-Timeout-Seconds", "5")
	resp, err := httpClient.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Sprintf("scrape: %s %v", resp.Status, err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return "the scrape does not parse: " + err.Error()
	}
	// A scrape answers at once, partial until every unit's first data is
	// in: the checks want it whole.
	for _, name := range []string{"mintlify_page_visitors_deduplicated", "mintlify_page_views", "mintlify_assistant_queries",
		"mintlify_page_feedback", "mintlify_searches", "mintlify_assistant_conversations"} {
		if fams[name] == nil {
			return "no " + name + " yet"
		}
	}
	up := map[string]float64{}
	jobs := map[string]bool{}
	for _, m := range fams["mintlify_up"].GetMetric() {
		l := promtest.Labels(m)
		up[l["project"]+"/"+l["source"]] = m.GetGauge().GetValue()
	}
	for _, m := range fams["mintlify_agent_job_info"].GetMetric() {
		l := promtest.Labels(m)
		jobs[l["project"]+"/"+l["job_id"]] = true
	}
	for _, p := range []string{projectDocs, projectAPI} {
		for _, src := range sources {
			if up[p+"/"+src] != 1 {
				return fmt.Sprintf("mintlify_up: %v", up)
			}
		}
	}
	for _, j := range []string{projectDocs + "/" + jobFailing, projectDocs + "/" + jobActive, projectAPI + "/" + jobDone} {
		if !jobs[j] {
			return fmt.Sprintf("job %s not exported yet (have %v)", j, jobs)
		}
	}
	s.scrape = body
	return ""
}

// expectData returns "" when expr returns data at time at (now when zero),
// else why not.
func (s *stack) expectData(expr string, at time.Time) string {
	series, err := s.prom.query(expr, at)
	if err != nil {
		return err.Error()
	}
	if len(series) == 0 {
		return "no data for " + expr
	}
	return ""
}

// waitAlert waits until Prometheus has a firing alert with every label of
// want, and returns it.
func (s *stack) waitAlert(t *testing.T, timeout time.Duration, want map[string]string) promAlert {
	t.Helper()
	var found promAlert
	eventually(t, timeout, "Prometheus firing "+formatLabels(want), func() string {
		alerts, err := s.prom.alerts()
		if err != nil {
			return err.Error()
		}
		for _, a := range alerts {
			if a.State == "firing" && hasLabels(a.Labels, want) {
				found = a
				return ""
			}
		}
		return describeAlerts(alerts)
	})
	return found
}

// waitNotification waits until a firing alert with every label of want
// has arrived at the webhook after since, and returns it.
func (s *stack) waitNotification(t *testing.T, timeout time.Duration, since time.Time, want map[string]string) notification {
	t.Helper()
	var found notification
	eventually(t, timeout, "webhook notified of firing "+formatLabels(want), func() string {
		for _, n := range s.hook.find("firing", want) {
			if !n.received.Before(since) {
				found = n
				return ""
			}
		}
		return s.hook.summary()
	})
	return found
}

// checkAlertmanagerConfig checks the shipped example configuration (the
// test's own was checked before Alertmanager started).
func (s *stack) checkAlertmanagerConfig(t *testing.T) {
	if out, err := runTool(t, nil, s.tools.amtool, "check-config", shippedAlertmanager); err != nil {
		t.Errorf("amtool check-config %s: %v\n%s", shippedAlertmanager, err, out)
	}
}

// checkMetrics lints the exporter's exposition with promtool.
func (s *stack) checkMetrics(t *testing.T) {
	out, err := runTool(t, s.scrape, s.tools.promtool, "check", "metrics")
	if err != nil || strings.TrimSpace(out) != "" {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
	for _, name := range []string{
		"mintlify_visitors", "mintlify_page_visitors_deduplicated",
		"mintlify_views", "mintlify_page_views", "mintlify_views_paths_exported",
		"mintlify_assistant_queries", "mintlify_page_feedback", "mintlify_feedback_pages_truncated",
		"mintlify_searches", "mintlify_search_term_hits", "mintlify_search_term_click_through_rate", "mintlify_search_term_click_through_ratio",
		"mintlify_search_terms_without_clicks", "mintlify_assistant_conversations",
		"mintlify_agent_job_info", "mintlify_agent_job_status", "mintlify_agent_jobs_not_found",
		"mintlify_api_budget_remaining",
	} {
		if !bytes.Contains(s.scrape, []byte("\n"+name+"{")) && !bytes.Contains(s.scrape, []byte("\n"+name+" ")) {
			t.Errorf("the checked scrape has no %s series", name)
		}
	}
}

// checkRulesLoaded checks that Prometheus loaded every alert of the
// shipped file, healthy and with the shortened for duration.
func (s *stack) checkRulesLoaded(t *testing.T) {
	var rules []promRule
	eventually(t, 10*time.Second, "every rule evaluated and healthy", func() string {
		var err error
		if rules, err = s.prom.rules(); err != nil {
			return err.Error()
		}
		for _, r := range rules {
			if r.Health != "ok" {
				return fmt.Sprintf("rule %s health %q", r.Name, r.Health)
			}
		}
		return ""
	})
	var loaded []string
	for _, r := range rules {
		if r.Type != "alerting" {
			continue
		}
		loaded = append(loaded, r.Name)
		if r.Duration > 1 {
			t.Errorf("alert %s loaded with for: %gs, want at most 1s", r.Name, r.Duration)
		}
	}
	slices.Sort(loaded)
	want := slices.Sorted(slices.Values(s.ruleAlerts))
	if !slices.Equal(loaded, want) {
		t.Errorf("Prometheus loaded alerts %v, the shipped file has %v", loaded, want)
	}
}

// checkJobFailed waits for the failing job's alert in Prometheus and at the
// webhook, and checks the alerts of the other jobs.
func (s *stack) checkJobFailed(t *testing.T) {
	want := map[string]string{
		"alertname": "MintlifyAgentJobFailed", "project": projectDocs, "job_id": jobFailing, "severity": "warning", "team": "docs",
	}
	s.waitAlert(t, failAfter+30*time.Second, want)
	failed := fmt.Sprintf(`mintlify_agent_job_status{project=%q, job_id=%q, status="failed"}[10m]`, projectDocs, jobFailing)
	var err error
	if s.failedAt, err = s.prom.firstSampleWithValue(failed, 1); err != nil {
		t.Fatal(err)
	}
	active := fmt.Sprintf(`mintlify_agent_job_status{project=%q, job_id=%q, status="active"}[10m]`, projectDocs, jobFailing)
	if seen, err := s.prom.firstSampleWithValue(active, 1); err != nil || !seen.Before(s.failedAt) {
		t.Errorf("Prometheus did not record the job as active before it failed (active from %v, failed at %v, %v): "+
			"the stack took longer than %s to start", seen, s.failedAt, err, failAfter)
	}

	n := s.waitNotification(t, 20*time.Second, time.Time{}, want)
	if !strings.Contains(n.Annotations["summary"], jobFailing) || !strings.HasSuffix(n.Annotations["runbook_url"], "#mintlifyagentjobfailed") {
		t.Errorf("notification annotations %v: want the job id in the summary and the runbook section", n.Annotations)
	}

	// The job active for three hours is too long; the others are not.
	tooLong := map[string]string{
		"alertname": "MintlifyAgentJobActiveTooLong", "project": projectDocs, "job_id": jobActive, "severity": "warning", "team": "docs",
	}
	s.waitAlert(t, 10*time.Second, tooLong)
	s.waitNotification(t, 20*time.Second, time.Time{}, tooLong)
	alerts, err := s.prom.alerts()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range alerts {
		switch name, job := a.Labels["alertname"], a.Labels["job_id"]; {
		case name == "MintlifyAgentJobFailed" && job != jobFailing,
			name == "MintlifyAgentJobActiveTooLong" && job != jobActive:
			t.Errorf("unexpected %s alert %s", a.State, formatLabels(a.Labels))
		}
	}
	if got := s.hook.find("firing", map[string]string{"alertname": "MintlifyAgentJobActiveTooLong", "job_id": jobFailing}); len(got) > 0 {
		t.Errorf("the failing job, active for seconds, was notified as active too long: %v", got[0].Labels)
	}
}

// docsQualityAlerts are the alerts about the docs site's signals and the
// API's rows, which checkDocsQualityAlerts provokes.
var docsQualityAlerts = []string{"MintlifyAssistantUnansweredHigh", "MintlifyPageThumbsDownRising", "MintlifyRowsSkipped"}

// checkDocsQualityAlerts checks that the docs-quality alerts are quiet on
// the generated data, then programs the fake with what each one is about
// (a day of mostly unanswered assistant turns, a page collecting thumbs
// down, a malformed feedback row), and waits for each alert in Prometheus
// and at the webhook, with the labels that say which project, page or
// source it is about.
func (s *stack) checkDocsQualityAlerts(t *testing.T) {
	alerts, err := s.prom.alerts()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range alerts {
		if slices.Contains(docsQualityAlerts, a.Labels["alertname"]) {
			t.Fatalf("%s alert on the generated data, before anything was injected: %s", a.State, formatLabels(a.Labels))
		}
	}

	since := time.Now()
	today := since.UTC().Truncate(24 * time.Hour)
	// 80 unanswered turns today on projectAPI: most of the day's turns
	// (about 30 a day are generated, a quarter of them unanswered), and
	// more than the 50 the alert needs.
	for range 80 {
		s.api.AddTurn(mintlifytest.Turn{Time: since, ResponseType: "answer", Resolution: "unanswered",
			Query: "how do I do what the docs do not say?", Response: "I could not find that in the docs."})
	}
	// Today's feedback of projectDocs's page with the least feedback this
	// week becomes 40 thumbs down and 1 up: at least 10, and most of its
	// thumbs over the 7d window.
	rows := s.srv.FeedbackByPage(projectDocs, today.AddDate(0, 0, -6), today.AddDate(0, 0, 1))
	if len(rows) == 0 {
		t.Fatal("the generated data has no feedback in the 7d window")
	}
	page := rows[len(rows)-1].Path
	s.thumbsPage = page
	s.docs.SetFeedback(today, page, 1, 40, 0, 41)
	// One feedback answer of projectAPI with a negative count in its first
	// row.
	s.srv.AddFault(mintlifytest.Fault{
		Endpoint: mintlifytest.EndpointFeedbackByPage, Project: projectAPI,
		BadRow: mintlifytest.RowNegativeCount, Times: 1,
	})

	for _, want := range []map[string]string{
		{"alertname": "MintlifyAssistantUnansweredHigh", "project": projectAPI, "window": "1d", "severity": "warning"},
		{"alertname": "MintlifyPageThumbsDownRising", "project": projectDocs, "window": "7d", "path": page, "severity": "warning"},
		{"alertname": "MintlifyRowsSkipped", "source": "feedback", "reason": "bad_count", "severity": "warning"},
	} {
		a := s.waitAlert(t, 30*time.Second, want)
		if anchor := "#" + strings.ToLower(want["alertname"]); !strings.HasSuffix(a.Annotations["runbook_url"], anchor) {
			t.Errorf("%s annotations %v: want the runbook section %s", want["alertname"], a.Annotations, anchor)
		}
		s.waitNotification(t, 20*time.Second, since, want)
	}

	// Nothing else was injected: projectDocs's assistant and every other
	// page stay quiet.
	if alerts, err = s.prom.alerts(); err != nil {
		t.Fatal(err)
	}
	for _, a := range alerts {
		switch name := a.Labels["alertname"]; {
		case name == "MintlifyAssistantUnansweredHigh" && a.Labels["project"] != projectAPI,
			name == "MintlifyPageThumbsDownRising" && a.Labels["path"] != page:
			t.Errorf("unexpected %s alert %s", a.State, formatLabels(a.Labels))
		}
	}
}

// checkDashboards runs every dashboard query against Prometheus.
func (s *stack) checkDashboards(t *testing.T) {
	vars := map[string]string{"path": s.path}
	for k, v := range grafanaValues {
		vars[k] = v
	}
	s.queries = dashboardQueries(t, vars)
	// Live stream traffic, so that the stream panels' increases over
	// $__range have page views to share out.
	if err := s.sw.Write(t.Context(), mintlifytest.StreamOptions{Events: 120, Subdomains: []string{streamSubdomain},
		Start: time.Now().Add(-time.Minute), Every: 500 * time.Millisecond, PerObject: 30}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for _, q := range s.queries {
		t.Run(q.key, func(t *testing.T) {
			w := queryWhen[q.key]
			switch w.when {
			case whenNever:
				if _, err := s.prom.query(q.expr, time.Time{}); err != nil {
					t.Errorf("%s: %v", q.expr, err)
				}
				t.Logf("not expected to return data: %s", w.why)
			case whenJobFailed:
				if s.failedAt.IsZero() {
					t.Fatal("the agent job failed phase found no failure time")
				}
				if why := s.expectData(q.expr, s.failedAt); why != "" {
					t.Errorf("at %s (the failing job's first failed sample): %s", s.failedAt.UTC().Format(time.RFC3339Nano), why)
				}
			case whenRateLimited:
				t.Skip("checked in the rate limited phase")
			case whenNow:
				s.checkQueryNow(t, q, deadline)
			default:
				t.Fatalf("queryWhen: unknown when %d", w.when)
			}
		})
	}
}

// checkQueryNow checks that q returns data, retrying until deadline (and at
// least once) while it returns none. For a variable it also checks that
// the label's values include the value the test gives the variable.
func (s *stack) checkQueryNow(t *testing.T, q dashQuery, deadline time.Time) {
	t.Helper()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		why := ""
		series, err := s.prom.query(q.expr, time.Time{})
		var bad *apiError
		if errors.As(err, &bad) {
			t.Fatalf("%s: %v", q.expr, err)
		}
		switch {
		case err != nil:
			why = err.Error()
		case len(series) == 0:
			why = "no data"
		case q.label != "":
			vals, err := s.prom.labelValues(q.label, q.expr)
			want, known := grafanaValues[q.variable]
			if q.variable == "path" {
				want, known = s.path, true
			}
			switch {
			case err != nil:
				why = err.Error()
			case len(vals) == 0:
				why = "no label values"
			case known && want != ".+" && !slices.Contains(vals, want): // .+: the variable's "All"
				why = fmt.Sprintf("label %s values %v lack %q", q.label, vals, want)
			}
		}
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s", q.expr, why)
		}
		<-tick.C
	}
}

// checkRateLimited makes the fake answer one 429 and checks the
// rate-limited alert and the dashboard queries that need a 429.
func (s *stack) checkRateLimited(t *testing.T) {
	const limited = `mintlify_api_requests_total{code="429"}`
	if why := s.expectData(limited, time.Time{}); why == "" {
		t.Fatalf("%s has data before any 429 was injected", limited)
	}
	since := time.Now()
	s.srv.AddFault(mintlifytest.Fault{
		Endpoint: mintlifytest.EndpointVisitors, Project: projectAPI, Offset: mintlifytest.AnyOffset,
		Status: http.StatusTooManyRequests, RetryAfter: "1", Times: 1,
	})
	want := map[string]string{
		"alertname": "MintlifyRateLimited", "endpoint": "visitors", "code": "429", "severity": "warning",
	}
	s.waitAlert(t, 20*time.Second, want)
	s.waitNotification(t, 20*time.Second, since, want)
	deadline := time.Now().Add(10 * time.Second)
	n := 0
	for _, q := range s.queries {
		if queryWhen[q.key].when == whenRateLimited {
			n++
			t.Run(q.key, func(t *testing.T) { s.checkQueryNow(t, q, deadline) })
		}
	}
	if n == 0 {
		t.Error("no dashboard query waits for a 429; was the dashboards phase run?")
	}
}

// checkRefreshFailing revokes the API key and checks that the
// refresh-failing alert fires and arrives at the webhook, and that it had
// not before.
func (s *stack) checkRefreshFailing(t *testing.T) {
	failing := map[string]string{"alertname": "MintlifyRefreshFailing", "project": projectDocs}
	alerts, err := s.prom.alerts()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range alerts {
		if hasLabels(a.Labels, failing) {
			t.Fatalf("%s alert before the key was revoked: %s", a.State, formatLabels(a.Labels))
		}
	}
	if got := s.hook.find("firing", failing); len(got) > 0 {
		t.Fatalf("notified before the key was revoked: %s", formatLabels(got[0].Labels))
	}

	revoked := time.Now()
	s.srv.RevokeKey(mintlifytest.DefaultKey)
	for _, source := range sources {
		want := map[string]string{
			"alertname": "MintlifyRefreshFailing", "project": projectDocs, "source": source, "severity": "warning",
		}
		a := s.waitAlert(t, 30*time.Second, want)
		if !strings.HasSuffix(a.Annotations["runbook_url"], "#mintlifyrefreshfailing") {
			t.Errorf("alert annotations %v: want the runbook section", a.Annotations)
		}
		s.waitNotification(t, 20*time.Second, revoked, want)
	}
	t.Logf("refresh-failing alert at the webhook %s after the key was revoked", time.Since(revoked).Round(time.Millisecond))
	if bad := s.hook.badNotifications(); len(bad) > 0 {
		t.Errorf("the webhook got notifications it could not decode: %v", bad)
	}
}

// checkNoSecret checks that the API key appears in no output.
func (s *stack) checkNoSecret(t *testing.T) {
	key := mintlifytest.DefaultKey
	for name, text := range map[string]string{
		"exporter output":   s.exporter.log.String(),
		"exporter scrape":   string(s.scrape),
		"prometheus output": s.prometheus.log.String(),
	} {
		if strings.Contains(text, key) {
			t.Errorf("the API key appears in the %s", name)
		}
	}
}
