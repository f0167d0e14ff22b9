package deploy

import (
	"bufio"
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/pinnedtool"
)

// wantAlerts are the alerts the shipped rules must define.
var wantAlerts = []string{
	"MintlifyExporterDown",
	"MintlifyRefreshFailing",
	"MintlifyDataStale",
	"MintlifyRateLimited",
	"MintlifyBudgetExhausted",
	"MintlifyAgentJobFailed",
	"MintlifyAgentJobActiveTooLong",
	"MintlifyHumanTrafficDropped",
	"MintlifyRowsSkipped",
	"MintlifyAssistantUnansweredHigh",
	"MintlifyPageThumbsDownRising",
	"MintlifyStreamLagHigh",
	"MintlifyStreamStalled",
}

// severities are the severity label values the Alertmanager example routes;
// no alert is "info", which kube-prometheus-stack's InfoInhibitor mutes.
var severities = []string{"critical", "warning"}

type ruleFile struct {
	Groups []ruleGroup `yaml:"groups"`
}

type ruleGroup struct {
	Name  string `yaml:"name"`
	Rules []rule `yaml:"rules"`
}

type rule struct {
	Record      string            `yaml:"record"`
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

type ruleTestFile struct {
	RuleFiles      []string `yaml:"rule_files"`
	GroupEvalOrder []string `yaml:"group_eval_order"`
	Tests          []struct {
		Name          string `yaml:"name"`
		AlertRuleTest []struct {
			Alertname string `yaml:"alertname"`
			ExpAlerts []any  `yaml:"exp_alerts"`
		} `yaml:"alert_rule_test"`
		PromQLExprTest []struct {
			Expr       string `yaml:"expr"`
			ExpSamples []any  `yaml:"exp_samples"`
		} `yaml:"promql_expr_test"`
	} `yaml:"tests"`
}

// loadRules returns the alerting and the recording rules of the rules file.
func loadRules(t *testing.T) (alerts, records []rule) {
	t.Helper()
	var f ruleFile
	readYAML(t, rulesFile, &f)
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				alerts = append(alerts, r)
			} else {
				records = append(records, r)
			}
		}
	}
	return alerts, records
}

// recordNames returns the names of recording rules.
func recordNames(records []rule) []string {
	var names []string
	for _, r := range records {
		names = append(names, r.Record)
	}
	return names
}

func TestRulesPromtool(t *testing.T) {
	if testing.Short() {
		t.Skip("promtool test rules simulates a week of traffic: skipped with -short")
	}
	t.Parallel() // the week-long traffic tests take seconds
	promtool := lookTool(t, "promtool", "prometheus")
	mustRunTool(t, ".", promtool, "check", "rules", rulesFile)
	mustRunTool(t, ".", promtool, append([]string{"test", "rules"}, rulesTestFiles...)...)
}

// TestRulesPromtool3 runs the rule tests under the Prometheus 3.x promtool
// that scripts/ensure-tools.sh builds (pinned in tools/promtool3/go.mod):
// 3.x ranges are left-open, which changes increase() and so $value.
func TestRulesPromtool3(t *testing.T) {
	if testing.Short() {
		t.Skip("promtool test rules simulates a week of traffic: skipped with -short")
	}
	t.Parallel()
	promtool := pinnedtool.Path(t, "promtool3")
	out, err := runTool(t, ".", promtool, "--version")
	if err != nil || !strings.Contains(out, "go1.") {
		t.Fatalf("%s --version: %v\n%s", promtool, err, out)
	}
	mustRunTool(t, ".", promtool, "check", "rules", rulesFile)
	mustRunTool(t, ".", promtool, append([]string{"test", "rules"}, rulesTestFiles...)...)
}

func TestRulesDefineEveryAlert(t *testing.T) {
	alerts, _ := loadRules(t)
	var names []string
	for _, a := range alerts {
		names = append(names, a.Alert)
	}
	for _, want := range wantAlerts {
		if !slices.Contains(names, want) {
			t.Errorf("alert %s is missing from %s", want, rulesFile)
		}
	}
	for i, n := range names {
		if slices.Contains(names[:i], n) {
			t.Errorf("alert %s is defined twice", n)
		}
	}
}

func TestAlertsAreDocumented(t *testing.T) {
	alerts, _ := loadRules(t)
	for _, a := range alerts {
		if !slices.Contains(severities, a.Labels["severity"]) {
			t.Errorf("%s: severity %q, want one of %q", a.Alert, a.Labels["severity"], severities)
		}
		for _, k := range []string{"summary", "description", "runbook_url"} {
			if strings.TrimSpace(a.Annotations[k]) == "" {
				t.Errorf("%s: no %s annotation", a.Alert, k)
			}
		}
		if want := runbookBase + strings.ToLower(a.Alert); a.Annotations["runbook_url"] != want {
			t.Errorf("%s: runbook_url %q, want %q", a.Alert, a.Annotations["runbook_url"], want)
		}
		if !strings.Contains(a.Annotations["description"], "{{ $labels.") && !strings.Contains(a.Annotations["description"], "{{ $value") {
			t.Errorf("%s: the description uses neither $labels nor $value", a.Alert)
		}
	}
}

func TestRuleExpressions(t *testing.T) {
	alerts, records := loadRules(t)
	recorded := recordNames(records)
	for _, r := range append(alerts, records...) {
		name := r.Alert + r.Record
		for _, m := range metricNames(r.Expr) {
			if !knownMetric(m, recorded) {
				t.Errorf("%s: unknown metric %s", name, m)
			}
		}
		if p := additivityProblem(r.Expr); p != "" {
			t.Errorf("%s: %s", name, p)
		}
	}
	for _, r := range alerts {
		if r.Alert == "MintlifyExporterDown" && !strings.Contains(r.Expr, `job="`+jobName+`"`) {
			t.Errorf("MintlifyExporterDown does not select the %q job: %s", jobName, r.Expr)
		}
	}
}

// TestRuleUnitTestsCoverEveryRule makes sure the promtool unit tests, all
// files together, see every alert both firing and quiet, and evaluate every
// recording rule.
func TestRuleUnitTestsCoverEveryRule(t *testing.T) {
	alerts, records := loadRules(t)
	firing, quiet, evaluated := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, path := range rulesTestFiles {
		var f ruleTestFile
		readYAML(t, path, &f)
		if !slices.Equal(f.RuleFiles, []string{"mintlify.rules.yml"}) {
			t.Errorf("%s tests rule files %q, want [mintlify.rules.yml]", path, f.RuleFiles)
		}
		for _, tc := range f.Tests {
			for _, at := range tc.AlertRuleTest {
				if len(at.ExpAlerts) > 0 {
					firing[at.Alertname] = true
				} else {
					quiet[at.Alertname] = true
				}
			}
			for _, et := range tc.PromQLExprTest {
				if len(et.ExpSamples) > 0 {
					evaluated[strings.TrimSpace(et.Expr)] = true
				}
			}
		}
	}
	for _, a := range alerts {
		if !firing[a.Alert] {
			t.Errorf("no unit test sees %s firing", a.Alert)
		}
		if !quiet[a.Alert] {
			t.Errorf("no unit test sees %s not firing", a.Alert)
		}
	}
	for _, r := range records {
		if !evaluated[r.Record] {
			t.Errorf("no promql_expr_test evaluates the recording rule %s", r.Record)
		}
	}
}

// TestRuleUnitTestsGroupEvalOrder makes every promtool unit test file list
// every group of the rules file in group_eval_order, in the file's order
// (the recording rules' group first): promtool guarantees an order only among
// the groups listed, so a group left out could be evaluated before the
// recording rules it reads, or in a different place from run to run.
func TestRuleUnitTestsGroupEvalOrder(t *testing.T) {
	var rf ruleFile
	readYAML(t, rulesFile, &rf)
	var groups []string
	for _, g := range rf.Groups {
		groups = append(groups, g.Name)
	}
	for _, path := range rulesTestFiles {
		var f ruleTestFile
		readYAML(t, path, &f)
		if !slices.Equal(f.GroupEvalOrder, groups) {
			t.Errorf("%s: group_eval_order %q, want the groups of %s in its order, %q", path, f.GroupEvalOrder, rulesFile, groups)
		}
	}
}

// TestPrometheusRuleMatchesRulesFile keeps the Kubernetes PrometheusRule
// identical to the rules file.
func TestPrometheusRuleMatchesRulesFile(t *testing.T) {
	var file struct {
		Groups any `yaml:"groups"`
	}
	readYAML(t, rulesFile, &file)
	var pr struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Spec       struct {
			Groups any `yaml:"groups"`
		} `yaml:"spec"`
	}
	readYAML(t, prometheusRuleFile, &pr)
	if pr.APIVersion != "monitoring.coreos.com/v1" || pr.Kind != "PrometheusRule" {
		t.Errorf("%s is %s %s, want monitoring.coreos.com/v1 PrometheusRule", prometheusRuleFile, pr.APIVersion, pr.Kind)
	}
	if file.Groups == nil {
		t.Fatalf("%s has no groups", rulesFile)
	}
	if !reflect.DeepEqual(file.Groups, pr.Spec.Groups) {
		t.Errorf("spec.groups of %s differ from the groups of %s", prometheusRuleFile, rulesFile)
	}
}

// TestRunbook checks that docs/runbook.md has one "## AlertName" section per
// alert: GitHub turns the heading into the anchor the runbook_url
// annotations link to, so no other heading of the file may have the same name.
func TestRunbook(t *testing.T) {
	runbook := readFile(t, runbookFile)
	var sections, all []string
	fence := false
	sc := bufio.NewScanner(bytes.NewReader(runbook))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t")
		if strings.HasPrefix(strings.TrimLeft(line, " "), "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		level, title, ok := strings.Cut(line, " ")
		if !ok || strings.Trim(level, "#") != "" {
			continue
		}
		all = append(all, title)
		if level == "##" {
			sections = append(sections, title)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", runbookFile, err)
	}
	alerts, _ := loadRules(t)
	if len(alerts) == 0 {
		t.Fatalf("%s defines no alerts", rulesFile)
	}
	for _, a := range alerts {
		if !slices.Contains(sections, a.Alert) {
			t.Errorf("%s: no \"## %s\" section; add one saying what the alert means and what to check", runbookFile, a.Alert)
		}
		n := 0
		for _, h := range all {
			if strings.EqualFold(h, a.Alert) {
				n++
			}
		}
		if n > 1 {
			t.Errorf("%s: %d headings %q; the anchor #%s would point at the first", runbookFile, n, a.Alert, strings.ToLower(a.Alert))
		}
	}
}
