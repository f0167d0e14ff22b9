// Package collector holds the exporter's sources, one file per source,
// node_exporter style: visitors.go (unique visitors, site-wide and per
// page) is an analytics source that package engine schedules, budgets,
// renders and persists; jobs.go, with jobs_*.go, is the agent job watcher,
// a prometheus.Collector of its own. collector.go lists the analytics
// sources (Sources, one --collector.<name> flag each) and builds them;
// paths.go selects, filters and caps the paths of per-page sources.
//
// A scrape never calls the API: sources fetch only when the engine (or the
// job watcher's poll) asks them to.
package collector
