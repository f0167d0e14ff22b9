// Package engine refreshes every analytics source from the API within the
// organization's request budget and serves the results pre-rendered. This is
// the code's map; the design and its reasons are in docs/dev/design.md.
//
// # The rule
//
// One worker sends one analytics request at a time, by one rule (package
// engine/schedule): when the ledger has room, send the next request of the
// unit whose data is worth most per request it still costs. A unit is
// eligible when it has no data, when its data is older than
// --analytics.refresh-interval, or when UTC midnight moved its window. Its
// data is worth 1 + 8/days when it has none (1d before 7d before 30d), when
// a 1d one-request unit still shows the day that ended, or when a
// one-request unit's data is an hour old while the one-request units of its
// window length and shorter fit two thirds of the hour; otherwise the share
// of its window that changed since it was read, age / (days × 24 h). That is
// divided by the requests it still costs: a walk in progress its pages left,
// a walk never measured its siblings' cost or, unknown, 4 and then as many
// as it has sent; one that outgrew its estimate an hour's budget. So one-request units of any window get data before 7d and
// 30d page walks, 1d walks before longer windows, and a walk in progress
// gets worth more with every page. The one reserve: a tenth of the
// budget, and in the hour before UTC midnight a request more for every 1d
// one-request unit, that only units without data and 1d units showing the
// day that ended may use, so those read the new day within minutes of
// midnight. A Layer's read of a fixed range is worth what the layer gives
// it (Read.Worth), and never stale once read. The landing
// page's "next request", expected starts and mintlify_refresh_interval_seconds
// come from the same rule run forward over the ledger (schedule.Forecast),
// with each unit's eligibility, the time its data will count as none, worth
// that grows with age, each unit's later refreshes, and the reserve of each
// hour (the eve's from 23:00 UTC).
//
// # Files
//
//   - source.go: Source, Unit, Window; engine.go: New, Start and Close.
//   - worker.go: the worker; a scrape (Touch) wakes it and never waits.
//   - choice.go: the units as the rule sees them, and the rule applied.
//   - fetch.go: a fetch is a Walk that yields between pages, or one Fetch.
//   - outcome.go: all or nothing: a failure keeps the previous data, sets
//     mintlify_up to 0, logs once and backs off; a 429 pauses every
//     analytics request.
//   - collect.go: the exposition, rendered once per refresh (package
//     exposition), and the units' States for the landing page.
//   - layer.go: the seam for a Layer on top of the engine: reads of fixed
//     ranges that the rule schedules, units whose data it serves (Serve),
//     and what it may read (Data, Source).
//   - state.go: the State that package statefile saves and New restores.
//
// Package budget is the ledger and the client's Allow hook; package health
// exports mintlify_up and the refresh metrics. Both, and package
// exposition, are shared with the job watcher, the stream and backfill.
//
// # Glossary
//
//   - source: one kind of data (visitors, views, ...), in package collector.
//   - window: N calendar days in UTC ending today; "Nd:site" asks site-wide figures only.
//   - unit: source × project × window, refreshed all or nothing; or a
//     Layer's read of a fixed range, read once.
//   - totals and pages: the two units of a window of visitors or views:
//     one request with limit=1, and the page walk.
//   - walk: a fetch of many requests that yields between pages, resumable.
//   - cost: the requests a unit's fetch takes, measured by its last one.
//   - ledger: the requests of the last sliding hour; its room is what is left.
//   - worth: what a unit's next request is worth under the rule.
//   - reserve: the room kept for units without data and the 1d new day.
//   - forecast: the rule run forward, for starts and intervals.
//   - pause: after a 429, no analytics request until it ends.
//   - layer: what serves some units from others' data and reads of fixed
//     ranges (Layer); the engine schedules its reads and exports its data.
//
// To add a source, write one file in package collector with a type that
// implements Source (and Stepper when a unit is a walk of pages; the layer's
// Summer when its counts add up over days). Nothing in this package changes.
//
// Tests drive the engine on a mintlifytest.Clock: its Now and WaitUntil are
// the engine's clock and timer, and its Settle says when the worker can go
// on only once the clock moves.
package engine
