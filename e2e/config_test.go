package e2e

// Configuration files of the test's Prometheus and Alertmanager, and the
// test copy of the shipped rules.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// Shipped files the test uses, relative to this package.
const (
	shippedRules        = "../deploy/prometheus/mintlify.rules.yml"
	shippedAlertmanager = "../deploy/alertmanager/alertmanager.yml"
	dashboardsGlob      = "../dashboards/*.json"
)

// scrapeJob is the scrape job name the shipped rules expect
// (deploy/prometheus/scrape.yml).
const scrapeJob = "mintlify"

var (
	// forLine matches a rule's "for:" line.
	forLine = regexp.MustCompile(`(?m)^([ \t]+)for:[ \t]*\S+[ \t]*$`)
	// alertLine matches a rule's "alert:" line and captures the name.
	alertLine = regexp.MustCompile(`(?m)^[ \t]*-?[ \t]*alert:[ \t]*"?([^"\s]+)"?[ \t]*$`)
)

// testRules returns the test copy of the shipped rules file. The changes,
// and the only ones:
//
//   - Every "for:" duration (minutes to an hour in the shipped file)
//     becomes "for: 1s", so an alert whose condition holds at two
//     evaluations in a row (1 s apart) fires.
//
// Unchanged on purpose: every expression, label and annotation, and every
// range and offset. MintlifyRateLimited's [30m] range needs no change: its
// second branch fires on the first 429 ever seen. MintlifyHumanTrafficDropped
// compares with "offset 7d" and cannot fire without a week of history; the
// test does not assert it (deploy/prometheus/mintlify.rules.test.yml covers
// it with promtool test rules).
func testRules(t *testing.T) (rules []byte, alerts []string) {
	t.Helper()
	shipped, err := os.ReadFile(shippedRules)
	if err != nil {
		t.Fatal(err)
	}
	n := len(forLine.FindAllIndex(shipped, -1))
	if n == 0 {
		t.Fatalf("%s has no for: line; the test copy would equal the shipped file, check forLine", shippedRules)
	}
	for _, m := range alertLine.FindAllSubmatch(shipped, -1) {
		alerts = append(alerts, string(m[1]))
	}
	if len(alerts) == 0 {
		t.Fatalf("%s has no alerting rule", shippedRules)
	}
	return forLine.ReplaceAll(shipped, []byte("${1}for: 1s")), alerts
}

// prometheusConfig is the test Prometheus's configuration: the exporter
// scraped every second under the job name the rules expect, rules
// evaluated every second, alerts sent to the test's Alertmanager.
func prometheusConfig(rulesFile, exporterAddr, alertmanagerAddr string) string {
	return fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - %q
alerting:
  alertmanagers:
    - static_configs:
        - targets: [%q]
scrape_configs:
  - job_name: %q
    static_configs:
      - targets: [%q]
`, rulesFile, alertmanagerAddr, scrapeJob, exporterAddr)
}

// alertmanagerConfig is the test Alertmanager's configuration: every alert
// in its own group (group_by '...'), sent to the webhook a second after it
// arrives and again on every change.
func alertmanagerConfig(webhookURL, remediationURL, tokenFile string) string {
	return fmt.Sprintf(`route:
  receiver: test-webhook
  group_by: ['...']
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1m
  routes:
    # The exporter's remediation webhook, as docs/remediation.md shows it;
    # repeats every 5s, so that the test sees Alertmanager's repeats.
    - matchers: ['alertname="MintlifyPageThumbsDownRising"']
      receiver: mintlify-remediation
      repeat_interval: 5s
      continue: true
    - receiver: test-webhook
receivers:
  - name: test-webhook
    webhook_configs:
      - url: %q
        send_resolved: true
  - name: mintlify-remediation
    webhook_configs:
      - url: %q
        send_resolved: true
        http_config:
          authorization:
            credentials_file: %q
`, webhookURL, remediationURL, tokenFile)
}

// remediationRules is the test's --remediation.config: the shipped rules
// file (the example of docs/remediation.md), acting.
func remediationRules(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "deploy", "remediation", "remediation.yml"))
	if err != nil {
		t.Fatal(err)
	}
	acting := bytes.Replace(b, []byte("\ndry_run: true\n"), []byte("\ndry_run: false\n"), 1)
	if bytes.Equal(acting, b) {
		t.Fatal("deploy/remediation/remediation.yml has no line dry_run: true")
	}
	return acting
}

// remediationToken is the bearer token of the remediation webhook.
const remediationToken = "e2e-remediation-token-0123456789"

// writeFile writes content to name in dir and returns its path.
func writeFile(t *testing.T, dir, name string, content []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
