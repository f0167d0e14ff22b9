// grafanaDashboards: the dashboards in mixin/dashboards/*.json (every query there selects
// job=~"$job", instance=~"$instance"), with the datasource, (cluster,) job and instance variables
// and links that keep the variables and the time range. The generated queries select
// instance=~"$instance|": whatever instances are chosen, the series without an instance (the
// history `mintlify_exporter backfill` loads) stay selected.
local sources = {
  'agent-jobs.json': import 'dashboards/agent-jobs.json',
  'docs-quality.json': import 'dashboards/docs-quality.json',
  'docs-stream.json': import 'dashboards/docs-stream.json',
  'docs-traffic.json': import 'dashboards/docs-traffic.json',
  'exporter-health.json': import 'dashboards/exporter-health.json',
};

local targetSelector = 'job=~"$job", instance=~"$instance"';
local generatedSelector = 'job=~"$job", instance=~"$instance|"';

// The analytics dashboards draw one line per figure whatever the target: every query is
// aggregated over instance and pod. Backfilled history has neither label (see docs/backfill.md),
// and a restarted pod brings new ones; without this a graph would show history and live data, or
// each pod's, as separate lines. With the selector's empty alternative above, choosing one
// instance still draws its live data and the history as one line.
local joinedDashboards = ['docs-traffic.json', 'docs-quality.json'];
local joinTargets(panels) = [
  p
  + (if std.objectHas(p, 'targets') then {
       targets: [
         t + (if std.objectHas(t, 'expr') then { expr: 'max without (instance, pod) (%s)' % t.expr } else {})
         for t in p.targets
       ],
     } else {})
  + (if std.objectHas(p, 'panels') then { panels: joinTargets(p.panels) } else {})
  for p in panels
];

// Replaces the target selector in every string of v (queries, definitions).
local rewrite(v, from, to) =
  if std.isString(v) then std.strReplace(v, from, to)
  else if std.isArray(v) then [rewrite(x, from, to) for x in v]
  else if std.isObject(v) then { [k]: rewrite(v[k], from, to) for k in std.objectFields(v) }
  else v;

local queryVar(name, label, description, query) = {
  name: name,
  label: label,
  description: description,
  type: 'query',
  datasource: { type: 'prometheus', uid: '${datasource}' },
  definition: query,
  query: query,
  current: {},
  hide: 0,
  includeAll: true,
  multi: true,
  options: [],
  refresh: 2,
  regex: '',
  sort: 1,
  // dashboard-linter's ".+": the queries' instance=~"$instance|" keeps the backfilled series
  // without an instance under "All" too, and backfilled series have the live series' job.
  allValue: '.+',
};

{
  grafanaDashboards+:: {
    local c = $._config,
    local cluster = if c.showMultiCluster then '%s=~"$cluster", ' % c.clusterLabel else '',
    local targetVars =
      (if c.showMultiCluster then [
         queryVar('cluster', 'Cluster', 'Clusters with a mintlify_exporter.',
                  'label_values(%s, %s)' % [c.dashboardTargetMetric, c.clusterLabel]),
       ] else []) + [
        // Named and labelled job and instance, as dashboard-linter's template rules ask.
        queryVar('job', 'job', 'Scrape jobs of mintlify_exporter targets.',
                 if c.showMultiCluster then 'label_values(%s{%s=~"$cluster"}, job)' % [c.dashboardTargetMetric, c.clusterLabel]
                 else 'label_values(%s, job)' % c.dashboardTargetMetric),
        queryVar('instance', 'instance', 'mintlify_exporter targets of the chosen jobs.',
                 'label_values(%s{%sjob=~"$job"}, instance)' % [c.dashboardTargetMetric, cluster]),
      ],
    [file]:
      local r = rewrite(sources[file], targetSelector, cluster + generatedSelector);
      local d = if std.member(joinedDashboards, file) then r { panels: joinTargets(r.panels) } else r;
      d {
        tags: c.dashboardTags,
        templating+: {
          list: [d.templating.list[0]] + targetVars + d.templating.list[1:],
        },
        links: [
          l { tags: c.dashboardTags, includeVars: true, keepTime: true }
          for l in d.links
        ],
      }
    for file in std.objectFields(sources)
  },
}
