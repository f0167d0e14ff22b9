package engine

import (
	"context"
	"errors"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine/budget"
)

// maxSleep bounds one sleep of the worker on real timers, so that a clock
// that jumps (a suspended machine) is looked at again within minutes.
const maxSleep = 5 * time.Minute

// work is the engine's one worker: until Close it sends, one at a time,
// the request decideLocked says is worth the most now (the first request
// of a due unit's fetch, the next page of a walk in progress, a closed day
// for the day store), and otherwise sleeps until a unit falls due, a
// back-off or a rate-limit pause ends, or the budget has room. It never
// waits for the budget while holding a walk: a walk yields between pages.
func (e *Engine) work() {
	defer close(e.done)
	for e.ctx.Err() == nil {
		now := e.now()
		e.mu.Lock()
		e.pokesSeen = e.pokes
		j, next := e.decideLocked(now)
		switch {
		case j == nil:
			e.sleeping, e.wakeAt = true, next
		case j.kind != jobDay:
			j.u.inFlight = true
		}
		e.working = j != nil
		e.changedLocked()
		e.mu.Unlock()
		if j != nil {
			e.step(j)
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

// Touch is called by every scrape: it wakes the worker to look at the
// units again, and never waits. Refreshes do not need it (they run on the
// engine's timer); a scrape before the first data gets a partial answer,
// and /-/ready says when the first data is in.
func (e *Engine) Touch() { e.poke() }

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

// changedLocked wakes everything waiting for a unit's state to change.
func (e *Engine) changedLocked() {
	close(e.changed)
	e.changed = make(chan struct{})
	e.live.Store(e.liveLocked())
}

// step sends the next request of j on the worker and, when the fetch
// ended, hands its result or error on. A request the budget refused (a
// retry that found no room) or a 429 keeps the walk: it goes on with the
// same page once there is room.
func (e *Engine) step(j *job) {
	done, err := false, j.err
	if err == nil && j.walk != nil {
		done, err = j.walk.Step(e.ctx)
	}
	now := e.now()
	// wait: the walk goes on later (a page sent, or a retry the budget
	// refused); keep: it goes on after a 429, which is still a failure.
	wait := err == nil && !done
	keep := false
	if err != nil && e.ctx.Err() == nil && j.err == nil {
		_, _, keep = client.IsRateLimited(err)
		wait = errors.Is(err, budget.ErrExhausted) || errors.Is(err, budget.ErrRateLimitPause)
	}
	e.mu.Lock()
	if !j.totalsDone && j.walk != nil {
		if t := j.walk.Totals(); t != nil {
			e.installTotalsLocked(j, t, now)
		}
	}
	if wait {
		if j.kind != jobDay {
			j.u.inFlight = false
		}
		e.changedLocked()
		e.mu.Unlock()
		return
	}
	if !keep {
		e.detachLocked(j)
	}
	e.mu.Unlock()
	var res *Result
	if err == nil {
		res, err = j.walk.Result()
	}
	switch j.kind {
	case jobDay:
		e.finishDay(j, res, err, now)
	case jobAudit:
		e.finishAudit(j, res, err, now)
	default:
		e.finishRefresh(j, res, err, now)
	}
}

// finishRefresh installs a refresh's result, or records its failure.
func (e *Engine) finishRefresh(j *job, res *Result, err error, end time.Time) {
	u := j.u
	took := end.Sub(j.started)
	if err == nil {
		err = e.check(u, res)
	}
	if err != nil {
		e.fail(u, err, end, took)
		return
	}
	e.succeed(u, &snapshot{rng: j.rng, res: res, completed: end, duration: took,
		rendered: e.render(u, res)})
}

// installTotalsLocked hands the site totals a page walk read on its first
// page to the window's totals unit, when they are newer than its data:
// a walk refreshes its totals too.
func (e *Engine) installTotalsLocked(j *job, res *Result, at time.Time) {
	j.totalsDone = true
	t := j.u.totals
	if j.kind != jobRefresh || t == nil || t.job != nil || t.inFlight || t.derived ||
		j.rng != t.Window.Range(at) || (t.snap != nil && !t.snap.completed.Before(at)) {
		return
	}
	res.Cost = 1
	e.installLocked(t, &snapshot{rng: j.rng, res: res, completed: at, rendered: e.render(t, res)})
	if e.cfg.OnChange != nil {
		go e.cfg.OnChange()
	}
}
