package jobs

import (
	"sort"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine/exposition"
)

var (
	jobsDesc = prometheus.NewDesc("mintlify_agent_jobs",
		"Watched agent jobs by status, read from the API every poll interval (terminal jobs less often). The four documented statuses are always present; an undocumented status is counted under its own value, a job without a status under an empty one.",
		[]string{"project", "status"}, nil)
	jobInfoDesc = prometheus.NewDesc("mintlify_agent_job_info",
		"Always 1 for each watched agent job, with its attributes as read from the API every poll interval (terminal jobs less often); its status is in mintlify_agent_job_status. A label is empty when the API sends no value for it; has_pr is true once the job has a pull request link.",
		[]string{"project", "job_id", "model", "repository", "ref", "has_pr"}, nil)
	jobStatusDesc = prometheus.NewDesc("mintlify_agent_job_status",
		"1 for the watched agent job's current status and 0 for each other documented status (active, completed, archived, failed). An undocumented status gets its own series with 1, a job without a status an empty one.",
		[]string{"project", "job_id", "status"}, nil)
	jobCreatedDesc = prometheus.NewDesc("mintlify_agent_job_created_timestamp_seconds",
		"Unix time at which each watched agent job was created (its createdAt), read from the API every poll interval (terminal jobs less often). No series for a job whose createdAt the API does not send.",
		[]string{"project", "job_id"}, nil)
	jobsNotFoundDesc = prometheus.NewDesc("mintlify_agent_jobs_not_found",
		"Watched agent jobs whose last read answered 404 (not found); they are not exported otherwise. A discovered job counted here means the v1 listing's sessionId is not the v2 job id, which the API does not promise.",
		[]string{"project"}, nil)
	sessionsSkippedDesc = prometheus.NewDesc("mintlify_agent_sessions_skipped_total",
		"Sessions of the deprecated v1 job listing skipped as malformed (not an object, no usable sessionId, a field of the wrong type), by project; the other sessions of the listing are kept.",
		[]string{"project"}, nil)
)

// Describe implements prometheus.Collector.
func (w *Watcher) Describe(ch chan<- *prometheus.Desc) {
	ch <- jobsDesc
	ch <- jobInfoDesc
	ch <- jobStatusDesc
	ch <- jobCreatedDesc
	ch <- jobsNotFoundDesc
	ch <- sessionsSkippedDesc
}

// Collect implements prometheus.Collector.
func (w *Watcher) Collect(ch chan<- prometheus.Metric) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, pid := range w.order {
		p := w.projects[pid]
		counts := make(map[string]float64, len(client.JobStatuses))
		for _, s := range client.JobStatuses {
			counts[string(s)] = 0
		}
		notFound := 0
		ids := make([]string, 0, len(p.jobs))
		for id, e := range p.jobs {
			if e.gone {
				notFound++
			}
			if e.job != nil && !e.gone {
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		project := exposition.SanitizeLabel(pid)
		for _, id := range ids {
			j := p.jobs[id].job
			status := exposition.SanitizeLabel(string(j.Status))
			counts[status]++
			ref := ""
			if j.Source.Ref != nil {
				ref = *j.Source.Ref
			}
			hasPR := "false"
			if j.PRLink != nil && *j.PRLink != "" {
				hasPR = "true"
			}
			jobID := exposition.SanitizeLabel(id)
			ch <- prometheus.MustNewConstMetric(jobInfoDesc, prometheus.GaugeValue, 1,
				project, jobID, exposition.SanitizeLabel(j.Model), exposition.SanitizeLabel(j.Source.Repository), exposition.SanitizeLabel(ref), hasPR)
			for _, s := range client.JobStatuses {
				v := 0.0
				if string(s) == status {
					v = 1
				}
				ch <- prometheus.MustNewConstMetric(jobStatusDesc, prometheus.GaugeValue, v, project, jobID, string(s))
			}
			if !j.Status.Known() {
				ch <- prometheus.MustNewConstMetric(jobStatusDesc, prometheus.GaugeValue, 1, project, jobID, status)
			}
			if !j.CreatedAt.IsZero() {
				ch <- prometheus.MustNewConstMetric(jobCreatedDesc, prometheus.GaugeValue, jobsUnixSeconds(j.CreatedAt), project, jobID)
			}
		}
		statuses := make([]string, 0, len(counts))
		for s := range counts {
			statuses = append(statuses, s)
		}
		sort.Strings(statuses)
		for _, s := range statuses {
			ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, counts[s], project, s)
		}
		ch <- prometheus.MustNewConstMetric(jobsNotFoundDesc, prometheus.GaugeValue, float64(notFound), project)
		if w.cfg.Discover {
			ch <- prometheus.MustNewConstMetric(sessionsSkippedDesc, prometheus.CounterValue, p.skipped, project)
		}
	}
}

// jobsUnixSeconds avoids UnixNano's overflow outside 1678-2262.
func jobsUnixSeconds(t time.Time) float64 {
	return float64(t.Unix()) + float64(t.Nanosecond())/1e9
}
