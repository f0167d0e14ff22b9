// Package health exports how refreshes and upstream requests fare: mintlify_up
// and the refresh metrics per project and source, and the API request metrics.
package health

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

var (
	upDesc = prometheus.NewDesc("mintlify_up",
		"0 when a unit of the source failed its last refresh, else 1.",
		[]string{"project", "source"}, nil)
	lastSuccessDesc = prometheus.NewDesc("mintlify_last_success_timestamp_seconds",
		"Unix time at the end of the unit's last successful refresh.",
		[]string{"project", "source", "window", "part"}, nil)
	refreshDurationDesc = prometheus.NewDesc("mintlify_refresh_duration_seconds",
		"Duration of the source's last refresh, successful or not.",
		[]string{"project", "source"}, nil)
	refreshIntervalDesc = prometheus.NewDesc("mintlify_refresh_interval_seconds",
		"Interval between refreshes the exporter plans for the unit.",
		[]string{"project", "source", "window", "part"}, nil)
)

// The part label of a unit: a window of visitors or views is two units,
// its site totals and its page walk; every other unit is all of its window.
const (
	PartAll    = "all"
	PartTotals = "totals"
	PartPages  = "pages"
)

// Status tracks the refresh health of every unit (project, source, window
// and part; the job watcher's are per project, with no window). Each unit's
// last success and interval are exported as they are, so that the age of
// each is compared with its own interval; mintlify_up and the duration are
// per (project, source) pair, aggregated pessimistically: down when any
// unit's last refresh failed, the longest duration. A unit never tried, or
// waiting for the budget, has not failed.
type Status struct {
	mu    sync.Mutex
	parts map[statusKey]*partStatus
}

type statusKey struct{ project, source, window, part string }

type partStatus struct {
	failed      bool // the last refresh failed
	lastSuccess time.Time
	duration    time.Duration
	interval    time.Duration
}

// NewStatus returns an empty Status.
func NewStatus() *Status {
	return &Status{parts: make(map[statusKey]*partStatus)}
}

// update applies f to a part, registered if new, under s.mu.
func (s *Status) update(project, source, window, part string, f func(p *partStatus)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := statusKey{project, source, window, part}
	p, ok := s.parts[k]
	if !ok {
		p = &partStatus{}
		s.parts[k] = p
	}
	f(p)
}

// Track registers a part, so the pair is exported (up) before it is refreshed.
func (s *Status) Track(project, source, window, part string) {
	s.update(project, source, window, part, func(*partStatus) {})
}

// SetInterval records the interval currently planned for a part.
func (s *Status) SetInterval(project, source, window, part string, d time.Duration) {
	s.update(project, source, window, part, func(p *partStatus) { p.interval = d })
}

// Succeeded records a successful refresh that ended at end and took dur,
// or a success loaded from the cache file (dur 0).
func (s *Status) Succeeded(project, source, window, part string, end time.Time, dur time.Duration) {
	s.update(project, source, window, part, func(p *partStatus) { p.failed, p.lastSuccess, p.duration = false, end, dur })
}

// Failed records a failed refresh that took dur. The last success is kept.
func (s *Status) Failed(project, source, window, part string, dur time.Duration) {
	s.update(project, source, window, part, func(p *partStatus) { p.failed, p.duration = true, dur })
}

// Up reports whether no part of the pair failed its last refresh.
func (s *Status) Up(project, source string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	agg, ok := s.aggregate()[pairKey{project, source}]
	return ok && !agg.failed
}

type pairKey struct{ project, source string }

// aggregate folds the parts of every pair: failed when one failed, the longest
// duration; the caller holds s.mu.
func (s *Status) aggregate() map[pairKey]partStatus {
	out := make(map[pairKey]partStatus)
	for k, p := range s.parts {
		pk := pairKey{k.project, k.source}
		out[pk] = partStatus{failed: out[pk].failed || p.failed, duration: max(out[pk].duration, p.duration)}
	}
	return out
}

// Describe implements prometheus.Collector.
func (s *Status) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{upDesc, lastSuccessDesc, refreshDurationDesc, refreshIntervalDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector. A unit's last success timestamp
// is exported from its first success (or restored data) on.
func (s *Status) Collect(ch chan<- prometheus.Metric) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, a := range s.aggregate() { // the registry sorts what it gathers
		up := 1.0
		if a.failed {
			up = 0
		}
		ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, up, k.project, k.source)
		ch <- prometheus.MustNewConstMetric(refreshDurationDesc, prometheus.GaugeValue, a.duration.Seconds(), k.project, k.source)
	}
	for k, u := range s.parts {
		if !u.lastSuccess.IsZero() {
			ch <- prometheus.MustNewConstMetric(lastSuccessDesc, prometheus.GaugeValue,
				float64(u.lastSuccess.UnixNano())/1e9, k.project, k.source, k.window, k.part)
		}
		ch <- prometheus.MustNewConstMetric(refreshIntervalDesc, prometheus.GaugeValue, u.interval.Seconds(), k.project, k.source, k.window, k.part)
	}
}
