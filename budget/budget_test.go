package budget

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

func TestBudgetSlidingHour(t *testing.T) {
	clk := mintlifytest.NewClock(day0)
	b := New(3, clk.Now)
	for i := range 3 {
		if err := b.Allow(context.Background(), client.EndpointVisitors); err != nil {
			t.Fatalf("request %d refused: %v", i, err)
		}
		clk.Advance(10 * time.Minute)
	}
	if err := b.Allow(context.Background(), client.EndpointVisitors); !errors.Is(err, ErrExhausted) {
		t.Fatalf("4th request in the hour: %v, want ErrExhausted", err)
	}
	if err := b.Allow(context.Background(), client.EndpointGetJob); err != nil {
		t.Fatalf("job requests do not spend the analytics budget: %v", err)
	}
	if b.Remaining() != 0 || b.Used() != 3 {
		t.Fatalf("remaining %d used %d", b.Remaining(), b.Used())
	}
	clk.Advance(30 * time.Minute) // the first request is now exactly an hour old
	if b.Remaining() != 1 {
		t.Fatalf("remaining %d an hour after the first request, want 1", b.Remaining())
	}
	if err := b.Allow(context.Background(), client.EndpointVisitors); err != nil {
		t.Fatal(err)
	}
	expected := `
# HELP mintlify_api_budget_remaining Analytics requests the exporter may still send in the current sliding hour.
# TYPE mintlify_api_budget_remaining gauge
mintlify_api_budget_remaining 0
`
	if err := testutil.CollectAndCompare(b, strings.NewReader(expected)); err != nil {
		t.Fatal(err)
	}
}

func TestBudgetPause(t *testing.T) {
	clk := mintlifytest.NewClock(day0)
	b := New(90, clk.Now)
	b.Pause(day0.Add(10 * time.Minute))
	b.Pause(day0.Add(5 * time.Minute)) // never shortens
	if err := b.Allow(context.Background(), client.EndpointVisitors); !errors.Is(err, ErrRateLimitPause) {
		t.Fatalf("during a pause: %v", err)
	}
	if got := b.PausedUntil(); !got.Equal(day0.Add(10 * time.Minute)) {
		t.Fatalf("paused until %s", got)
	}
	clk.Advance(10 * time.Minute)
	if err := b.Allow(context.Background(), client.EndpointVisitors); err != nil {
		t.Fatalf("after the pause: %v", err)
	}
	if !b.PausedUntil().IsZero() {
		t.Fatal("still paused")
	}
}

func TestBudgetRestore(t *testing.T) {
	clk := mintlifytest.NewClock(day0)
	b := New(90, clk.Now)
	_ = b.Allow(context.Background(), client.EndpointVisitors)
	b.Restore([]time.Time{day0.Add(-2 * time.Hour), day0.Add(-30 * time.Minute), day0.Add(-10 * time.Minute)}, day0.Add(time.Minute))
	sent, paused := b.Ledger()
	if len(sent) != 3 || !sent[0].Equal(day0.Add(-30*time.Minute)) || !sent[2].Equal(day0) {
		t.Fatalf("ledger after restore: %v", sent)
	}
	if !paused.Equal(day0.Add(time.Minute)) || b.Remaining() != 87 {
		t.Fatalf("paused %s remaining %d", paused, b.Remaining())
	}
}

// TestBudgetRestoreKeepsAnHoursBudget: a ledger of 200,000 requests in
// the last hour (a cache file or journal written by hand: a budget of 90
// writes at most 90) kept every entry, and the forecast, which books each,
// went quadratic under the engine's lock. The latest 90 stand for all:
// the budget opens again exactly when it would have.
func TestBudgetRestoreKeepsAnHoursBudget(t *testing.T) {
	clk := mintlifytest.NewClock(day0)
	b := New(90, clk.Now)
	var sent []time.Time
	for i := range 200_000 {
		sent = append(sent, day0.Add(-50*time.Minute+time.Duration(i)*10*time.Millisecond))
	}
	r := b.Restore(sent, time.Time{})
	got, _ := b.Ledger()
	if len(got) != 90 || !got[0].Equal(sent[len(sent)-90]) || r.Excess != len(sent)-90 {
		t.Fatalf("ledger of %d entries from %v, excess %d; want the latest 90", len(got), got[0], r.Excess)
	}
	if b.Remaining() != 0 {
		t.Errorf("remaining %d, want 0", b.Remaining())
	}
	clk.Advance(sent[len(sent)-90].Add(time.Hour + time.Millisecond).Sub(clk.Now()))
	if b.Remaining() != 1 {
		t.Errorf("once the oldest kept entry is an hour old: remaining %d, want 1", b.Remaining())
	}
}

var day0 = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
