// Renders deploy/prometheus/mintlify.rules.yml: go tool jsonnet -S mixin/rules.jsonnet
local mixin = import 'mixin.libsonnet';
|||
  # Prometheus recording and alerting rules for mintlify_exporter.
  # GENERATED from mixin/ by `make generate`: edit mixin/*.libsonnet, not this file.
  #
  # Unit tests: promtool test rules deploy/prometheus/mintlify.rules.test.yml
|||
+ std.manifestYamlDoc(mixin.prometheusAlerts, indent_array_in_object=true, quote_keys=false) + '\n'
