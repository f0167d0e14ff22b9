// The mintlify_exporter monitoring mixin: prometheusRules (recording rules), prometheusAlerts
// (alerting rules), both shipped in deploy/prometheus/mintlify.rules.yml, grafanaDashboards
// (dashboards/*.json) and its _config.
(import 'config.libsonnet') +
(import 'rules.libsonnet') +
(import 'alerts.libsonnet') +
(import 'alerts-stream.libsonnet') +
(import 'dashboards.libsonnet')
