// Renders dashboards/*.json: go tool jsonnet -S -m dashboards mixin/dashboards.jsonnet
local mixin = import 'mixin.libsonnet';
{
  [file]: std.manifestJsonEx(mixin.grafanaDashboards[file], '  ') + '\n'
  for file in std.objectFields(mixin.grafanaDashboards)
}
