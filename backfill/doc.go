// Package backfill loads past days of analytics into an OpenMetrics file
// for promtool, or by remote write, so that a new installation has history
// on its first day (docs/backfill.md). Each day is fetched as the live
// exporter fetches window="1d" and stamped with the day's last second, so
// history and the live series draw as one line. Every fetch is journaled
// before the next starts, and the output is written from the journal in
// one order, so a resumed run ends with the bytes of an uninterrupted one.
package backfill
