package mintlifytest

import (
	"context"
	"os"
	"sync"
	"time"
)

// Clock is a clock a test moves by hand, safe for concurrent use. Pass its
// Now to WithClock and to the code under test so both share one time, and
// its WaitUntil as the code's timer: Settle then tells when that code can
// go on only once the clock moves.
type Clock struct {
	mu      sync.Mutex
	t       time.Time
	waiters map[*waiter]bool
	changed chan struct{} // closed and replaced when the clock or a waiter changes
}

type waiter struct {
	ctx context.Context
	t   time.Time // zero: until ctx ends
}

// NewClock returns a Clock reading t.
func NewClock(t time.Time) *Clock {
	return &Clock{t: t, waiters: map[*waiter]bool{}, changed: make(chan struct{})}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d, releasing the waiters whose time
// has come.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	c.changedLocked()
}

func (c *Clock) changedLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *Clock) notify() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.changedLocked()
}

// WaitUntil returns nil once the clock reads t, or ctx's error when ctx
// ends first. The zero t waits until ctx ends.
func (c *Clock) WaitUntil(ctx context.Context, t time.Time) error {
	w := &waiter{ctx: ctx, t: t}
	c.mu.Lock()
	c.waiters[w] = true
	c.changedLocked()
	c.mu.Unlock()
	stop := context.AfterFunc(ctx, c.notify) // Settle sees a wait called off
	defer func() {
		stop()
		c.mu.Lock()
		delete(c.waiters, w)
		c.changedLocked()
		c.mu.Unlock()
	}()
	for {
		c.mu.Lock()
		now, changed := c.t, c.changed
		c.mu.Unlock()
		if !t.IsZero() && !now.Before(t) {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Settle waits until at least n goroutines wait on the clock and each waits
// for a time still to come, a wait not called off: the code under test can
// then go on only when the clock moves. It reports false if that takes
// longer than timeout of real time (Patience).
func (c *Clock) Settle(n int, timeout time.Duration) bool {
	deadline := time.NewTimer(Patience(timeout))
	defer deadline.Stop()
	for {
		c.mu.Lock()
		asleep, changed := 0, c.changed
		for w := range c.waiters {
			if w.ctx.Err() == nil && (w.t.IsZero() || c.t.Before(w.t)) {
				asleep++
			}
		}
		settled := asleep >= n && asleep == len(c.waiters)
		c.mu.Unlock()
		if settled {
			return true
		}
		select {
		case <-changed:
		case <-deadline.C:
			return false
		}
	}
}

// PatienceEnv names the environment variable that shortens Patience.
const PatienceEnv = "MINTLIFYTEST_PATIENCE"

// Patience is how long a test waits, in real time, for what takes
// milliseconds when the code works, such as an engine settling on the
// Clock: d, or less when $MINTLIFYTEST_PATIENCE is a shorter duration.
// make mutate sets it to a few seconds, so that a mutant that hangs the
// engine fails in seconds rather than at the tests' generous deadlines.
func Patience(d time.Duration) time.Duration {
	if p, err := time.ParseDuration(os.Getenv(PatienceEnv)); err == nil && p > 0 && d > p {
		return p
	}
	return d
}
