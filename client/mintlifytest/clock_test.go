package mintlifytest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

var clockStart = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// TestClockWaitUntil: a wait ends when the clock reaches its time, a wait
// for the zero time only when its context ends.
func TestClockWaitUntil(t *testing.T) {
	clk := mintlifytest.NewClock(clockStart)
	done := make(chan error, 1)
	go func() { done <- clk.WaitUntil(context.Background(), clockStart.Add(time.Minute)) }()
	if !clk.Settle(1, time.Minute) {
		t.Fatal("the waiter never settled")
	}
	clk.Advance(59 * time.Second)
	if !clk.Settle(1, time.Minute) {
		t.Fatal("a waiter whose time has not come is not asleep")
	}
	clk.Advance(time.Second)
	if err := <-done; err != nil {
		t.Fatalf("WaitUntil at its time: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	go func() { done <- clk.WaitUntil(ctx, time.Time{}) }()
	if !clk.Settle(1, time.Minute) {
		t.Fatal("a wait for the zero time is not asleep")
	}
	clk.Advance(24 * time.Hour)
	if !clk.Settle(1, time.Minute) {
		t.Fatal("a wait for the zero time ended as the clock moved")
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitUntil after cancel: %v", err)
	}
}

// TestClockSettle: Settle waits for enough waiters, each asleep; a waiter
// whose time has come or whose wait was called off is not asleep.
func TestClockSettle(t *testing.T) {
	clk := mintlifytest.NewClock(clockStart)
	if clk.Settle(1, 0) {
		t.Fatal("settled with no waiter")
	}
	if !clk.Settle(0, 0) {
		t.Fatal("not settled with no waiter wanted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	released := make(chan struct{})
	go func() { _ = clk.WaitUntil(ctx, clockStart.Add(time.Hour)); close(released) }()
	if !clk.Settle(1, time.Minute) {
		t.Fatal("one waiter: not settled")
	}
	if clk.Settle(2, 0) {
		t.Fatal("settled with one waiter of two")
	}
	cancel() // as a Touch calls a sleep off: not asleep from the moment cancel returns
	if clk.Settle(1, 0) {
		t.Fatal("a wait called off counts as asleep")
	}
	<-released
	if clk.Settle(1, 0) {
		t.Fatal("settled after the only waiter left")
	}
}

// TestPatience: $MINTLIFYTEST_PATIENCE only ever shortens a wait, and a
// zero wait (a look without waiting) stays zero.
func TestPatience(t *testing.T) {
	cases := []struct {
		env  string
		d    time.Duration
		want time.Duration
	}{
		{"", 30 * time.Second, 30 * time.Second},
		{"5s", 30 * time.Second, 5 * time.Second},
		{"5s", time.Second, time.Second},
		{"5s", 0, 0},
		{"soon", 30 * time.Second, 30 * time.Second},
		{"-1s", 30 * time.Second, 30 * time.Second},
	}
	for _, c := range cases {
		t.Setenv(mintlifytest.PatienceEnv, c.env)
		if got := mintlifytest.Patience(c.d); got != c.want {
			t.Errorf("Patience(%s) with %s=%q: %s, want %s", c.d, mintlifytest.PatienceEnv, c.env, got, c.want)
		}
	}
}
