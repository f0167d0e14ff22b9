package budget

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

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
	b.Pause(day0.Add(time.Hour))
	if b.RecordErr() == nil {
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
