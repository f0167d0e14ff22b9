package budget

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// recorder is a Recorder in memory that can be made to fail.
type recorder struct {
	sent   []time.Time
	paused []time.Time
	fail   error
}

func (r *recorder) Spent(t time.Time) error {
	if r.fail != nil {
		return r.fail
	}
	r.sent = append(r.sent, t)
	return nil
}

func (r *recorder) Unspent(t time.Time) error {
	if i := slices.IndexFunc(r.sent, t.Equal); i >= 0 {
		r.sent = slices.Delete(r.sent, i, i+1)
	}
	return nil
}

func (r *recorder) Paused(t time.Time) error {
	if r.fail != nil {
		return r.fail
	}
	r.paused = append(r.paused, t)
	return nil
}

// TestBudgetRecordsBeforeSending: every allowed analytics request and every
// pause reaches the Recorder before Allow returns; a request that cannot be
// recorded is not sent, and does not count (a full disk must not spend the
// budget with nothing sent).
func TestBudgetRecordsBeforeSending(t *testing.T) {
	clk := mintlifytest.NewClock(day0)
	b := New(5, clk.Now)
	r := &recorder{}
	b.Record(r)
	for range 2 {
		if err := b.Allow(context.Background(), client.EndpointVisitors); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Allow(context.Background(), client.EndpointGetJob); err != nil {
		t.Fatal(err)
	}
	if len(r.sent) != 2 {
		t.Fatalf("recorded %d requests, want the 2 analytics ones", len(r.sent))
	}
	b.Pause(day0.Add(time.Minute))
	b.Pause(day0.Add(30 * time.Second)) // shorter: nothing to record
	if len(r.paused) != 1 || !r.paused[0].Equal(day0.Add(time.Minute)) {
		t.Fatalf("recorded pauses %v", r.paused)
	}
	clk.Advance(time.Minute)
	r.fail = errors.New("disk full")
	if err := b.Allow(context.Background(), client.EndpointVisitors); !errors.Is(err, ErrNotRecorded) {
		t.Fatalf("an unrecorded request: %v, want ErrNotRecorded", err)
	}
	if b.Used() != 2 {
		t.Errorf("used %d, want 2: an unrecorded request is not sent and does not count", b.Used())
	}
	if b.Pause(day0.Add(time.Hour)) == nil {
		t.Error("a pause that could not be recorded is not reported")
	}
}

// TestBudgetRestoreUnion: the same ledger restored twice (from the journal
// and from the cache file) counts once; times are clamped to the clock.
func TestBudgetRestoreUnion(t *testing.T) {
	clk := mintlifytest.NewClock(day0)
	b := New(90, clk.Now)
	ledger := []time.Time{day0.Add(-20 * time.Minute), day0.Add(-10 * time.Minute), day0.Add(-10 * time.Minute)}
	b.Restore(ledger, time.Time{})
	b.Restore(append(ledger, day0.Add(-5*time.Minute)), time.Time{})
	if b.Used() != 4 {
		t.Errorf("used %d after restoring one ledger twice and one more request, want 4", b.Used())
	}
	r := b.Restore([]time.Time{day0.Add(time.Hour), day0.Add(-2 * time.Hour)}, day0.Add(48*time.Hour))
	if r.Future != 1 || r.Dropped != 1 || !r.PauseClamped.Equal(day0.Add(48*time.Hour)) {
		t.Errorf("restore report %+v", r)
	}
	if !b.PausedUntil().Equal(day0.Add(client.MaxRateLimitPause)) || b.Used() != 5 {
		t.Errorf("paused until %s, used %d", b.PausedUntil(), b.Used())
	}
}

// TestBudgetUnsentTakesBackTheLastRequest: a request that never reached the
// API leaves the ledger and the journal; other endpoints change nothing.
func TestBudgetUnsentTakesBackTheLastRequest(t *testing.T) {
	clk := mintlifytest.NewClock(day0)
	b := New(5, clk.Now)
	r := &recorder{}
	b.Record(r)
	b.Unsent(client.EndpointVisitors) // nothing counted yet: nothing to take back
	for range 2 {
		if err := b.Allow(context.Background(), client.EndpointVisitors); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Minute)
	}
	b.Unsent(client.EndpointGetJob)
	if b.Used() != 2 {
		t.Fatalf("a job request's Unsent took back an analytics request: used %d", b.Used())
	}
	b.Unsent(client.EndpointVisitors)
	sent, _ := b.Ledger()
	if len(sent) != 1 || !sent[0].Equal(day0) {
		t.Fatalf("ledger %v, want only the first request", sent)
	}
	if len(r.sent) != 1 || !r.sent[0].Equal(day0) {
		t.Fatalf("journal %v, want only the first request", r.sent)
	}
	if b.Remaining() != 4 {
		t.Fatalf("remaining %d, want 4", b.Remaining())
	}
}

// TestBudgetPaceWaitsForTheOldestToLeave: a paced budget waits until the
// oldest request of the hour has left it, plus PaceMargin, then sends.
func TestBudgetPaceWaitsForTheOldestToLeave(t *testing.T) {
	clk := mintlifytest.NewClock(day0)
	b := New(2, clk.Now)
	var waited []time.Time
	b.Pace(func(ctx context.Context, at time.Time) error {
		waited = append(waited, at)
		clk.Advance(at.Sub(clk.Now()))
		return nil
	})
	for range 2 {
		if err := b.Allow(context.Background(), client.EndpointVisitors); err != nil {
			t.Fatal(err)
		}
		clk.Advance(10 * time.Minute)
	}
	if err := b.Allow(context.Background(), client.EndpointVisitors); err != nil {
		t.Fatal(err)
	}
	want := day0.Add(time.Hour + PaceMargin)
	if len(waited) != 1 || !waited[0].Equal(want) {
		t.Fatalf("waited until %v, want once until %s", waited, want)
	}
	sent, _ := b.Ledger()
	if len(sent) != 2 || !sent[1].Equal(want) {
		t.Fatalf("ledger %v", sent)
	}
	stop := errors.New("stopped")
	b.Pace(func(context.Context, time.Time) error { return stop })
	if err := b.Allow(context.Background(), client.EndpointVisitors); !errors.Is(err, ErrExhausted) || !errors.Is(err, stop) {
		t.Fatalf("a wait that ended: %v, want ErrExhausted and the wait's error", err)
	}
}

// TestBudgetHourIsSliding: a request leaves the ledger exactly an hour
// after it was sent, not a moment later.
func TestBudgetHourIsSliding(t *testing.T) {
	clk := mintlifytest.NewClock(day0)
	b := New(1, clk.Now)
	if err := b.Allow(context.Background(), client.EndpointVisitors); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour - time.Nanosecond)
	if b.Remaining() != 0 {
		t.Fatal("a request left the ledger before its hour")
	}
	clk.Advance(time.Nanosecond)
	if b.Remaining() != 1 {
		t.Fatal("a request stayed in the ledger after its hour")
	}
}

func TestLogRestored(t *testing.T) {
	var buf strings.Builder
	logger := log.NewLogfmtLogger(&buf)
	LogRestored(logger, "cache file", Restored{})
	if buf.Len() != 0 {
		t.Fatalf("a ledger taken as it was is logged: %s", buf.String())
	}
	LogRestored(logger, "cache file", Restored{Future: 2, Dropped: 3, PauseClamped: day0})
	got := buf.String()
	for _, want := range []string{
		`level=warn msg="the cache file holds analytics requests dated after the clock; counting them as sent now" requests=2`,
		`level=warn msg="the cache file holds a rate-limit pause longer than a 429 can ask; pausing for at most ` + client.MaxRateLimitPause.String() + ` instead" paused_until=2026-03-10T12:00:00Z`,
		`level=debug msg="dropped analytics requests older than an hour from the cache file" requests=3`,
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("log lacks %s\n%s", want, got)
		}
	}
}
