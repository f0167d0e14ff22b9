// Package backoff computes the delays of a capped exponential backoff, the
// one scheme the exporter uses wherever it waits longer after each further
// failure: the client's retries of transient failures, the engine's retry
// of a failed refresh and its pause after a 429, the job watcher's pause
// after a 429 and backfill's retries. Backfill's remote write waits in
// client_golang's remote-write client, configured with RemoteWrite.
//
// It only computes durations: waiting, and counting the failures, stay
// with the caller.
package backoff

import (
	"math/rand/v2"
	"time"
)

// Policy is a capped exponential backoff: Base after the first failure,
// doubling after each further one, never above Max. Max must be set: a
// Max of zero or less gives zero delays, as does the zero Policy.
type Policy struct {
	// Base is the delay after the first failure.
	Base time.Duration
	// Max caps every delay, jittered or not.
	Max time.Duration
	// Jitter, when not nil, randomizes each capped delay; HalfJitter is
	// the usual choice. Its result is capped at Max again.
	Jitter func(time.Duration) time.Duration
}

// Delay returns the delay after n consecutive failures: Base doubled n-1
// times, capped at Max, then jittered when Jitter is set. An n below 1
// counts as 1. It never overflows, whatever n, and is never negative.
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

// HalfJitter picks a delay uniformly in [d/2, d]: "equal jitter", which
// spreads the retries of many clients while keeping at least half of the
// backoff. It returns 0 for d <= 0.
func HalfJitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return d/2 + rand.N(d-d/2+1)
}

// The pauses after a 429 answered without Retry-After, side by side (with
// Retry-After, every caller waits what it says, capped at an hour). They
// differ on purpose, by what the pause protects:
//
//   - AnalyticsRateLimit (the engine): 2 m, doubling to 1 h. The analytics
//     limit is the organization's, shared with its other tools: every
//     analytics request pauses, and a long limit is left alone longest.
//   - BackfillRateLimit (the backfill command): 1 m, doubling to 32 m, for
//     one fetch at a time; a backfill runs beside the exporter on its own
//     smaller budget, and gives up after ten 429s in a row.
//   - JobsRateLimit (the job watcher): 1 m, doubling to 15 m, per project.
//     Job reads are outside the analytics budget, and a job's state gets
//     stale fast, so it tries again soonest.
var (
	AnalyticsRateLimit = Policy{Base: 2 * time.Minute, Max: time.Hour}
	BackfillRateLimit  = Policy{Base: time.Minute, Max: 32 * time.Minute}
	JobsRateLimit      = Policy{Base: time.Minute, Max: 15 * time.Minute}
)

// RemoteWrite is the backoff of backfill's remote-write requests after a
// 5xx, a 429 (plus its Retry-After) or a network error: 1 s, doubling to
// 1 m (the client jitters each wait within the doubling), long enough to
// ride out a receiver's restart.
var RemoteWrite = Policy{Base: time.Second, Max: time.Minute}
