// Package jobs is the agent job watcher (--collector.jobs): it reads the
// jobs given by --jobs.id, --jobs.file, the deprecated v1 listing
// (--jobs.discover) and the remediation webhook (Watch) from the API, at
// its own pace and outside the analytics request budget, and exports their
// status as a prometheus.Collector of its own. A scrape never calls the
// API.
//
// watcher.go holds the configuration and the poll loop, ids.go the job
// references and the jobs file, read.go the reads and their errors,
// metrics.go the series, and state.go the rows of the landing page.
package jobs
