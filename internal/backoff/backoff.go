// Package backoff computes the delays of the capped exponential backoff
// used wherever the exporter waits longer after each further failure.
package backoff

import (
	"math/rand/v2"
	"time"
)

// Policy waits Base after the first failure, doubling after each further
// one, never above Max (a zero Max gives zero delays). Jitter, when set,
// randomizes each delay (HalfJitter is the usual choice).
type Policy struct {
	Base, Max time.Duration
	Jitter    func(time.Duration) time.Duration
}

// Delay returns the delay after n consecutive failures; it never
// overflows and is never negative.
func (p Policy) Delay(n int) time.Duration {
	ceil := max(p.Max, 0)
	d := min(max(p.Base, 0), ceil)
	for i := 1; i < n && d > 0 && d < ceil; i++ {
		if d > ceil/2 {
			d = ceil // doubling would pass the cap, or overflow
			break
		}
		d *= 2
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

// The pauses after a 429 without Retry-After differ by what they protect:
// the organization's shared analytics limit is left alone longest, one
// backfill fetch less, and job reads (outside that limit, soon stale)
// least.
var (
	AnalyticsRateLimit = Policy{Base: 2 * time.Minute, Max: time.Hour}
	BackfillRateLimit  = Policy{Base: time.Minute, Max: 32 * time.Minute}
	JobsRateLimit      = Policy{Base: time.Minute, Max: 15 * time.Minute}
)

// RemoteWrite is backfill's remote-write backoff, long enough to ride out
// a receiver's restart.
var RemoteWrite = Policy{Base: time.Second, Max: time.Minute}
