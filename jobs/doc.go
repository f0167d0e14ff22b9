// Package jobs is the agent job watcher (--collector.jobs): it reads the
// jobs of --jobs.id, --jobs.file, --jobs.discover and Watch at its own pace,
// outside the analytics budget, and exports their status; a scrape never
// calls the API.
package jobs
