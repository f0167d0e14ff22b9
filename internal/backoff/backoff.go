// Package backoff computes the delays of a capped exponential backoff.
package backoff

import (
	"math/rand/v2"
	"time"
)

// Policy waits Base after one failure, doubling after each further one up
// to Max (a zero Max gives zero delays); Jitter, if set, randomizes each.
type Policy struct {
	Base, Max time.Duration
	Jitter    func(time.Duration) time.Duration
}

// Delay returns the delay after n consecutive failures, never negative.
func (p Policy) Delay(n int) time.Duration {
	ceil := max(p.Max, 0)
	d := min(max(p.Base, 0), ceil)
	for i := 1; i < n && d > 0 && d < ceil; i++ {
		d += min(d, ceil-d) // doubles up to the cap, never overflowing
	}
	if p.Jitter != nil {
		d = min(max(p.Jitter(d), 0), ceil)
	}
	return d
}

// HalfJitter picks a delay uniformly in [d/2, d] ("equal jitter").
func HalfJitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return d/2 + rand.N(d-d/2+1)
}

// Pauses after a 429 without Retry-After; job reads, soon stale, wait least.
var (
	AnalyticsRateLimit = Policy{Base: 2 * time.Minute, Max: time.Hour}
	BackfillRateLimit  = Policy{Base: time.Minute, Max: 32 * time.Minute}
	JobsRateLimit      = Policy{Base: time.Minute, Max: 15 * time.Minute}
)
