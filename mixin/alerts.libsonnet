{
  prometheusAlerts+:: {
    groups+: [
      {
        name: "mintlify.exporter",
        rules: [
          {
            alert: "MintlifyExporterDown",
            expr: "up{%(exporterSelector)s} == 0" % $._config,
            'for': "5m",
            labels: { severity: $._config.severities.exporter },
            annotations: {
              summary: "mintlify_exporter {{ $labels.instance }} is down",
              description: "Prometheus has failed to scrape {{ $labels.instance }} (job {{ $labels.job }}) for 5 minutes. The Mintlify dashboards and the other Mintlify alerts are blind until it is back.",
              runbook_url: $._config.runbookURLPrefix + "mintlifyexporterdown",
            },
          },
          {
            alert: "MintlifyRefreshFailing",
            expr: "mintlify_up{%(exporterSelector)s} == 0" % $._config,
            'for': "30m",
            labels: { severity: $._config.severities.exporter },
            annotations: {
              summary: "Mintlify {{ $labels.source }} refresh failing for project {{ $labels.project }}",
              description: "Every {{ $labels.source }} refresh of project {{ $labels.project }} on {{ $labels.instance }} has failed for 30 minutes. The exporter keeps serving its last good snapshot; its log names the upstream error.",
              runbook_url: $._config.runbookURLPrefix + "mintlifyrefreshfailing",
            },
          },
          {
            alert: "MintlifyDataStale",
            // Each unit (project, source, window, part) against its own
            // interval: both series carry the same labels.
            expr: (|||
              (
                time() - mintlify_last_success_timestamp_seconds{%(exporterSelector)s}
                  > 3 * mintlify_refresh_interval_seconds{%(exporterSelector)s}
              )
              and mintlify_last_success_timestamp_seconds{%(exporterSelector)s} > 0
              unless on (job, instance, project, source) mintlify_units_waiting{%(exporterSelector)s} > 0
            |||) % $._config,
            'for': "10m",
            labels: { severity: $._config.severities.exporter },
            annotations: {
              summary: "Mintlify {{ $labels.source }} data of project {{ $labels.project }} is stale{{ with $labels.window }} ({{ . }} {{ $labels.part }}){{ end }}",
              description: "The last successful {{ $labels.source }} refresh of project {{ $labels.project }}{{ with $labels.window }} (window {{ . }}, part {{ $labels.part }}){{ end }} on {{ $labels.instance }} ended {{ $value | humanizeDuration }} ago, more than 3 times that unit's refresh interval. The exported numbers are out of date.",
              runbook_url: $._config.runbookURLPrefix + "mintlifydatastale",
            },
          },
          {
            alert: "MintlifyRateLimited",
            expr: (|||
              increase(mintlify_api_requests_total{%(exporterSelector)s, code="429"}[30m]) > 0
              or
              (
                mintlify_api_requests_total{%(exporterSelector)s, code="429"} > 0
                  unless mintlify_api_requests_total{%(exporterSelector)s, code="429"} offset 30m
              )
            |||) % $._config,
            labels: { severity: $._config.severities.exporter },
            annotations: {
              summary: "Mintlify API answered 429 on the {{ $labels.endpoint }} endpoint",
              description: "The {{ $labels.endpoint }} endpoint answered HTTP 429 (rate limit exceeded) to {{ $labels.instance }}: about {{ $value | humanize }} such answers in the last 30 minutes. The exporter pauses those requests until Retry-After has passed.",
              runbook_url: $._config.runbookURLPrefix + "mintlifyratelimited",
            },
          },
          {
            alert: "MintlifyBudgetExhausted",
            expr: (|||
              mintlify_api_budget_remaining{%(exporterSelector)s} == 0
                unless on(job, instance) (sum by (job, instance) (mintlify_units_waiting{%(exporterSelector)s}) > 0)
            |||) % $._config,
            'for': "30m",
            labels: { severity: $._config.severities.exporter },
            annotations: {
              summary: "mintlify_exporter {{ $labels.instance }} has no analytics requests left",
              description: "{{ $labels.instance }} has had no analytics request budget left for 30 minutes, so analytics refreshes wait for room in the sliding hour and the data ages. The projects, windows and paths configured need more requests per hour than --mintlify.requests-per-hour allows.",
              runbook_url: $._config.runbookURLPrefix + "mintlifybudgetexhausted",
            },
          },
          {
            alert: "MintlifyRowsSkipped",
            expr: (|||
              increase(mintlify_rows_skipped_total{%(exporterSelector)s}[1h]) > 0
              or
              (
                mintlify_rows_skipped_total{%(exporterSelector)s} > 0
                  unless mintlify_rows_skipped_total{%(exporterSelector)s} offset 1h
              )
            |||) % $._config,
            labels: { severity: $._config.severities.exporter },
            annotations: {
              summary: "The Mintlify API sent malformed {{ $labels.source }} rows ({{ $labels.reason }})",
              description: "{{ $labels.instance }} skipped about {{ $value | printf \"%.0f\" }} malformed {{ $labels.source }} rows (reason {{ $labels.reason }}) in the last hour and exported the rest of those answers. The exported {{ $labels.source }} figures lack those rows; the exporter's log names the project and window once per source and reason.",
              runbook_url: $._config.runbookURLPrefix + "mintlifyrowsskipped",
            },
          },
        ],
      },
      {
        name: "mintlify.agent_jobs",
        rules: [
          {
            alert: "MintlifyAgentJobFailed",
            // A failure seen happening: the job was watched in another status within the hour
            // before, or was created within the hour. A job that failed before the exporter first
            // watched it (found by --jobs.discover on a fresh install) starts its failed series at 1
            // and says nothing new. The alert resolves an hour after the failure.
            expr: (|||
              (
                (mintlify_agent_job_status{%(exporterSelector)s, status="failed"} == 1)
                and on (job, instance, project, job_id)
                (
                  changes(mintlify_agent_job_status{%(exporterSelector)s, status="failed"}[1h]) > 0
                  or
                  time() - mintlify_agent_job_created_timestamp_seconds{%(exporterSelector)s} < 3600
                )
              )
                * on (job, instance, project, job_id) group_left (model, repository, ref, has_pr)
              mintlify_agent_job_info{%(exporterSelector)s}
            |||) % $._config,
            labels: { severity: $._config.severities.docs } + $._config.teamLabels,
            annotations: {
              summary: "Mintlify agent job {{ $labels.job_id }} failed",
              description: "Agent job {{ $labels.job_id }} of project {{ $labels.project }} (repository {{ $labels.repository }}, ref {{ $labels.ref }}, model {{ $labels.model }}) ended in status failed within the last hour.",
              runbook_url: $._config.runbookURLPrefix + "mintlifyagentjobfailed",
            },
          },
          {
            alert: "MintlifyAgentJobActiveTooLong",
            expr: "project_job_id:mintlify_agent_job_active_age:seconds{%(exporterSelector)s} > 2 * 3600" % $._config,
            labels: { severity: $._config.severities.docs } + $._config.teamLabels,
            annotations: {
              summary: "Mintlify agent job {{ $labels.job_id }} has been active for over 2 hours",
              description: "Agent job {{ $labels.job_id }} of project {{ $labels.project }} (repository {{ $labels.repository }}) was created {{ $value | humanizeDuration }} ago and is still active.",
              runbook_url: $._config.runbookURLPrefix + "mintlifyagentjobactivetoolong",
            },
          },
        ],
      },
      {
        name: "mintlify.traffic",
        rules: [
          {
            alert: "MintlifyHumanTrafficDropped",
            expr: (|||
              (
                mintlify_visitors{%(exporterSelector)s, traffic="human", window="7d"}
                  < 0.5 * mintlify_visitors{%(exporterSelector)s, traffic="human", window="7d"} offset 7d
              )
              and
              (
                mintlify_visitors{%(exporterSelector)s, traffic="human", window="7d"} offset 7d >= 100
              )
            |||) % $._config,
            'for': "1h",
            labels: { severity: $._config.severities.docs } + $._config.teamLabels,
            annotations: {
              summary: "Human docs traffic of project {{ $labels.project }} halved week over week",
              description: "Project {{ $labels.project }} had {{ $value | humanize }} unique human visitors in the last 7 days, less than half as many as in the 7 days before at the same time of day.",
              runbook_url: $._config.runbookURLPrefix + "mintlifyhumantrafficdropped",
            },
          },
        ],
      },
      {
        name: "mintlify.docs_quality",
        rules: [
          {
            alert: "MintlifyAssistantUnansweredHigh",
            expr: (|||
              project_window:mintlify_assistant_unanswered_share:ratio{%(exporterSelector)s, window="1d"} > 0.4
              and on (job, instance, project, window)
              (
                sum without (response_type, resolution) (mintlify_assistant_conversations{%(exporterSelector)s, window="1d", resolution=~"answered|unanswered"})
                  >= 50
              )
            |||) % $._config,
            'for': "1h",
            labels: { severity: $._config.severities.docs } + $._config.teamLabels,
            annotations: {
              summary: "The docs assistant of project {{ $labels.project }} leaves {{ $value | humanizePercentage }} of today's questions unanswered",
              description: "The AI assistant of project {{ $labels.project }} left {{ $value | humanizePercentage }} of today's conversation turns (UTC, 1d window) unanswered, among the turns whose resolution is known: more than 40% for an hour, with at least 50 such turns. The docs lack what people ask the assistant about.",
              runbook_url: $._config.runbookURLPrefix + "mintlifyassistantunansweredhigh",
            },
          },
          {
            alert: "MintlifyPageThumbsDownRising",
            // Rising: more thumbs down than at some time in the last day, or a page new among
            // those with feedback in a project watched a day ago. A count that never changed (a
            // fresh install's first day included) is not rising.
            expr: (|||
              mintlify_page_feedback{%(exporterSelector)s, kind="thumbs_down", window="7d"} >= 10
              and on (job, instance, project, window, path)
              (
                project_window_path:mintlify_page_thumbs_down_share:ratio{%(exporterSelector)s, window="7d"} >= 0.5
              )
              and on (job, instance, project, window, path)
              (
                mintlify_page_feedback{%(exporterSelector)s, kind="thumbs_down", window="7d"}
                  > min_over_time(mintlify_page_feedback{%(exporterSelector)s, kind="thumbs_down", window="7d"}[1d])
                or
                (
                  (
                    mintlify_page_feedback{%(exporterSelector)s, kind="thumbs_down", window="7d"}
                      unless mintlify_page_feedback{%(exporterSelector)s, kind="thumbs_down", window="7d"} offset 1d
                  )
                  and on (job, instance, project)
                  group by (job, instance, project) (mintlify_page_feedback{%(exporterSelector)s, window="7d"} offset 1d)
                )
              )
            |||) % $._config,
            'for': "1h",
            labels: { severity: $._config.severities.docs } + $._config.teamLabels,
            annotations: {
              summary: "Page {{ $labels.path }} of project {{ $labels.project }} collects thumbs down",
              description: "Page {{ $labels.path }} of project {{ $labels.project }} got {{ $value | humanize }} thumbs down in the last 7 days, at least half of its thumbs, and more than at some time in the 24 hours before. Readers find the page wrong, outdated or unclear.",
              runbook_url: $._config.runbookURLPrefix + "mintlifypagethumbsdownrising",
            },
          },
        ],
      },
    ],
  },
}
