package engine

import (
	"slices"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/internal/backoff"
)

// Layer serves some units' data from others' and from reads of fixed date
// ranges that the rule schedules, on top of the engine: a package that
// imports this one (docs/dev/design.md).
// The engine calls Reads and Serves under its lock: they read the layer's
// own state and never call the engine. It calls Attach and Refreshed on
// its own goroutine without the lock, in a fixed order: there the layer may
// call Serve, Data and Source.
type Layer interface {
	// Attach is called once by New, after the restore.
	Attach(e *Engine)
	// Reads returns the fixed-range reads the layer wants now.
	Reads(now time.Time) []Read
	// Serves says how the layer serves u.
	Serves(u Unit) Serving
	// Refreshed tells of u's new data, and of its data before (zero when none).
	Refreshed(u Unit, prev, data Data)
}

// Read is a read of a fixed date range the layer wants: the rule schedules it
// as a unit worth Worth, never stale once read. The engine keeps it, and its
// walk in progress, while Reads lists the same Unit and Range.
type Read struct {
	Unit  Unit // a unit of the engine whose source reads Range; its cost is the read's estimate
	Range client.DateRange
	Worth float64
	// Totals ranks it first among equals, as the totals unit of a split
	// window (schedule.Unit.Totals).
	Totals bool
	At     time.Time // not before
	// Done takes the result or the error (Advice says what to do about it),
	// without the engine's lock; not called for an error at Close. A failed
	// read is retried after a back-off; a 429 pauses every request.
	Done func(res *Result, err error, now time.Time)
}

// Serving is how the layer serves a unit (Layer.Serves).
type Serving struct {
	// On while the layer serves the unit's data: the engine does not
	// refresh it, and it has Like's refresh interval.
	On   bool
	Like Unit
	// From is when the engine refreshes the unit again once the layer no
	// longer serves it and its data is still the layer's (zero: at once).
	From time.Time
}

// Data is a unit's data.
type Data struct {
	Range     client.DateRange
	Result    *Result
	Completed time.Time
}

// Source returns the source named name, nil when none.
func (e *Engine) Source(name string) Source {
	if i := slices.IndexFunc(e.sources, func(s sourceInfo) bool { return s.src.Name() == name }); i >= 0 {
		return e.sources[i].src
	}
	return nil
}

// Data returns u's data; ok is false when it has none.
func (e *Engine) Data(u Unit) (d Data, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if c := e.byUnit[u]; c != nil && c.snap != nil {
		return c.snap.data(), true
	}
	return Data{}, false
}

// Serve exports d as u's data, as a refresh would, without a request.
func (e *Engine) Serve(u Unit, d Data) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.byUnit[u]
	if c == nil {
		return
	}
	c.snap = &snapshot{rng: d.Range, res: d.Result, completed: d.Completed, rendered: e.render(c, d.Result), served: true}
	c.attempted, c.failures, c.lastErr, c.retryAt = true, 0, "", time.Time{}
	c.errs.Recovered()
	e.cfg.Status.Succeeded(c.Project, c.Source, c.Window.Name, e.statusPart(c), d.Completed, 0)
	e.publishLocked()
	e.changedLocked()
}

// servingLocked is how the layer serves u.
func (e *Engine) servingLocked(u *unit) Serving {
	if e.cfg.Layer == nil || u.fixed != nil {
		return Serving{}
	}
	return e.cfg.Layer.Serves(u.Unit)
}

// servedLocked reports whether the layer serves u's data now.
func (e *Engine) servedLocked(u *unit) bool { return e.servingLocked(u).On }

// readsLocked returns the units of the layer's reads, in its order, keeping
// those it still wants with their walks and back-offs.
func (e *Engine) readsLocked(now time.Time) []*unit {
	if e.cfg.Layer == nil {
		return nil
	}
	keep := map[readKey]*unit{}
	var out []*unit
	for _, r := range e.cfg.Layer.Reads(now) {
		k := readKey{r.Unit, r.Range}
		c := e.byUnit[r.Unit]
		if c == nil || keep[k] != nil {
			continue
		}
		u := e.reads[k]
		if u == nil {
			u = &unit{Unit: c.Unit, src: c.src, fixed: &fixedRange{rng: r.Range, of: c}}
		}
		u.fixed.worth, u.fixed.totals, u.fixed.done = r.Worth, r.Totals, r.Done
		if u.job == nil {
			u.fixed.at = r.At
		}
		keep[k] = u
		out = append(out, u)
	}
	for k, u := range e.reads {
		if keep[k] == nil && u.job != nil {
			e.dropJobLocked(u.job)
		}
	}
	e.reads = keep
	return out
}

// readKey names a fixed-range read.
type readKey struct {
	u   Unit
	rng client.DateRange
}

// finishRead hands a fixed-range read's result to the layer, or backs off.
func (e *Engine) finishRead(u *unit, res *Result, err error, now time.Time) {
	if e.ctx.Err() != nil {
		e.settle(u, func() {}) // shutting down: not a failure of the API
		return
	}
	e.settle(u, func() {
		u.retryAt = time.Time{}
		if err != nil {
			u.retryAt = now.Add(failureBackoffBase)
		}
	})
	if ra, has, ok := client.IsRateLimited(err); ok {
		if !has || ra <= 0 {
			ra = backoff.AnalyticsRateLimit.Delay(1)
		}
		e.cfg.Budget.Pause(now.Add(min(ra, client.MaxRateLimitPause)))
	}
	u.fixed.done(res, err, now)
	if err == nil {
		e.cfg.OnChange()
	}
}

// note is a refresh the layer is told of.
type note struct {
	u          Unit
	prev, data Data
}

// notifyLayer tells the layer of the refreshes installed since; the worker calls it unlocked.
func (e *Engine) notifyLayer() {
	e.mu.Lock()
	notes := e.notes
	e.notes = nil
	e.mu.Unlock()
	for _, n := range notes {
		e.cfg.Layer.Refreshed(n.u, n.prev, n.data)
	}
}

// Now is the engine's clock.
func (e *Engine) Now() time.Time { return e.cfg.Now() }
