package jobs

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/exposition"
)

var (
	jobsDesc    = desc("mintlify_agent_jobs", "Watched agent jobs by status.", "project", "status")
	jobInfoDesc = desc("mintlify_agent_job_info", "Attributes of each watched agent job, always 1.",
		"project", "job_id", "model", "repository", "ref", "has_pr")
	jobStatusDesc = desc("mintlify_agent_job_status", "1 for the watched agent job's current status, 0 for each other status.",
		"project", "job_id", "status")
	jobCreatedDesc = desc("mintlify_agent_job_created_timestamp_seconds", "Unix time at which the watched agent job was created.",
		"project", "job_id")
	jobsNotFoundDesc    = desc("mintlify_agent_jobs_not_found", "Watched agent jobs whose last read answered 404 (not found).", "project")
	sessionsSkippedDesc = desc("mintlify_agent_sessions_skipped_total", "Sessions of the deprecated v1 job listing skipped as malformed.", "project")
)

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

// Describe implements prometheus.Collector.
func (w *Watcher) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{jobsDesc, jobInfoDesc, jobStatusDesc, jobCreatedDesc, jobsNotFoundDesc, sessionsSkippedDesc} {
		ch <- d
	}
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
		project := exposition.SanitizeLabel(pid)
		for id, e := range p.jobs { // the registry sorts the series
			if e.gone {
				notFound++
			}
			if e.job == nil { // unread or gone
				continue
			}
			j := e.job
			status := exposition.SanitizeLabel(string(j.Status))
			counts[status]++
			jobID := exposition.SanitizeLabel(id)
			ch <- prometheus.MustNewConstMetric(jobInfoDesc, prometheus.GaugeValue, 1, project, jobID, exposition.SanitizeLabel(j.Model),
				exposition.SanitizeLabel(j.Source.Repository), exposition.SanitizeLabel(deref(j.Source.Ref)), strconv.FormatBool(deref(j.PRLink) != ""))
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
			if t := j.CreatedAt; !t.IsZero() {
				secs := float64(t.Unix()) + float64(t.Nanosecond())/1e9 // not UnixNano, which overflows outside 1678-2262
				ch <- prometheus.MustNewConstMetric(jobCreatedDesc, prometheus.GaugeValue, secs, project, jobID)
			}
		}
		for s, n := range counts {
			ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, n, project, s)
		}
		ch <- prometheus.MustNewConstMetric(jobsNotFoundDesc, prometheus.GaugeValue, float64(notFound), project)
		if w.cfg.Discover {
			ch <- prometheus.MustNewConstMetric(sessionsSkippedDesc, prometheus.CounterValue, p.skipped, project)
		}
	}
}

// Row is one watched agent job as the landing page shows it.
type Row struct {
	Project, ID string
	// Status is as last read or, before a read or after a 404, as listed.
	Status    string
	PRLink    string
	CreatedAt time.Time
	Known     bool // the last read succeeded
	NotFound  bool // the last read answered 404
}

// Jobs returns every watched job, sorted by project then id.
func (w *Watcher) Jobs() []Row {
	w.mu.Lock()
	defer w.mu.Unlock()
	var rows []Row
	for _, pid := range w.order {
		jobs := w.projects[pid].jobs
		for _, id := range slices.Sorted(maps.Keys(jobs)) {
			e := jobs[id]
			r := Row{Project: pid, ID: id, Status: string(e.hint), NotFound: e.gone}
			if j := e.job; j != nil {
				r.Known, r.Status, r.CreatedAt, r.PRLink = true, string(j.Status), j.CreatedAt, deref(j.PRLink)
			}
			rows = append(rows, r)
		}
	}
	return rows
}

func deref[T any](p *T) (v T) {
	if p != nil {
		v = *p
	}
	return v
}
