// Package mixin holds the tests of the jsonnet monitoring mixin in this directory.
package mixin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-jsonnet"
)

// generated maps each generator in this directory to the file `make generate` writes with it.
var generated = map[string]string{
	"rules.jsonnet":          filepath.Join("..", "deploy", "prometheus", "mintlify.rules.yml"),
	"prometheusrule.jsonnet": filepath.Join("..", "deploy", "kubernetes", "prometheusrule.yaml"),
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

// alerts evaluates the mixin with overrides (a jsonnet object added to it) and returns its alerts by name.
func alerts(t *testing.T, overrides string) map[string]alertRule {
	t.Helper()
	vm := jsonnet.MakeVM()
	out, err := vm.EvaluateAnonymousSnippet("test.jsonnet", "((import 'mixin.libsonnet') + "+overrides+").prometheusAlerts")
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
	m := map[string]alertRule{}
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				m[r.Alert] = r
			}
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
