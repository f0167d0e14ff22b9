package engine

import (
	"context"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// Walk is a fetch of one unit that the engine sends one request at a
// time, so that it can send other requests between two pages and resume
// the walk later.
type Walk interface {
	// Step sends the walk's next request and reports whether the walk is
	// complete. After an error the same step may be tried again.
	Step(ctx context.Context) (done bool, err error)
	// Sent is the number of requests (pages) the walk has used so far.
	Sent() int
	// Totals is, once the first page came, a result holding only the
	// source's site-wide families (Family.SiteWide); nil before, or when
	// the source has none.
	Totals() *Result
	// Result is the unit's result once Step reported the walk complete.
	Result() (*Result, error)
}

// Stepper is implemented by a source whose fetch of a unit may be a walk
// of pages (visitors and views). Walks reports whether u is one; Begin
// returns the walk of u over r (nil when u is not a walk: Fetch sends it).
type Stepper interface {
	Walks(u Unit) bool
	Begin(u Unit, r client.DateRange, prevCost int) (Walk, error)
}

// Splitter is implemented by a source whose full windows have two parts,
// scheduled as units of their own: the site totals (one request with
// limit=1, whatever the size of the site; its families are SiteWide) and
// the page breakdown (a walk, whose first page refreshes the totals too).
type Splitter interface {
	SplitsTotals() bool
}

// jobKind says what a job's result is for.
type jobKind int

const (
	jobRefresh jobKind = iota // the unit's data
	jobDay                    // a closed day for the day store
	jobAudit                  // a direct read of a derived window's closed days
)

// job is a fetch in progress: a walk the worker advances one request at a
// time, between which other requests may go.
type job struct {
	kind    jobKind
	u       *unit // the unit refreshed or audited; the base unit for a day
	day     *dayTask
	rng     client.DateRange
	started time.Time
	walk    Walk
	err     error // the walk could not be begun
	// totalsDone is set once the walk's totals were handed to the
	// window's totals unit.
	totalsDone bool
}

// singleWalk is a fetch sent whole by Source.Fetch, as one step.
type singleWalk struct {
	src  Source
	u    Unit
	rng  client.DateRange
	prev int
	res  *Result
}

func (w *singleWalk) Step(ctx context.Context) (bool, error) {
	res, err := w.src.Fetch(ctx, w.u, w.rng, w.prev)
	if err != nil {
		return false, err
	}
	w.res = res
	return true, nil
}

func (w *singleWalk) Sent() int {
	if w.res == nil {
		return 0
	}
	return w.res.Cost
}

func (w *singleWalk) Totals() *Result { return nil }

func (w *singleWalk) Result() (*Result, error) { return w.res, nil }

// newWalk starts the fetch of u over rng: a walk when the source is a
// Stepper with a walk for the unit, else one Fetch. prev is the unit's
// last measured cost.
func (e *Engine) newWalk(u *unit, rng client.DateRange, prev int) (Walk, error) {
	src := e.sources[u.src].src
	if st, ok := src.(Stepper); ok {
		w, err := st.Begin(u.Unit, rng, prev)
		if err != nil || w != nil {
			return w, err
		}
	}
	return &singleWalk{src: src, u: u.Unit, rng: rng, prev: prev}, nil
}
