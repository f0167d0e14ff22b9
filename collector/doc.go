// Package collector holds the exporter's analytics sources, one file per
// source, node_exporter style: visitors.go (unique visitors, site-wide and
// per page), views.go, assistant.go, feedback.go, searches.go and
// conversations.go are sources that package engine schedules, budgets,
// renders and persists; additive.go derives the windows of the additive
// ones from a store of days. collector.go lists the sources (Sources, one
// --collector.<name> flag each) and builds them; paths.go selects, filters
// and caps the paths of per-page sources; keyfile.go exports the state of
// the API key file. The agent job watcher is package jobs.
//
// A scrape never calls the API: sources fetch only when the engine asks
// them to.
package collector
