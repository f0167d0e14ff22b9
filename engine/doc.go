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
//   - Schedules on its own timer (worker.go): a unit is due when it has no
//     data, when the UTC day rolled over (its date range moved), or when
//     its data is older than its planned interval; a failed unit again
//     when its back-off ends; everything when a rate-limit pause ends. No
//     scrape is needed. Every unit is refreshed once at start-up (unless
//     restored data is not yet due).
//   - Chooses by value (choice.go): one refresh at a time, on one worker
//     goroutine, so the budget check made before a refresh holds until it
//     ends. A unit without data is worth the most, the cheapest of those
//     first, so every project's one-request units have data within seconds
//     however large the site; a unit with data goes by how wrong its data
//     is per request. Before its first fetch a unit's cost is estimated
//     (the source's CostEstimator, else its siblings: other windows, the
//     source's CostGrouper group, other projects). The budget is booked for
//     every due unit in value order: a unit runs when its requests fit the
//     sliding hour; a cheaper one may fill room a more valuable walk cannot
//     use yet, never delaying it.
//   - Waiting is not failing: a due unit that does not fit waits, with the
//     time it is expected to start (States, Summary), counted in
//     mintlify_units_waiting while it has no data; one log line says when
//     the first round does not fit the hour. Ready is true once every unit
//     has data, waits or was tried. A scrape (Touch) waits for first data
//     only while a first refresh is sending requests, never for a unit that
//     cannot progress; once a unit has data it never waits at all
//     (stale-while-revalidate). A walk longer than an hour's budget is paced.
//   - Keeps all or nothing (outcome.go): a failed refresh keeps the
//     previous data, sets mintlify_up to 0 (the only thing that does),
//     logs once per kind of error, and backs off. A 429 pauses every
//     analytics request until Retry-After (or a backoff).
//   - Counts malformed rows that sources skipped in
//     mintlify_rows_skipped_total{source,reason}, logging each kind once.
//   - Plans: PlanWeighted stretches intervals only when the budget binds,
//     and then in proportion to sqrt(cost × days), which minimises the
//     mean relative staleness across units. The plan is logged in one line
//     once every cost is known, and again when it changes materially.
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
// Write one file in package collector with a type that implements Source,
// add it to collector's list of sources, serve its endpoint in the fake
// (client/mintlifytest), and test it there. Nothing in this package
// changes.
package engine
