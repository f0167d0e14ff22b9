// Renders deploy/kubernetes/prometheusrule.yaml: go tool jsonnet -S mixin/prometheusrule.jsonnet
local mixin = import 'mixin.libsonnet';
|||
  # The rules of the mixin (as deploy/prometheus/mintlify.rules.yml) for the Prometheus Operator.
  # GENERATED from mixin/ by `make generate`. Your Prometheus resource's ruleSelector must match
  # these labels.
|||
+ std.manifestYamlDoc({
  apiVersion: 'monitoring.coreos.com/v1',
  kind: 'PrometheusRule',
  metadata: {
    name: 'mintlify-exporter',
    labels: { 'app.kubernetes.io/name': 'mintlify-exporter' },
  },
  spec: { groups: mixin.prometheusRules.groups + mixin.prometheusAlerts.groups },
}, indent_array_in_object=true, quote_keys=false) + '\n'
