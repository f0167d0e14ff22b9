// Package budget is the ledger of the organization's analytics requests: at
// most a configured number in any sliding hour, shared by every project and
// source, paused after a 429, and durable through a Recorder.
package budget

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// ErrExhausted is returned by Budget.Allow when the analytics requests
// of the last hour already reach the configured budget.
var ErrExhausted = errors.New("analytics request budget for the last hour is spent")

// ErrRateLimitPause is returned by Budget.Allow while analytics requests are
// paused after a 429 answer.
var ErrRateLimitPause = errors.New("analytics requests are paused after a 429 answer")

var budgetRemainingDesc = prometheus.NewDesc("mintlify_api_budget_remaining",
	"Analytics requests the exporter may still send in the current sliding hour by its own accounting (--mintlify.requests-per-hour minus requests sent in the last hour).",
	nil, nil)

// PaceMargin is how long after a request leaves the ledger's hour a paced
// request waits: the API counts a request when it arrives, a little after
// the ledger does, and by its own clock.
const PaceMargin = 5 * time.Second

// Budget is the ledger of analytics requests sent during the last hour,
// shared by every project and window of one organization. It is the
// client's Allow hook: an analytics request that does not fit the budget, or
// that would be sent during a rate-limit pause, is never sent. By default a
// request that does not fit is refused; with Pace, it waits until the oldest
// request of the hour leaves the ledger, so a walk longer than one hour's
// budget still completes, at the budget's pace.
type Budget struct {
	mu          sync.Mutex
	perHour     int
	now         func() time.Time
	waitUntil   func(ctx context.Context, t time.Time) error // nil: refuse instead of waiting
	sent        []time.Time                                  // ascending; only the last hour is kept
	pausedUntil time.Time
	rec         Recorder
	recErr      error
}

// Recorder makes what the budget spends and every rate-limit pause durable
// (statefile.Journal, next to --cache.file). Spent is called for each
// analytics request before it is sent, Paused for each pause as soon as it
// is known; both hold the budget's lock and must be quick (an append and an
// fsync). When Spent fails the request is not sent.
type Recorder interface {
	Spent(t time.Time) error
	// Unspent says that the request Spent recorded at t failed before a
	// connection was made: it never reached the API.
	Unspent(t time.Time) error
	Paused(until time.Time) error
}

// ErrNotRecorded is returned by Budget.Allow when the request could not be
// recorded durably (the Recorder failed): it is not sent, so that a crash
// cannot forget it.
var ErrNotRecorded = errors.New("the analytics request could not be recorded in the budget journal, so it was not sent")

// Record makes the budget call r for every request it allows and every
// pause, before the request is sent. Set it before the first request.
func (b *Budget) Record(r Recorder) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.rec = r
}

// New returns a Budget of perHour analytics requests per sliding hour.
func New(perHour int, now func() time.Time) *Budget {
	if now == nil {
		now = time.Now
	}
	return &Budget{perHour: perHour, now: now}
}

// Pace makes Allow wait for room in the budget instead of refusing.
// waitUntil waits until the budget's clock reads t, or until ctx ends,
// returning ctx's error then; tests pass one that moves their clock.
func (b *Budget) Pace(waitUntil func(ctx context.Context, t time.Time) error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.waitUntil = waitUntil
}

// PerHour is the configured budget.
func (b *Budget) PerHour() int { return b.perHour }

// prune drops entries older than an hour; the caller holds b.mu.
func (b *Budget) prune(now time.Time) {
	cut := now.Add(-time.Hour)
	i := 0
	for i < len(b.sent) && !b.sent[i].After(cut) {
		i++
	}
	if i > 0 {
		b.sent = append(b.sent[:0], b.sent[i:]...)
	}
}

// Allow records an analytics request about to be sent, or refuses it. Other
// endpoints are always allowed and not recorded. During a rate-limit pause
// it refuses at once; when the hour's budget is spent it waits for room if
// the budget paces (see Pace), else refuses.
func (b *Budget) Allow(ctx context.Context, e client.Endpoint) error {
	if !e.Analytics() {
		return nil
	}
	for {
		b.mu.Lock()
		now := b.now()
		if now.Before(b.pausedUntil) {
			b.mu.Unlock()
			return fmt.Errorf("%w until %s", ErrRateLimitPause, b.pausedUntil.UTC().Format(time.RFC3339))
		}
		b.prune(now)
		if len(b.sent) < b.perHour {
			var err error
			if b.rec != nil {
				err = b.rec.Spent(now)
			}
			if err != nil {
				// Not recorded, so not sent: it does not count (a
				// line the journal did write counts at a restart,
				// which errs on the side of the API).
				b.mu.Unlock()
				return fmt.Errorf("%w: %w", ErrNotRecorded, err)
			}
			b.sent = append(b.sent, now)
			b.mu.Unlock()
			return nil
		}
		next := b.sent[0].Add(time.Hour)
		wait := b.waitUntil
		b.mu.Unlock()
		if wait == nil {
			return fmt.Errorf("%w (%d of %d); the next request fits at %s", ErrExhausted,
				b.perHour, b.perHour, next.UTC().Format(time.RFC3339))
		}
		if err := wait(ctx, next.Add(PaceMargin)); err != nil {
			return fmt.Errorf("%w: waiting for room: %w", ErrExhausted, err)
		}
	}
}

// Unsent is the client's Unsent hook: an analytics request Allow counted
// failed before a connection was made (DNS failure, connection refused), so
// it never reached the API and is taken back from the ledger (the last one
// counted; the engine sends one at a time).
func (b *Budget) Unsent(e client.Endpoint) {
	if !e.Analytics() {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.sent) == 0 {
		return
	}
	t := b.sent[len(b.sent)-1]
	b.sent = b.sent[:len(b.sent)-1]
	if b.rec != nil {
		// Failing to record it only errs on the side of the API: a
		// restart counts the request as spent.
		_ = b.rec.Unspent(t)
	}
}

// Remaining is the number of analytics requests that may still be sent in
// the current sliding hour. A rate-limit pause does not change it.
func (b *Budget) Remaining() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.prune(now)
	return max(0, b.perHour-len(b.sent))
}

// Used is the number of analytics requests sent in the last hour.
func (b *Budget) Used() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.prune(b.now())
	return len(b.sent)
}

// Pause stops every analytics request until t (a 429's Retry-After). A later
// pause never shortens an earlier one. With a Recorder the pause is durable
// when Pause returns; a failure to record it is returned by RecordErr.
func (b *Budget) Pause(until time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if until.After(b.pausedUntil) {
		b.pausedUntil = until
		if b.rec != nil {
			b.recErr = b.rec.Paused(until)
		}
	}
}

// RecordErr returns the error of the last pause the Recorder failed to
// record, nil if it was recorded.
func (b *Budget) RecordErr() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.recErr
}

// PausedUntil returns the end of the current rate-limit pause, or the zero
// time when requests are not paused.
func (b *Budget) PausedUntil() time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.now().Before(b.pausedUntil) {
		return time.Time{}
	}
	return b.pausedUntil
}

// Ledger returns the send times of the last hour and the end of any pause,
// for persisting across restarts.
func (b *Budget) Ledger() (sent []time.Time, pausedUntil time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.prune(b.now())
	return append([]time.Time(nil), b.sent...), b.pausedUntil
}

// Restored says what Budget.Restore changed of what it was given.
type Restored struct {
	// Future counts requests dated after the clock: each is counted as
	// sent now.
	Future int
	// Dropped counts requests older than an hour.
	Dropped int
	// PauseClamped is the pause end as given when it was more than
	// client.MaxRateLimitPause ahead (and cut to that); zero otherwise.
	PauseClamped time.Time
}

// Restore merges a persisted ledger into the budget, so that a restart keeps
// counting the hour. Restored times are not trusted: entries older than an
// hour are dropped, entries after the clock count as sent now, and a pause
// ends no later than client.MaxRateLimitPause from now. Merging is a union
// (a request present in both the budget and sent counts once), so the
// same ledger read from the cache file and from the journal is not counted
// twice.
func (b *Budget) Restore(sent []time.Time, pausedUntil time.Time) Restored {
	b.mu.Lock()
	defer b.mu.Unlock()
	var r Restored
	now := b.now()
	in := make([]time.Time, 0, len(sent))
	for _, t := range sent {
		switch {
		case t.After(now):
			r.Future++
			in = append(in, now)
		case !t.After(now.Add(-time.Hour)):
			r.Dropped++
		default:
			in = append(in, t)
		}
	}
	slices.SortFunc(in, time.Time.Compare)
	b.sent = unionSorted(b.sent, in)
	b.prune(now)
	if limit := now.Add(client.MaxRateLimitPause); pausedUntil.After(limit) {
		r.PauseClamped = pausedUntil
		pausedUntil = limit
	}
	if pausedUntil.After(b.pausedUntil) {
		b.pausedUntil = pausedUntil
	}
	return r
}

// unionSorted merges two ascending lists as multisets: a time present m
// times in a and n times in b is present max(m, n) times in the result.
func unionSorted(a, b []time.Time) []time.Time {
	out := make([]time.Time, 0, max(len(a), len(b)))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i].Before(b[j]):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j].Before(a[i]):
			out = append(out, b[j])
			j++
		default: // equal: one copy stands for both
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// Describe implements prometheus.Collector.
func (b *Budget) Describe(ch chan<- *prometheus.Desc) { ch <- budgetRemainingDesc }

// Collect implements prometheus.Collector.
func (b *Budget) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(budgetRemainingDesc, prometheus.GaugeValue, float64(b.Remaining()))
}

// LogRestored logs what Budget.Restore discarded or changed of a ledger
// read from what (the cache file, the budget journal); nothing when it took
// it as it was.
func LogRestored(logger log.Logger, what string, r Restored) {
	if r.Future > 0 {
		level.Warn(logger).Log("msg", "the "+what+" holds analytics requests dated after the clock; counting them as sent now",
			"requests", r.Future)
	}
	if !r.PauseClamped.IsZero() {
		level.Warn(logger).Log("msg", "the "+what+" holds a rate-limit pause longer than a 429 can ask; pausing for at most "+client.MaxRateLimitPause.String()+" instead",
			"paused_until", r.PauseClamped.UTC().Format(time.RFC3339))
	}
	if r.Dropped > 0 {
		level.Debug(logger).Log("msg", "dropped analytics requests older than an hour from the "+what, "requests", r.Dropped)
	}
}
