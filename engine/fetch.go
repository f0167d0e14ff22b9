package engine

import (
	"context"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// Walk is a fetch the engine sends one request at a time, so that other
// requests can go between its pages.
type Walk interface {
	// Step sends the next request and reports completion; after an error the step may be retried.
	Step(ctx context.Context) (done bool, err error)
	Sent() int // requests sent so far
	// Totals is the site-wide families' result once the first page came, or nil.
	Totals() *Result
	Result() (*Result, error) // once complete
}

// Stepper is implemented by a source whose unit may be a walk of pages.
// Begin returns nil when u is not one: Fetch sends it.
type Stepper interface {
	Walks(u Unit) bool
	Begin(u Unit, r client.DateRange, prevCost int) (Walk, error)
}

// Resumable is implemented by a Walk whose progress can be persisted to resume
// it after a restart; ok is false before its first page and once complete.
type Resumable interface {
	Progress() (p client.WalkProgress, ok bool)
}

// Resumer is implemented by a Stepper that resumes a unit's walk from its
// Resumable progress, refusing progress that walk could not have reached.
type Resumer interface {
	Resume(u Unit, p client.WalkProgress, prevCost int) (Walk, error)
}

// Splitter is implemented by a source whose full windows are two units:
// the site totals (one request with limit=1) and the page walk.
type Splitter interface {
	SplitsTotals() bool
}

// job is a fetch in progress, advanced one request at a time.
type job struct {
	u          *unit // the unit refreshed
	rng        client.DateRange
	started    time.Time
	walk       Walk
	err        error // the walk could not be begun
	totalsDone bool  // the totals went to the window's totals unit
	sent       int   // the walk's requests as of its last step, for States (under e.mu)
	// progress is a Resumable walk's as of its last step, for State (under e.mu).
	progress *client.WalkProgress
}

// singleWalk is a fetch sent whole by Source.Fetch, as one step.
type singleWalk struct {
	fetch func(ctx context.Context) (*Result, error)
	res   *Result
}

func (w *singleWalk) Step(ctx context.Context) (bool, error) {
	res, err := w.fetch(ctx)
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

// newWalk starts the fetch of u over rng: the source's walk, else one Fetch.
func (e *Engine) newWalk(u *unit, rng client.DateRange, prev int) (Walk, error) {
	src := e.sources[u.src].src
	if st, ok := src.(Stepper); ok {
		w, err := st.Begin(u.Unit, rng, prev)
		if err != nil || w != nil {
			return w, err
		}
	}
	return &singleWalk{fetch: func(ctx context.Context) (*Result, error) { return src.Fetch(ctx, u.Unit, rng, prev) }}, nil
}
