// Alerts of the Enterprise event stream (--stream.s3.bucket): the stream falls behind, or stops
// while the same hour a week earlier had traffic. Both are about the exporter's data path, so they
// take the exporter severity; a failing poll is MintlifyRefreshFailing's (mintlify_up{source="stream"}),
// and neither alert fires then.
{
  _config+:: {
    // MintlifyStreamLagHigh: the newest event counted is older than this, and getting older.
    streamLagSeconds: 1800,
    // MintlifyStreamStalled: at least this many objects were read in the same hour a week earlier.
    streamStalledMinObjectsLastWeek: 3,
  },

  prometheusAlerts+:: {
    groups+: [
      {
        name: 'mintlify.stream',
        rules: [
          {
            alert: 'MintlifyStreamLagHigh',
            // Objects keep coming (so the stream is not stalled) but the newest event in them is
            // ever older: the reader falls behind, or the vendor delivers late. A backlog being
            // caught up shrinks the lag and does not fire.
            expr: (|||
              mintlify_stream_lag_seconds{%(exporterSelector)s} > %(streamLagSeconds)d
              and delta(mintlify_stream_lag_seconds{%(exporterSelector)s}[30m]) > 0
              and increase(mintlify_stream_objects_read_total{%(exporterSelector)s}[30m]) > 0
              unless on (job, instance) mintlify_up{%(exporterSelector)s, source="stream"} == 0
            |||) % $._config,
            'for': '15m',
            labels: { severity: $._config.severities.exporter },
            annotations: {
              summary: 'mintlify_exporter {{ $labels.instance }} is behind the event stream',
              description: 'The newest event {{ $labels.instance }} has counted from the event stream happened {{ $value | humanizeDuration }} before its last poll, and the lag has grown over 30 minutes while new objects kept arriving. The stream metrics are that far behind the docs.',
              runbook_url: $._config.runbookURLPrefix + 'mintlifystreamlaghigh',
            },
          },
          {
            alert: 'MintlifyStreamStalled',
            // No object for an hour, while the same hour a week earlier had some: the vendor stopped
            // writing (destination, categories or deployments changed, credentials revoked) or the
            // exporter lists the wrong bucket or prefix. Quiet hours of a small site do not fire,
            // nor does a stream younger than a week.
            expr: (|||
              increase(mintlify_stream_objects_read_total{%(exporterSelector)s}[1h]) == 0
              and on (job, instance)
                increase(mintlify_stream_objects_read_total{%(exporterSelector)s}[1h] offset 1w) >= %(streamStalledMinObjectsLastWeek)d
              unless on (job, instance) mintlify_up{%(exporterSelector)s, source="stream"} == 0
            |||) % $._config,
            'for': '15m',
            labels: { severity: $._config.severities.exporter },
            annotations: {
              summary: 'No new event stream objects for {{ $labels.instance }} in an hour',
              description: 'mintlify_exporter {{ $labels.instance }} (job {{ $labels.job }}) has read no new object from the event stream bucket in the last hour, although its polls succeed and the same hour a week ago had objects. The stream metrics stand still.',
              runbook_url: $._config.runbookURLPrefix + 'mintlifystreamstalled',
            },
          },
        ],
      },
    ],
  },
}
