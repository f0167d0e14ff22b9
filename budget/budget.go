// Package budget is the organization's ledger of analytics requests in the sliding hour.
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

// ErrExhausted is returned by Budget.Allow when the hour's budget is spent.
var ErrExhausted = errors.New("analytics request budget for the last hour is spent")

// ErrRateLimitPause is returned by Budget.Allow during a rate-limit pause.
var ErrRateLimitPause = errors.New("analytics requests are paused after a 429 answer")

var budgetRemainingDesc = prometheus.NewDesc("mintlify_api_budget_remaining",
	"Analytics requests the exporter may still send in the current sliding hour.",
	nil, nil)

// PaceMargin pads a paced wait: the API counts a request later, by its own clock.
const PaceMargin = 5 * time.Second

// Budget is the client's Allow hook: no analytics request goes without room.
type Budget struct {
	mu          sync.Mutex
	perHour     int
	now         func() time.Time
	waitUntil   func(ctx context.Context, t time.Time) error // nil: refuse instead of waiting
	sent        []time.Time                                  // ascending; only the last hour is kept
	pausedUntil time.Time
	rec         Recorder
}

// Recorder makes spending and pauses durable. It is called under the budget's
// lock before the request goes, so must be quick; if Spent fails, nothing is sent.
type Recorder interface {
	Spent(t time.Time) error
	Unspent(t time.Time) error
	Paused(until time.Time) error
}

// ErrNotRecorded is returned by Budget.Allow when the Recorder failed (nothing sent).
var ErrNotRecorded = errors.New("the analytics request could not be recorded in the budget journal, so it was not sent")

// Record sets the Recorder; call it before the first request.
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
	return &Budget{perHour: perHour, now: now, rec: noRecorder{}}
}

// noRecorder is the Recorder until Record sets one.
type noRecorder struct{}

func (noRecorder) Spent(time.Time) error   { return nil }
func (noRecorder) Unspent(time.Time) error { return nil }
func (noRecorder) Paused(time.Time) error  { return nil }

// Pace makes Allow wait for room with waitUntil instead of refusing.
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
	b.sent = slices.DeleteFunc(b.sent, func(t time.Time) bool { return !t.After(cut) })
}

// Allow records an analytics request about to be sent, or refuses (or, paced, waits).
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
			if err := b.rec.Spent(now); err != nil {
				// Not sent, not counted (a written journal line counts at a restart).
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

// Unsent is the client's Unsent hook: the last analytics request counted
// never reached the API (no connection was made) and is taken back.
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
	_ = b.rec.Unspent(t) // a failure errs on the side of the API: a restart counts it
}

// Remaining is the analytics requests that may still be sent this hour.
func (b *Budget) Remaining() int { return max(0, b.perHour-b.Used()) }

// Used is the number of analytics requests sent in the last hour.
func (b *Budget) Used() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.prune(b.now())
	return len(b.sent)
}

// Pause stops analytics requests until t, never shortening a pause; it
// returns the Recorder's error, if any.
func (b *Budget) Pause(until time.Time) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !until.After(b.pausedUntil) {
		return nil
	}
	b.pausedUntil = until
	return b.rec.Paused(until)
}

// PausedUntil returns the end of the current pause, zero when none.
func (b *Budget) PausedUntil() time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.now().Before(b.pausedUntil) {
		return time.Time{}
	}
	return b.pausedUntil
}

// Ledger returns the send times of the last hour and the pause end.
func (b *Budget) Ledger() (sent []time.Time, pausedUntil time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.prune(b.now())
	return append([]time.Time(nil), b.sent...), b.pausedUntil
}

// Restored says what Budget.Restore changed of what it was given.
type Restored struct {
	Future       int       // dated after the clock: counted as now
	Dropped      int       // older than an hour
	PauseClamped time.Time // the pause end as given, when cut to client.MaxRateLimitPause
	Excess       int       // over the hour's budget in the last hour: the oldest dropped
}

// Restore merges a persisted ledger, not trusting it: old entries are dropped,
// future ones count as now, the pause is capped. The merge is a union, so a
// ledger read from both the cache file and the journal counts once.
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
	// More than an hour's budget in the last hour is not what a budget
	// writes: the latest perHour stand for all (they hold it longest), and
	// the forecast, which books each, stays within an hour's count.
	if n := len(b.sent) - b.perHour; n > 0 {
		r.Excess = n
		b.sent = slices.Delete(b.sent, 0, n)
	}
	if limit := now.Add(client.MaxRateLimitPause); pausedUntil.After(limit) {
		r.PauseClamped = pausedUntil
		pausedUntil = limit
	}
	if pausedUntil.After(b.pausedUntil) {
		b.pausedUntil = pausedUntil
	}
	return r
}

// unionSorted merges ascending lists as multisets (max of the counts).
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

// LogRestored logs what Restore changed of a ledger read from what.
func LogRestored(logger log.Logger, what string, r Restored) {
	if r.Future > 0 {
		level.Warn(logger).Log("msg", "the "+what+" holds analytics requests dated after the clock; counting them as sent now",
			"requests", r.Future)
	}
	if !r.PauseClamped.IsZero() {
		level.Warn(logger).Log("msg", "the "+what+" holds a rate-limit pause longer than a 429 can ask; pausing for at most "+client.MaxRateLimitPause.String()+" instead",
			"paused_until", r.PauseClamped.UTC().Format(time.RFC3339))
	}
	if r.Excess > 0 {
		level.Warn(logger).Log("msg", "the "+what+" holds more analytics requests in the last hour than the budget allows; keeping the latest, as many as the budget",
			"dropped", r.Excess)
	}
	if r.Dropped > 0 {
		level.Debug(logger).Log("msg", "dropped analytics requests older than an hour from the "+what, "requests", r.Dropped)
	}
}
