// Package backfill loads past days of analytics from the API into an
// OpenMetrics file that promtool turns into Prometheus blocks, or sends
// them by remote write to a store that accepts it ("mintlify_exporter
// backfill"), so a new installation has months of history on its first
// day.
//
// # What it writes
//
// For each completed UTC day D of the range, each enabled source and each
// project, Run fetches one unit with the window "1d" and the date range
// [D, D+1) through the source's own Fetch, exactly as the live exporter
// does, and writes the samples under the live metric names and label sets
// (window="1d"), stamped with the last second of D (D+1 00:00:00 minus one
// second). History and the live exporter's 1d series therefore draw as one
// line. By default the unit is a site unit (site-wide figures, one request
// per source, project and day); sources without site-wide figures are
// skipped and reported. With Pages it is a full walk with the per-page
// series, capped by the path filters and max-paths.
//
// The file is OpenMetrics text ending with "# EOF": each family is
// contiguous, series are ordered by their label values, and each series'
// samples by time, as "promtool tsdb create-blocks-from openmetrics" wants.
//
// Every series also carries the target labels the live series get from
// their scrape (Config.Labels: job="mintlify" by default), so that history
// and live data are one series.
//
// # Remote write
//
// With Config.RemoteWrite the samples go to a remote-write 1.0 receiver
// instead of a file (remotewrite.go): each day once all its fetches are
// done, oldest first, in requests of whole fetches. The journal is then
// Config.Journal; a line records the fetches of each request the receiver
// accepted, so that a resumed run sends first what was fetched but not
// accepted and never sends an accepted sample again.
//
// # Cost and pacing
//
// Before anything is sent, Run prints the requests the backfill needs (for
// a walk, a lower bound refined after the first day) and the time the
// request budget needs at its rate. It paces every request with an
// engine.Budget (the client's Allow hook) and pauses after a 429 for its
// Retry-After, as the live exporter does.
//
// # Journal and resume
//
// Every finished fetch (one day, source and project) is appended to a
// journal beside the output, FILE.journal: one JSON line with the samples,
// written and fsynced before the next fetch starts. The first line records
// the arguments that decide the output; a resume with other arguments is
// refused. Run started again with Resume after an interruption (Ctrl-C,
// SIGTERM, a crash, a revoked key, days that failed) fetches only what the
// journal lacks. The output is always written from the journal, atomically
// (a temporary file renamed over FILE), in one canonical order, so a
// resumed run ends with the same bytes as an uninterrupted one. The
// journal is removed once every fetch succeeded.
package backfill
