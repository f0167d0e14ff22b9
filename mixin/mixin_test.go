// Package mixin holds the tests of the jsonnet monitoring mixin in this directory.
package mixin

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-jsonnet"
)

// generated maps each generator in this directory to the file `make generate` writes with it.
var generated = map[string]string{
	"rules.jsonnet":          filepath.Join("..", "deploy", "prometheus", "mintlify.rules.yml"),
	"prometheusrule.jsonnet": filepath.Join("..", "deploy", "kubernetes", "prometheusrule.yaml"),
}

// chartCopies maps each generated file to its copy in the Helm chart
// (which can read only its own files); `make generate` writes both.
var chartCopies = map[string]string{
	filepath.Join("..", "deploy", "prometheus", "mintlify.rules.yml"): filepath.Join("..", "charts", "mintlify-exporter", "files", "mintlify.rules.yml"),
}

func TestChartCopiesUpToDate(t *testing.T) {
	copies := maps.Clone(chartCopies)
	dashboards, err := filepath.Glob(filepath.Join("..", "dashboards", "*.json"))
	if err != nil || len(dashboards) == 0 {
		t.Fatalf("no dashboards: %v", err)
	}
	for _, d := range dashboards {
		copies[d] = filepath.Join("..", "charts", "mintlify-exporter", "files", "dashboards", filepath.Base(d))
	}
	inChart, _ := filepath.Glob(filepath.Join("..", "charts", "mintlify-exporter", "files", "dashboards", "*.json"))
	if len(inChart) != len(dashboards) {
		t.Errorf("the chart has %d dashboards, dashboards/ %d: run make generate", len(inChart), len(dashboards))
	}
	for src, dst := range copies {
		a, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(dst)
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s is not a copy of %s: run make generate (%v)", dst, src, err)
		}
	}
}

func TestGeneratedFilesUpToDate(t *testing.T) {
	for src, dst := range generated {
		vm := jsonnet.MakeVM()
		vm.StringOutput = true
		got, err := vm.EvaluateFile(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		want, err := os.ReadFile(dst)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s is out of date with mixin/%s: run make generate", dst, src)
		}
	}
}

type alertRule struct {
	Alert  string            `json:"alert"`
	Record string            `json:"record"`
	Expr   string            `json:"expr"`
	Labels map[string]string `json:"labels"`
}

// rulesByOverrides keeps allRules' answers: several tests read the
// defaults' rules, which need evaluating once.
var rulesByOverrides sync.Map // string -> []alertRule

// allRules evaluates the mixin with overrides (a jsonnet object added to it) and returns every
// alerting and recording rule. The slice is shared: callers only read it.
func allRules(t *testing.T, overrides string) []alertRule {
	t.Helper()
	if rules, ok := rulesByOverrides.Load(overrides); ok {
		return rules.([]alertRule)
	}
	vm := jsonnet.MakeVM()
	out, err := vm.EvaluateAnonymousSnippet("test.jsonnet", "local m = (import 'mixin.libsonnet') + "+overrides+"; { groups: m.prometheusRules.groups + m.prometheusAlerts.groups }")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Groups []struct {
			Rules []alertRule `json:"rules"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(out), &f); err != nil {
		t.Fatal(err)
	}
	var rules []alertRule
	for _, g := range f.Groups {
		rules = append(rules, g.Rules...)
	}
	rulesByOverrides.Store(overrides, rules)
	return rules
}

// alerts returns the alerts of the mixin with overrides, by name.
func alerts(t *testing.T, overrides string) map[string]alertRule {
	t.Helper()
	m := map[string]alertRule{}
	for _, r := range allRules(t, overrides) {
		if r.Alert != "" {
			m[r.Alert] = r
		}
	}
	if len(m) < 11 {
		t.Fatalf("%d alerts, want at least 11", len(m))
	}
	return m
}

func TestDefaultSeverities(t *testing.T) {
	for name, a := range alerts(t, "{}") {
		if a.Labels["severity"] != "warning" {
			t.Errorf("%s: severity %q, want warning", name, a.Labels["severity"])
		}
	}
	if got := alerts(t, "{}")["MintlifyExporterDown"].Expr; got != `up{job="mintlify"} == 0` {
		t.Errorf("MintlifyExporterDown expr %q", got)
	}
}

func TestConfigOverrides(t *testing.T) {
	m := alerts(t, `{ _config+:: {
		exporterSelector: 'job="docs-analytics", cluster="eu"',
		severities: { exporter: 'critical', docs: 'ticket' },
		teamLabels: { team: 'web', owner: 'docs-eng' },
		runbookURLPrefix: 'https://wiki.example/runbook#',
	} }`)
	if got := m["MintlifyExporterDown"].Expr; got != `up{job="docs-analytics", cluster="eu"} == 0` {
		t.Errorf("MintlifyExporterDown expr %q, want the overridden selector", got)
	}
	docs := []string{"MintlifyAgentJobFailed", "MintlifyAgentJobActiveTooLong", "MintlifyHumanTrafficDropped",
		"MintlifyAssistantUnansweredHigh", "MintlifyPageThumbsDownRising"}
	for name, a := range m {
		isDocs := false
		for _, d := range docs {
			isDocs = isDocs || d == name
		}
		want := map[string]string{"severity": "critical"}
		if isDocs {
			want = map[string]string{"severity": "ticket", "team": "web", "owner": "docs-eng"}
		}
		if len(a.Labels) != len(want) {
			t.Errorf("%s: labels %v, want %v", name, a.Labels, want)
		}
		for k, v := range want {
			if a.Labels[k] != v {
				t.Errorf("%s: label %s=%q, want %q", name, k, a.Labels[k], v)
			}
		}
	}
	vm := jsonnet.MakeVM()
	out, err := vm.EvaluateAnonymousSnippet("test.jsonnet", `((import 'mixin.libsonnet') + { _config+:: { runbookURLPrefix: 'https://wiki.example/runbook#' } }).prometheusAlerts.groups[0].rules[0].annotations.runbook_url`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"https://wiki.example/runbook#mintlifyexporterdown"`) {
		t.Errorf("runbook_url %s, want the overridden prefix", out)
	}
}

func TestGeneratedDashboardsUpToDate(t *testing.T) {
	vm := jsonnet.MakeVM()
	vm.StringOutput = true
	files, err := vm.EvaluateFileMulti("dashboards.jsonnet")
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := filepath.Glob(filepath.Join("..", "dashboards", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(shipped) != len(files) {
		t.Errorf("dashboards/ has %d files, the mixin renders %d: run make generate", len(shipped), len(files))
	}
	for name, got := range files {
		want, err := os.ReadFile(filepath.Join("..", "dashboards", name))
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("dashboards/%s is out of date with mixin/: run make generate", name)
		}
	}
}

// dashboardQueries returns every expr, and every label_values query of a variable, of the
// mixin's dashboards with overrides.
func dashboardQueries(t *testing.T, overrides string) map[string][]string {
	t.Helper()
	vm := jsonnet.MakeVM()
	out, err := vm.EvaluateAnonymousSnippet("test.jsonnet", "((import 'mixin.libsonnet') + "+overrides+").grafanaDashboards")
	if err != nil {
		t.Fatal(err)
	}
	var ds map[string]any
	if err := json.Unmarshal([]byte(out), &ds); err != nil {
		t.Fatal(err)
	}
	q := map[string][]string{}
	var walk func(file string, v any)
	walk = func(file string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && (k == "expr" || k == "query" && strings.HasPrefix(s, "label_values(")) {
					q[file] = append(q[file], s)
				}
				walk(file, x)
			}
		case []any:
			for _, x := range v {
				walk(file, x)
			}
		}
	}
	for file, d := range ds {
		walk(file, d)
	}
	return q
}

// selectors matches a vector selector with braces, or a metric name without them.
var selectors = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|\$\w+|[A-Za-z_:][A-Za-z0-9_:]*\s*(\{[^}]*\})?|\{[^}]*\}`)

// unselected returns the series selectors of q that lack one of want.
func unselected(q string, want []string) []string {
	var bad []string
	for _, m := range selectors.FindAllStringSubmatch(q, -1) {
		s := m[0]
		name := strings.TrimSpace(strings.SplitN(s, "{", 2)[0])
		isMetric := strings.HasPrefix(name, "mintlify_") || name == "up" || strings.HasPrefix(name, "scrape_") || strings.HasPrefix(name, "process_")
		if !isMetric && !strings.HasPrefix(s, "{") {
			continue
		}
		for _, w := range want {
			if !strings.Contains(s, w) {
				bad = append(bad, s)
				break
			}
		}
	}
	return bad
}

// checkSelectors fails for a query with a series selector that lacks want.
func checkSelectors(t *testing.T, file, q string, want []string) {
	t.Helper()
	if bad := unselected(q, want); len(bad) > 0 {
		t.Errorf("%s: %q: %q lack one of %q", file, q, bad, want)
	}
}

func TestUnselected(t *testing.T) {
	want := []string{`job=~"$job"`, `instance=~"$instance"`}
	for q, n := range map[string]int{
		`sum by (source) (mintlify_up{job=~"$job", instance=~"$instance", project=~"$project"})`:                   0,
		`rate(process_cpu_seconds_total{job=~"$job", instance=~"$instance"}[5m]) and on (job, instance) up`:        1,
		`mintlify_visitors{job=~"$job", instance=~"$instance"} / mintlify_visitors offset 7d`:                      1,
		`label_values({job=~"$job", __name__=~"mintlify_searches|mintlify_views"}, window)`:                        1,
		`label_values({job=~"$job", instance=~"$instance", __name__=~"mintlify_searches|mintlify_views"}, window)`: 0,
		`time() - scrape_duration_seconds{instance=~"$instance"}`:                                                  1,
	} {
		if got := unselected(q, want); len(got) != n {
			t.Errorf("unselected(%q) = %q, want %d", q, got, n)
		}
	}
}

func TestDashboardQueriesSelectTargets(t *testing.T) {
	n := 0
	for file, qs := range dashboardQueries(t, "{}") {
		for _, q := range qs {
			n++
			if strings.HasPrefix(q, "label_values(mintlify_exporter_build_info") {
				continue // the job and instance variables themselves
			}
			// instance=~"$instance|": the history without an instance stays
			// selected whatever instance is chosen.
			checkSelectors(t, file, q, []string{`job=~"$job"`, `instance=~"$instance|"`})
			if strings.Contains(q, "$cluster") {
				t.Errorf("%s: %q uses $cluster without showMultiCluster", file, q)
			}
		}
	}
	if n < 88 {
		t.Errorf("%d queries, want at least 88", n)
	}
}

func TestDashboardsMultiCluster(t *testing.T) {
	for file, qs := range dashboardQueries(t, `{ _config+:: { showMultiCluster: true, clusterLabel: 'k8s_cluster' } }`) {
		for _, q := range qs {
			if q == "label_values(mintlify_exporter_build_info, k8s_cluster)" {
				continue
			}
			if q == `label_values(mintlify_exporter_build_info{k8s_cluster=~"$cluster"}, job)` {
				continue // the job variable
			}
			checkSelectors(t, file, q, []string{`k8s_cluster=~"$cluster"`, `job=~"$job"`})
		}
	}
}

// metricRef finds each metric of the exporter (and up) in an expression,
// with the selector that follows it, if any.
var metricRef = regexp.MustCompile(`\b(up|mintlify_[a-z_]+|project_[a-z_]+(?::[a-z_]+)+)\b(\{[^}]*\})?`)

// TestSelectorOnEveryMetric: every series an alert or recording rule reads
// carries the exporter selector of _config, so a shared Prometheus with
// other jobs, or another job name, scopes them all.
func TestSelectorOnEveryMetric(t *testing.T) {
	for _, c := range []struct{ overrides, want, not string }{
		{"{}", `job="mintlify"`, ""},
		{`{ _config+:: { exporterSelector: 'job="docs-analytics"' } }`, `job="docs-analytics"`, `job="mintlify"`},
	} {
		n := 0
		for _, r := range allRules(t, c.overrides) {
			name := r.Alert + r.Record
			if c.not != "" && strings.Contains(r.Expr, c.not) {
				t.Errorf("%s: %s is still in %q", name, c.not, r.Expr)
			}
			for _, m := range metricRef.FindAllStringSubmatch(r.Expr, -1) {
				n++
				if !strings.Contains(m[2], c.want) {
					t.Errorf("%s: %s without the selector %s in %q", name, m[0], c.want, r.Expr)
				}
			}
		}
		if n < 30 {
			t.Errorf("%d metric references found, want the rules' 30 or more", n)
		}
	}
}

// TestRulesAndAlertsApart: recording rules live in prometheusRules and
// alerts in prometheusAlerts, as in node-mixin, so that a user who imports
// the mixin's rules alone (or its alerts alone) gets what the name says.
func TestRulesAndAlertsApart(t *testing.T) {
	for field, wantRecord := range map[string]bool{"prometheusRules": true, "prometheusAlerts": false} {
		vm := jsonnet.MakeVM()
		out, err := vm.EvaluateAnonymousSnippet("test.jsonnet", "(import 'mixin.libsonnet')."+field)
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			Groups []struct {
				Name  string      `json:"name"`
				Rules []alertRule `json:"rules"`
			} `json:"groups"`
		}
		if err := json.Unmarshal([]byte(out), &f); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, g := range f.Groups {
			for _, r := range g.Rules {
				n++
				if (r.Record != "") != wantRecord {
					t.Errorf("%s: group %s holds %s%s", field, g.Name, r.Record, r.Alert)
				}
			}
		}
		if n == 0 {
			t.Errorf("%s has no rules", field)
		}
	}
}
