// The mintlify_exporter monitoring mixin: prometheusAlerts (alerting and recording rules, as
// shipped in deploy/prometheus/mintlify.rules.yml), grafanaDashboards (dashboards/*.json) and its
// _config.
(import 'config.libsonnet') +
(import 'alerts.libsonnet') +
(import 'alerts-stream.libsonnet') +
(import 'dashboards.libsonnet') +
{
  // The recording rules live in the same groups as the alerts that use them.
  prometheusRules+:: {},
}
