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
		"Unix time at the end of the source's last successful refresh.",
		[]string{"project", "source"}, nil)
	refreshDurationDesc = prometheus.NewDesc("mintlify_refresh_duration_seconds",
		"Duration of the source's last refresh, successful or not.",
		[]string{"project", "source"}, nil)
	refreshIntervalDesc = prometheus.NewDesc("mintlify_refresh_interval_seconds",
		"Interval between refreshes the exporter plans for the source.",
		[]string{"project", "source"}, nil)
)

// Status tracks the refresh health of every (project, source) pair. A source's
// parts (its units) are refreshed independently and aggregated pessimistically:
// down when any part's last refresh failed, the oldest last success, the
// longest duration and interval. A part never tried, or waiting for the
// budget, has not failed.
type Status struct {
	mu    sync.Mutex
	parts map[statusKey]*partStatus
}

type statusKey struct{ project, source, part string }

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

func (s *Status) part(project, source, part string) *partStatus {
	k := statusKey{project, source, part}
	p, ok := s.parts[k]
	if !ok {
		p = &partStatus{}
		s.parts[k] = p
	}
	return p
}

// Track registers a part, so the pair is exported (up) before it is refreshed.
func (s *Status) Track(project, source, part string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.part(project, source, part)
}

// SetInterval records the interval currently planned for a part.
func (s *Status) SetInterval(project, source, part string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.part(project, source, part).interval = d
}

// Succeeded records a successful refresh that ended at end and took dur.
func (s *Status) Succeeded(project, source, part string, end time.Time, dur time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.part(project, source, part)
	p.failed, p.lastSuccess, p.duration = false, end, dur
}

// Failed records a failed refresh that took dur. The last success is kept.
func (s *Status) Failed(project, source, part string, dur time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.part(project, source, part)
	p.failed, p.duration = true, dur
}

// Restore records a success loaded from the cache file.
func (s *Status) Restore(project, source, part string, lastSuccess time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.part(project, source, part)
	p.failed, p.lastSuccess = false, lastSuccess
}

// Up reports whether no part of the pair failed its last refresh.
func (s *Status) Up(project, source string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	agg, ok := s.aggregate()[pairKey{project, source}]
	return ok && agg.up
}

type pairKey struct{ project, source string }

type aggregate struct {
	up          bool
	lastSuccess time.Time
	anySuccess  bool
	duration    time.Duration
	interval    time.Duration
}

// aggregate folds the parts of every pair; the caller holds s.mu.
func (s *Status) aggregate() map[pairKey]*aggregate {
	out := make(map[pairKey]*aggregate)
	for k, p := range s.parts {
		pk := pairKey{k.project, k.source}
		a, ok := out[pk]
		if !ok {
			a = &aggregate{up: true, anySuccess: true}
			out[pk] = a
		}
		a.up = a.up && !p.failed
		if p.lastSuccess.IsZero() {
			a.anySuccess = false
		} else if a.lastSuccess.IsZero() || p.lastSuccess.Before(a.lastSuccess) {
			a.lastSuccess = p.lastSuccess
		}
		a.duration = max(a.duration, p.duration)
		a.interval = max(a.interval, p.interval)
	}
	return out
}

// Describe implements prometheus.Collector.
func (s *Status) Describe(ch chan<- *prometheus.Desc) {
	ch <- upDesc
	ch <- lastSuccessDesc
	ch <- refreshDurationDesc
	ch <- refreshIntervalDesc
}

// Collect implements prometheus.Collector. The last success timestamp is
// exported only once every part of the pair has succeeded at least once.
func (s *Status) Collect(ch chan<- prometheus.Metric) {
	s.mu.Lock()
	aggs := s.aggregate()
	s.mu.Unlock()
	for k, a := range aggs { // the registry sorts what it gathers
		up := 0.0
		if a.up {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, up, k.project, k.source)
		if a.anySuccess {
			ch <- prometheus.MustNewConstMetric(lastSuccessDesc, prometheus.GaugeValue,
				float64(a.lastSuccess.UnixNano())/1e9, k.project, k.source)
		}
		ch <- prometheus.MustNewConstMetric(refreshDurationDesc, prometheus.GaugeValue, a.duration.Seconds(), k.project, k.source)
		ch <- prometheus.MustNewConstMetric(refreshIntervalDesc, prometheus.GaugeValue, a.interval.Seconds(), k.project, k.source)
	}
}
