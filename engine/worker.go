package engine

import (
	"context"
	"time"
)

// maxSleep bounds one sleep of the worker on real timers, so that a clock
// that jumps (a suspended machine) is looked at again within minutes.
const maxSleep = 5 * time.Minute

// work is the engine's one worker: until Close it refreshes, one at a
// time, the unit that chooseLocked says buys the most now, and otherwise
// sleeps until the next unit falls due, a back-off or a rate-limit pause
// ends, or the budget has room for the unit that waits for it. Running
// one refresh at a time keeps the budget check made before a refresh true
// until it ends.
func (e *Engine) work() {
	defer close(e.done)
	for e.ctx.Err() == nil {
		now := e.now()
		e.mu.Lock()
		e.pokesSeen = e.pokes
		t, next := e.chooseLocked(now)
		switch {
		case t == nil:
			e.sleeping, e.wakeAt = true, next
		case t.day == nil:
			t.u.inFlight, t.u.due = true, false
		}
		e.working = t != nil
		e.changedLocked()
		e.mu.Unlock()
		if t != nil {
			switch {
			case t.day != nil:
				e.readDay(*t.day, t.spare)
			case t.audit:
				e.audit(t.u)
			default:
				e.refresh(t.u, t.cost)
			}
			continue
		}
		e.sleepUntil(next)
		e.mu.Lock()
		e.sleeping = false
		e.mu.Unlock()
	}
}

// sleepUntil returns when the clock reads t (never, for the zero time),
// when Touch or a change wakes the worker, or at Close.
func (e *Engine) sleepUntil(t time.Time) {
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	var timeUp <-chan struct{}
	switch {
	case t.IsZero():
	case e.cfg.WaitUntil != nil:
		ch := make(chan struct{})
		go func() {
			if e.cfg.WaitUntil(ctx, t) == nil {
				close(ch)
			}
		}()
		timeUp = ch
	default:
		timer := time.NewTimer(min(maxSleep, t.Sub(e.now())))
		defer timer.Stop()
		ch := make(chan struct{})
		go func() {
			select {
			case <-timer.C:
				close(ch)
			case <-ctx.Done():
			}
		}()
		timeUp = ch
	}
	select {
	case <-timeUp:
	case <-e.wake:
	case <-e.ctx.Done():
	}
}

// poke wakes the worker to look at the units again.
func (e *Engine) poke() {
	e.mu.Lock()
	e.pokes++
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// Touch is called by every scrape. Refreshes do not need it (they run on
// the engine's timer); it wakes the worker, and, while a first refresh is
// actually sending requests (see holdLocked), waits up to wait (or until
// ctx ends) for it, so that the first scrape after a start has data. It
// never waits for a unit that cannot make progress now.
func (e *Engine) Touch(ctx context.Context, wait time.Duration) {
	e.poke()
	if wait <= 0 {
		return
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		e.mu.Lock()
		hold := e.holdLocked()
		ch := e.changed
		e.mu.Unlock()
		if !hold {
			return
		}
		select {
		case <-ch:
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// holdLocked reports whether a scrape should wait for first data: the
// worker runs, some unit has had no attempt and does not wait for the
// budget, and the budget has room now (a walk paced by the budget is not
// progressing).
func (e *Engine) holdLocked() bool {
	if !e.started || e.ctx.Err() != nil || e.readyLocked() {
		return false
	}
	return e.cfg.Budget.Remaining() > 0 && e.cfg.Budget.PausedUntil().IsZero()
}

// Ready reports whether the engine has done what it can now: every unit
// has data, waits for the request budget, or has had its first attempt
// (a failure shows in mintlify_up).
func (e *Engine) Ready() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.readyLocked()
}

func (e *Engine) readyLocked() bool {
	for _, u := range e.units {
		if u.snap == nil && !u.attempted && u.waitAt.IsZero() {
			return false
		}
	}
	return true
}

// Idle reports whether the worker sleeps, having looked at the units since
// the last wake-up (Touch) and with its timer still to come, and returns a
// channel closed at the next change. Tests on a manual clock wait for it after each Touch, so that
// the worker never reads the clock while they move it.
func (e *Engine) Idle() (bool, <-chan struct{}) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.started {
		return true, e.changed
	}
	due := !e.wakeAt.IsZero() && !e.now().Before(e.wakeAt) // its timer has fired, or is about to
	return e.sleeping && e.pokesSeen == e.pokes && !due, e.changed
}

// Working reports whether the worker is running a refresh, an audit or a
// day read; tests on a manual clock use it to tell a refresh paced by the
// budget (waiting for their clock) from a sleeping worker.
func (e *Engine) Working() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.working
}

// changedLocked wakes everything waiting for a unit's state to change.
func (e *Engine) changedLocked() {
	close(e.changed)
	e.changed = make(chan struct{})
}

// refresh runs one unit on the worker; u.inFlight is set.
func (e *Engine) refresh(u *unit, cost int) {
	start := e.now()
	rng := u.Window.Range(start)
	// A source may fetch the pages it expects concurrently: only a cost
	// it measured itself, never an estimate from a sibling, is passed on.
	prev := 0
	if u.snap != nil {
		prev = cost
	}
	res, err := e.sources[u.src].src.Fetch(e.ctx, u.Unit, rng, prev)
	end := e.now()
	took := end.Sub(start)
	if err == nil {
		err = e.check(u, res)
	}
	if err != nil {
		e.fail(u, err, end, took)
		return
	}
	e.succeed(u, &snapshot{rng: rng, res: res, completed: end, duration: took,
		rendered: e.render(u, res)})
}
