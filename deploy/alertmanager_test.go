package deploy

import (
	"slices"
	"testing"
)

// receiverFor is the receiver the Alertmanager example routes each severity
// to.
var receiverFor = map[string]string{
	"critical": "mintlify-oncall",
	"warning":  "mintlify-team",
	"info":     "mintlify-docs",
}

func TestAlertmanagerConfig(t *testing.T) {
	amtool := lookTool(t, "amtool", "prometheus-alertmanager")
	mustRunTool(t, ".", amtool, "check-config", alertmanagerFile)
}

// TestAlertmanagerRoutesEveryAlert sends each alert of the rules, with its
// severity, through the example's routing tree.
func TestAlertmanagerRoutesEveryAlert(t *testing.T) {
	amtool := lookTool(t, "amtool", "prometheus-alertmanager")
	alerts, _ := loadRules(t)
	for _, a := range alerts {
		sev := a.Labels["severity"]
		want, ok := receiverFor[sev]
		if !ok {
			t.Errorf("%s: no receiver for severity %q", a.Alert, sev)
			continue
		}
		out, err := runTool(t, ".", amtool, "config", "routes", "test",
			"--config.file="+alertmanagerFile, "--verify.receivers="+want,
			"alertname="+a.Alert, "severity="+sev, "project=acme", "job="+jobName)
		if err != nil {
			t.Errorf("%s (severity %s) is not routed to %s: %v\n%s", a.Alert, sev, want, err, out)
		}
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
