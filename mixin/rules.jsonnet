// Renders deploy/prometheus/mintlify.rules.yml: go tool jsonnet -S mixin/rules.jsonnet
local mixin = import 'mixin.libsonnet';
|||
  # Prometheus recording and alerting rules for mintlify_exporter.
  # GENERATED from mixin/ by `make generate`: edit mixin/*.libsonnet, not this file.
  #
  # Unit tests: promtool test rules deploy/prometheus/mintlify.rules.test.yml \
  #   deploy/prometheus/mintlify.rules.stream.test.yml
|||
// The recording rules' group first, then the alerts' groups (promtool test rules evaluates them in
// this order).
+ std.manifestYamlDoc({ groups: mixin.prometheusRules.groups + mixin.prometheusAlerts.groups }, indent_array_in_object=true, quote_keys=false) + '\n'
