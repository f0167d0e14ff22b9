// Package engine refreshes every analytics source from the API within the
// organization's request budget and serves the results pre-rendered. This is
// the code's map; the design and its reasons are in docs/dev/design.md.
//
// A Source (package collector) knows one kind of data: its families, the
// windows it supports, and how to fetch a Unit (source × project × Window)
// and turn the answer into Samples. The engine does the rest, the same way
// for every source:
//
//   - source.go: Source, Unit, Window; engine.go: New, Start and Close.
//   - worker.go: one worker sends one analytics request at a time, whether
//     or not anything scrapes; a scrape (Touch) never waits.
//   - choice.go: which request goes next: units become candidates, package
//     engine/schedule ranks them, and waiting units get a forecast start.
//   - fetch.go: a fetch is a Walk that yields between pages, or one Fetch.
//   - outcome.go: all or nothing: a failure keeps the previous data, sets
//     mintlify_up to 0, logs once and backs off; a 429 pauses every
//     analytics request. Also the plan (PlanWeighted is in planner.go).
//   - collect.go: the exposition, rendered once per refresh (package
//     engine/exposition), and the units' States for the landing page.
//   - derive.go: windows of a Summer, summed from the day store (package
//     engine/derive holds its arithmetic).
//   - state.go: the State that package statefile saves and New restores.
//
// Package engine/budget is the request ledger and the client's Allow hook;
// package engine/health exports mintlify_up and the refresh metrics.
//
// To add a source, write one file in package collector with a type that
// implements Source (and Stepper when a unit is a walk of pages; Summer when
// its counts add up over days) and its SourceInfo; add its client interface
// to collector.Client and its SourceInfo to collector.Sources; define its
// endpoint with analytics or free in client/endpoint.go; serve it in the
// fake (client/mintlifytest) and test it there. Nothing in this package
// changes.
//
// Tests drive the engine on a mintlifytest.Clock: its Now and WaitUntil are
// the engine's clock and timer, and its Settle says when the worker can go
// on only once the clock moves.
package engine
