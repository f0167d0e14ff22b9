// Settings of the mintlify_exporter mixin. Override any of them:
//   (import 'mixin.libsonnet') + { _config+:: { exporterSelector: 'job="docs-analytics"' } }
{
  _config+:: {
    // Selects the exporter's scrape targets (the up{} series of MintlifyExporterDown).
    exporterSelector: 'job="mintlify"',
    // Every alert's runbook_url is this prefix and the alert's name in lower case.
    runbookURLPrefix: 'https://github.com/mintlify-exporter/mintlify_exporter/blob/main/docs/runbook.md#',
    // exporter: the exporter's health (down, failing, stale, rate limited, budget, skipped rows);
    // docs: what the docs team looks at (traffic, assistant, feedback, agent jobs).
    // No alert uses "info": kube-prometheus-stack's InfoInhibitor mutes it.
    severities: {
      exporter: 'warning',
      docs: 'warning',
    },
    // Labels added to the docs-team alerts so a route can send them to that team.
    teamLabels: { team: 'docs' },

    // Dashboards: the job and instance variables list the targets that export this metric (every
    // query is filtered by them); showMultiCluster adds a cluster variable on clusterLabel.
    dashboardTargetMetric: 'mintlify_exporter_build_info',
    showMultiCluster: false,
    clusterLabel: 'cluster',
    dashboardTags: ['mintlify'],
  },
}
