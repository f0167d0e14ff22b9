// Package derived exports the 7d and 30d windows of additive sources as the
// sum of their closed days and today's 1d data (--analytics.derived-windows;
// docs/dev/design.md, "Derived windows"). It is an engine.Layer on top of
// the engine: it reads the engine's public state, asks the engine's one rule
// for the reads it needs (closed days, audits) and serves the sums with
// Engine.Serve. The engine knows nothing of it.
//
// # Files
//
//   - layer.go: the Layer: which windows are derived, the reads of closed
//     days and audits, the sums served, the families it exports.
//   - store.go: the day store as --cache.file keeps it (Day).
//   - arith.go: the arithmetic: closed days, the store, which day to read
//     next, drift.
//
// # Glossary
//
//   - summer: a source whose counts add up over days (Summer); a derivable
//     window is a window of 2 days or more of one, with a 1d unit, its base.
//   - day store: closed days of the bases, each read once for a fixed range,
//     a second time a day after it ended (late events), kept in --cache.file.
//   - provisional day: the base's last data of the day that just ended,
//     standing in for it until the day is read.
//   - derived window: a derivable window exported as the sum of its closed
//     days and its base's today, as fresh as the base, at no request of its own.
//   - audit: a daily direct read of a derived window; above MaxDrift of its
//     sum (drift) the window falls back to direct reads.
//
// A closed day's read is worth 0.05 a request for the day that just ended
// (its provisional data stands in) and 0.02 for history and second reads,
// an audit 0.5/days: below any unit's first data. A derived window whose
// base reads the new day waits for the day that ended to reach the store
// for two hours after midnight, and is then read directly.
package derived
