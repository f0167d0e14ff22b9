// The recording rules of the mintlify_exporter mixin, in prometheusRules as the mixins of
// node_exporter and kube-prometheus keep them: the alerts (alerts.libsonnet) and dashboards may read
// these series. One group, evaluated before the alert groups in the shipped rule file.
{
  prometheusRules+:: {
    groups+: [
      {
        name: "mintlify.rules",
        rules: [
          {
            record: "project_job_id:mintlify_agent_job_active_age:seconds",
            expr: (|||
              (
                (time() - mintlify_agent_job_created_timestamp_seconds{%(exporterSelector)s})
                  * on (job, instance, project, job_id) group_left (model, repository, ref)
                mintlify_agent_job_info{%(exporterSelector)s}
              )
              and on (job, instance, project, job_id)
              (mintlify_agent_job_status{%(exporterSelector)s, status="active"} == 1)
            |||) % $._config,
          },
          {
            record: "project_window:mintlify_visitors_ai_share:ratio",
            expr: (|||
              clamp_max(
                mintlify_visitors{%(exporterSelector)s, traffic="ai"}
                  / ignoring (traffic)
                (mintlify_visitors_deduplicated{%(exporterSelector)s} > 0),
                1
              )
            |||) % $._config,
          },
          {
            record: "project_window:mintlify_assistant_unanswered_share:ratio",
            expr: (|||
              sum without (response_type, resolution) (mintlify_assistant_conversations{%(exporterSelector)s, resolution="unanswered"})
                /
              (
                sum without (response_type, resolution) (mintlify_assistant_conversations{%(exporterSelector)s, resolution=~"answered|unanswered"})
                  > 0
              )
            |||) % $._config,
          },
          {
            record: "project_window_path:mintlify_page_thumbs_down_share:ratio",
            expr: (|||
              sum without (kind) (mintlify_page_feedback{%(exporterSelector)s, kind="thumbs_down"})
                /
              (sum without (kind) (mintlify_page_feedback{%(exporterSelector)s, kind=~"thumbs_up|thumbs_down"}) > 0)
            |||) % $._config,
          },
        ],
      },
    ],
  },
}
