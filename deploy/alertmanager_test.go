package deploy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// receiverFor is the receiver the Alertmanager example routes each severity
// to; alerts with team="docs" go to mintlify-docs whatever their severity.
var receiverFor = map[string]string{
	"critical": "mintlify-oncall",
	"warning":  "mintlify-team",
}

// wantReceiver is the receiver the example and the sub-route send an alert to.
func wantReceiver(a rule) (string, bool) {
	if a.Labels["team"] == "docs" {
		return "mintlify-docs", true
	}
	r, ok := receiverFor[a.Labels["severity"]]
	return r, ok
}

// amtoolLabels are the alert's labels as amtool arguments, with a project and the job.
func amtoolLabels(a rule) []string {
	args := []string{"alertname=" + a.Alert, "project=acme", "job=" + jobName}
	for k, v := range a.Labels {
		args = append(args, k+"="+v)
	}
	return args
}

func TestAlertmanagerConfig(t *testing.T) {
	amtool := lookTool(t, "amtool", "prometheus-alertmanager")
	mustRunTool(t, ".", amtool, "check-config", alertmanagerFile)
}

// TestAlertmanagerRoutesEveryAlert sends each alert of the rules, with its
// severity, through the example's routing tree.
func TestAlertmanagerRoutesEveryAlert(t *testing.T) {
	if testing.Short() {
		t.Skip("runs amtool once per alert (seconds): skipped under -short")
	}
	amtool := lookTool(t, "amtool", "prometheus-alertmanager")
	alerts, _ := loadRules(t)
	for _, a := range alerts {
		sev := a.Labels["severity"]
		want, ok := wantReceiver(a)
		if !ok {
			t.Errorf("%s: no receiver for severity %q", a.Alert, sev)
			continue
		}
		out, err := runTool(t, ".", amtool, append([]string{"config", "routes", "test",
			"--config.file=" + alertmanagerFile, "--verify.receivers=" + want}, amtoolLabels(a)...)...)
		if err != nil {
			t.Errorf("%s (severity %s) is not routed to %s: %v\n%s", a.Alert, sev, want, err, out)
		}
	}
}

// TestAlertmanagerSubRoute pastes deploy/alertmanager/mintlify-route.yml into
// a configuration with a catch-all route of its own and checks that every
// alert reaches the sub-route's receivers, and another alert does not.
func TestAlertmanagerSubRoute(t *testing.T) {
	if testing.Short() {
		t.Skip("runs amtool once per alert (seconds): skipped under -short")
	}
	amtool := lookTool(t, "amtool", "prometheus-alertmanager")
	var routes strings.Builder
	for _, l := range strings.SplitAfter(string(readFile(t, filepath.Join("alertmanager", "mintlify-route.yml"))), "\n") {
		routes.WriteString("    " + l)
	}
	cfg := "route:\n  receiver: default\n  routes:\n" + routes.String() + "\n" +
		"receivers:\n  - name: default\n  - name: mintlify-team\n  - name: mintlify-docs\n"
	path := filepath.Join(t.TempDir(), "alertmanager.yml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRunTool(t, ".", amtool, "check-config", path)
	alerts, _ := loadRules(t)
	for _, a := range alerts {
		want := "mintlify-team"
		if a.Labels["team"] == "docs" {
			want = "mintlify-docs"
		}
		out, err := runTool(t, ".", amtool, append([]string{"config", "routes", "test",
			"--config.file=" + path, "--verify.receivers=" + want}, amtoolLabels(a)...)...)
		if err != nil {
			t.Errorf("%s is not routed to %s by the sub-route: %v\n%s", a.Alert, want, err, out)
		}
	}
	if out, err := runTool(t, ".", amtool, "config", "routes", "test", "--config.file="+path,
		"--verify.receivers=default", "alertname=NodeDown", "severity=warning"); err != nil {
		t.Errorf("another alert is taken by the sub-route: %v\n%s", err, out)
	}
}

func TestAlertmanagerGrouping(t *testing.T) {
	var cfg struct {
		Route struct {
			GroupBy []string `yaml:"group_by"`
		} `yaml:"route"`
		Receivers []struct {
			Name           string `yaml:"name"`
			WebhookConfigs []any  `yaml:"webhook_configs"`
		} `yaml:"receivers"`
	}
	readYAML(t, alertmanagerFile, &cfg)
	for _, l := range []string{"alertname", "project"} {
		if !slices.Contains(cfg.Route.GroupBy, l) {
			t.Errorf("the route does not group by %s: %q", l, cfg.Route.GroupBy)
		}
	}
	webhook := false
	for _, r := range cfg.Receivers {
		webhook = webhook || len(r.WebhookConfigs) > 0
	}
	if !webhook {
		t.Error("no receiver has a webhook example")
	}
}
