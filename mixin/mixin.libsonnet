// The mintlify_exporter monitoring mixin: prometheusAlerts (alerting and recording rules, as
// shipped in deploy/prometheus/mintlify.rules.yml) and its _config.
(import 'config.libsonnet') +
(import 'alerts.libsonnet') +
{
  // The recording rules live in the same groups as the alerts that use them.
  prometheusRules+:: {},
}
