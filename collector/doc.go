// Package collector holds the exporter's sources, one file per source,
// node_exporter style: visitors.go serves the unique visitors of every
// project and window from immutable snapshots refreshed in the background,
// and jobs.go (with jobs_*.go) watches agent jobs. A scrape is answered from
// memory and never calls the API.
//
// Shared by the sources: budget.go (the sliding-hour ledger of analytics
// requests), planner.go (the refresh interval that fits the budget),
// snapshot.go and render.go (snapshots and their pre-rendered exposition),
// status.go (mintlify_up and the other per-source refresh metrics) and
// apimetrics.go (upstream request metrics).
package collector
