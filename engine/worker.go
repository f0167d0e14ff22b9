package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// maxSleep bounds a sleep on real timers, so that a clock that jumps (a
// suspended machine) is looked at again within minutes.
const maxSleep = 5 * time.Minute

// work is the one worker: until Close it sends decideLocked's pick, or sleeps
// until something may change; it never holds a walk waiting for the budget.
func (e *Engine) work() {
	defer close(e.done)
	for e.ctx.Err() == nil {
		now := e.cfg.Now()
		e.sleep.Lock()
		e.touched = false // this look at the units answers every Touch so far
		e.sleep.Unlock()
		e.mu.Lock()
		j, next := e.decideLocked(now)
		if j != nil {
			j.u.inFlight = true
		}
		e.changedLocked()
		e.mu.Unlock()
		if j != nil {
			e.step(j)
			continue
		}
		e.sleepUntil(next)
	}
}

// sleepUntil returns when the clock reads t (never, for zero), at Touch or Close.
func (e *Engine) sleepUntil(t time.Time) {
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	e.sleep.Lock()
	if e.touched {
		e.sleep.Unlock()
		return
	}
	e.wakeUp = cancel
	e.sleep.Unlock()
	defer func() {
		e.sleep.Lock()
		e.wakeUp = nil
		e.sleep.Unlock()
	}()
	switch {
	case e.cfg.WaitUntil != nil:
		_ = e.cfg.WaitUntil(ctx, t)
	case t.IsZero():
		<-ctx.Done()
	default:
		timer := time.NewTimer(min(maxSleep, t.Sub(e.cfg.Now())))
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-ctx.Done():
		}
	}
}

// Touch is called by every scrape: it wakes the worker to look at the
// units again, and never waits.
func (e *Engine) Touch() {
	e.sleep.Lock()
	defer e.sleep.Unlock()
	if e.wakeUp != nil {
		e.wakeUp() // the worker's wait ends before Touch returns
		e.wakeUp = nil
		return
	}
	e.touched = true
}

// Ready reports whether every unit has data, waits for the budget, or has
// had its first attempt.
func (e *Engine) Ready() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return !slices.ContainsFunc(e.units, func(u *unit) bool { return u.snap == nil && !u.attempted && u.waitAt.IsZero() })
}

// step sends j's next request and, when the fetch ended, hands on its result.
func (e *Engine) step(j *job) {
	done, err := false, j.err
	if err == nil && j.walk != nil {
		done, err = j.walk.Step(e.ctx)
	}
	now := e.cfg.Now()
	// wait: the walk goes on later (a page sent, or refused by the budget);
	// keep: it goes on after a 429, which is still a failure.
	wait := err == nil && !done
	keep := false
	if err != nil && e.ctx.Err() == nil && j.err == nil {
		_, _, keep = client.IsRateLimited(err)
		wait = errors.Is(err, budget.ErrExhausted) || errors.Is(err, budget.ErrRateLimitPause)
	}
	e.mu.Lock()
	if j.walk != nil { // nil when it could not be begun
		j.sent = j.walk.Sent() // States reads it under e.mu; the walk is the worker's alone
		if !j.totalsDone {
			if t := j.walk.Totals(); t != nil {
				e.installTotalsLocked(j, t, now)
			}
		}
	}
	if wait {
		j.u.inFlight = false
		if rw, ok := j.walk.(Resumable); ok && j.u.fixed == nil && err == nil {
			if p, ok := rw.Progress(); ok {
				j.progress = &p
				go e.cfg.OnChange() // the cache file keeps the walk's progress
			}
		}
		e.changedLocked()
	} else if !keep {
		j.u.job = nil
	}
	e.mu.Unlock()
	e.notifyLayer()
	if wait {
		return
	}
	var res *Result
	if err == nil {
		res, err = j.walk.Result()
	}
	if err == nil && (res == nil || len(res.Samples) > len(e.sources[j.u.src].families)) {
		err = fmt.Errorf("source %s returned a result that does not match its families", j.u.Source)
	}
	switch took := now.Sub(j.started); {
	case j.u.fixed != nil:
		e.finishRead(j.u, res, err, now)
	case err != nil:
		e.fail(j.u, err, now, took)
	default:
		e.succeed(j.u, &snapshot{rng: j.rng, res: res, completed: now, duration: took, rendered: e.render(j.u, res)})
	}
}

// installTotalsLocked gives a walk's first-page totals to its totals unit, if newer.
func (e *Engine) installTotalsLocked(j *job, res *Result, at time.Time) {
	j.totalsDone = true
	t := j.u.totals
	if t == nil || t.job != nil || t.inFlight || e.servedLocked(t) ||
		j.rng != t.Window.Range(at) || (t.snap != nil && !t.snap.completed.Before(at)) {
		return
	}
	res.Cost = 1
	e.installLocked(t, &snapshot{rng: j.rng, res: res, completed: at, rendered: e.render(t, res)})
	go e.cfg.OnChange()
}
