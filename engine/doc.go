// Package engine is the machinery every analytics source of the exporter
// plugs into. Read this first.
//
// # Words
//
//   - A Source (package collector, one file each: visitors, views,
//     assistant, feedback, searches, conversations) knows one kind of data:
//     its metric families, which windows it supports, and how to fetch one
//     unit from the API (a paged walk, a cursor walk or a single request)
//     and turn the answer into Samples. It does nothing else.
//   - A Window is N calendar days in UTC ending today ("7d"); "7d:site"
//     asks only for site-wide figures, at one request per source.
//   - A Unit is one source × project × window: what the engine schedules,
//     refreshes all or nothing, exposes and persists. A source that splits
//     its windows (Splitter: visitors, views) has two units a window: the
//     site totals (one request) and the page walk (SiteWide families go to
//     the first, the rest to the second).
//   - The Budget is the ledger of analytics requests sent in the last
//     sliding hour. The API allows 100 per organization per hour, shared by
//     every analytics endpoint, so there is one Budget for all units; it is
//     the client's Allow hook, so no request is ever sent without room.
//   - The Planner gives each unit its refresh interval (PlanWeighted).
//
// # What the engine does, the same way for every source
//
//   - Schedules on its own timer (worker.go): a unit is due when it has no
//     data, when the UTC day rolled over (its date range moved), or when
//     its data is older than its planned interval; a failed unit again
//     when its back-off ends; everything when a rate-limit pause ends. No
//     scrape is needed, and a scrape (Touch) never waits.
//   - Spends the budget by the request (choice.go, fetch.go): one worker
//     sends one analytics request at a time, the one package schedule
//     ranks first among the candidates: the first request of a due unit,
//     the next page of a walk in progress (a Stepper's Walk keeps its
//     offset and rows between requests), a closed day for the day store.
//     The value order is in package schedule's documentation; the engine
//     only turns units into candidates and forecasts when each waiting
//     unit is expected to start. Walks that run too long, or whose 1d
//     range moved at midnight, start again.
//   - Waiting is not failing: a due unit that does not fit waits, with the
//     time it is expected to start (States, Summary), counted in
//     mintlify_units_waiting while it has no data; one log line says when
//     the first round does not fit the hour. Ready is true once every unit
//     has data, waits or was tried.
//   - Keeps all or nothing (outcome.go): a failed refresh keeps the
//     previous data, sets mintlify_up to 0 (the only thing that does),
//     logs once per kind of error, and backs off. A 429 pauses every
//     analytics request until Retry-After (or a backoff).
//   - Counts malformed rows that sources skipped in
//     mintlify_rows_skipped_total{source,reason}, logging each kind once.
//   - Plans: PlanWeighted stretches intervals only when the budget binds,
//     and then in proportion to sqrt(cost × days), which minimises the
//     mean relative staleness across units, holding one-request units to
//     an hour; it plans for the budget less a tenth of headroom and the day
//     store's share. The plan is logged in one line once every cost is
//     known, and again when it changes materially.
//   - Renders (collect.go): each refresh renders its unit's families to text once and
//     compresses them once (Exposition); a scrape writes those bytes and
//     the small live part, so it costs little more than copying bytes.
//     Collect serves the same series to clients that want another format.
//   - Derives (derive.go): with Config.DeriveWindows, an Nd window of a
//     source whose counts add up over days (Summer) is the sum of its
//     closed days, each read once into a day store, and today's 1d unit;
//     a daily audit compares it with one direct read and falls back above
//     1 %.
//   - Persists: State is the ledger, every unit's data and the day store,
//     by family name; package statefile saves it (debounced) and New
//     restores it.
//
// # Adding a source
//
// Write one file in package collector with a type that implements Source
// (and Stepper when a unit is a walk of pages), add it to collector's list
// of sources, serve its endpoint in the fake (client/mintlifytest), and
// test it there. Nothing in this package changes.
package engine
