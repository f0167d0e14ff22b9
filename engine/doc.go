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
//     refreshes all or nothing, exposes and persists.
//   - The Budget is the ledger of analytics requests sent in the last
//     sliding hour. The API allows 100 per organization per hour, shared by
//     every analytics endpoint, so there is one Budget for all units; it is
//     the client's Allow hook, so no request is ever sent without room.
//   - The Planner gives each unit its refresh interval (PlanWeighted).
//
// # What the engine does, the same way for every source
//
//   - Schedules: a unit is due when it has no data, when the UTC day rolled
//     over (its date range moved), or when its data is older than its
//     planned interval. Every unit is refreshed once at start-up (unless
//     restored data is not yet due); later refreshes are started by
//     scrapes (Touch), stale-while-revalidate: a scrape never waits on the
//     API once data exists, but the first scrape may wait for the first
//     data up to its timeout.
//   - Runs refreshes one at a time, in the order they became due, on one
//     worker goroutine, so the budget check made before a refresh holds
//     until it ends. A refresh that does not fit waits for room (the unit
//     keeps its turn); a walk longer than an hour's budget is paced.
//   - Keeps all or nothing: a failed refresh keeps the previous data, sets
//     mintlify_up to 0, logs once per kind of error, and backs off. A 429
//     pauses every analytics request until Retry-After (or a backoff).
//   - Counts malformed rows that sources skipped in
//     mintlify_rows_skipped_total{source,reason}, logging each kind once.
//   - Plans: PlanWeighted stretches intervals only when the budget binds,
//     and then in proportion to sqrt(cost × days), which minimises the
//     mean relative staleness across units.
//   - Renders: each refresh renders its unit's families to text once and
//     compresses them once (Exposition); a scrape writes those bytes and
//     the small live part, so it costs little more than copying bytes.
//     Collect serves the same series to clients that want another format.
//   - Persists: State is the ledger and every unit's data, by family name;
//     package statefile saves it (debounced) and New restores it.
//
// # Adding a source
//
// Write one file in package collector with a type that implements Source,
// add it to collector's list of sources, serve its endpoint in the fake
// (client/mintlifytest), and test it there. Nothing in this package
// changes.
package engine
