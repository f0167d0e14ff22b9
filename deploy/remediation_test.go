package deploy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mintlify-exporter/mintlify_exporter/remediation"
)

// TestRemediationExample: the shipped rules file parses as the exporter
// parses it, is a dry run, and its rule matches an alert of the shipped
// rules by name.
func TestRemediationExample(t *testing.T) {
	cfg, err := remediation.ParseConfig(readFile(t, filepath.Join("remediation", "remediation.yml")))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.DryRun {
		t.Error("the shipped rules file acts: it must be a dry run until a user says otherwise")
	}
	alerts, _ := loadRules(t)
	names := map[string]bool{}
	for _, a := range alerts {
		names[a.Alert] = true
	}
	for _, r := range cfg.Rules {
		if name := r.Match["alertname"]; !names[name] {
			t.Errorf("rule %s matches alertname %q, which no shipped alert has", r.Name, name)
		}
	}
	if !strings.Contains(string(readFile(t, filepath.Join("..", "docs", "remediation.md"))), strings.TrimSpace(strings.SplitN(string(readFile(t, filepath.Join("remediation", "remediation.yml"))), "\nrules:", 2)[1])) {
		t.Error("docs/remediation.md does not show the rules of deploy/remediation/remediation.yml")
	}
}

// TestRemediationRoute pastes deploy/alertmanager/remediation-route.yml into
// a configuration with a catch-all route and a token file, checks it with
// amtool, and checks that the trigger reaches the webhook and the catch-all
// (continue: true) while another alert reaches only the catch-all.
func TestRemediationRoute(t *testing.T) {
	amtool := lookTool(t, "amtool", "prometheus-alertmanager")
	var snippet struct {
		Route struct {
			Routes []map[string]any `yaml:"routes"`
		} `yaml:"route"`
		Receivers []map[string]any `yaml:"receivers"`
	}
	readYAML(t, filepath.Join("alertmanager", "remediation-route.yml"), &snippet)
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("0123456789abcdef0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, r := range snippet.Receivers {
		for _, w := range r["webhook_configs"].([]any) {
			w.(map[string]any)["http_config"].(map[string]any)["authorization"].(map[string]any)["credentials_file"] = token
		}
	}
	cfg := map[string]any{
		"route": map[string]any{"receiver": "default", "routes": append(snippet.Route.Routes,
			map[string]any{"matchers": []string{`alertname=~"Mintlify.*"`}, "receiver": "mintlify-team"})},
		"receivers": append(snippet.Receivers, map[string]any{"name": "default"}, map[string]any{"name": "mintlify-team"}),
	}
	b, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "alertmanager.yml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	mustRunTool(t, ".", amtool, "check-config", path)
	for _, c := range []struct {
		alert, want string
	}{
		{"MintlifyPageThumbsDownRising", "mintlify-remediation,mintlify-team"},
		{"MintlifyExporterDown", "mintlify-team"},
	} {
		out, err := runTool(t, ".", amtool, "config", "routes", "test", "--config.file="+path, "--verify.receivers="+c.want,
			"alertname="+c.alert, "project=acme", "path=/quickstart")
		if err != nil {
			t.Errorf("%s is not routed to %s: %v\n%s", c.alert, c.want, err, out)
		}
	}
}
