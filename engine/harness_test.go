package engine

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/health"
	"github.com/mintlify-exporter/mintlify_exporter/internal/logbuf"
)

// The engine's own tests run it with memSource, a source whose data and
// costs live in memory, on a manual clock. They never reach the network.

// t0 is the tests' start: noon UTC, so that no window rolls over unless a
// test moves the clock past midnight.
var t0 = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// memSource is an in-memory source: each unit costs cost[project/window]
// requests (1 when unset), each taken from the budget as a real walk's
// pages are, and exports one family with the number of fetches so far.
type memSource struct {
	name  string
	group string // CostGroup; "" for none
	fixed int    // EstimateCost; 0: unknown before the first fetch
	// step makes the source a Stepper: a unit is a walk of cost requests
	// sent one at a time.
	step bool
	b    *budget.Budget

	mu      sync.Mutex
	cost    map[string]int
	fetches map[string]int
	fail    map[string]error // the error of the next fetches of a unit
	order   []string         // units in the order fetched
	ranges  []client.DateRange
	// gate, when set, holds every fetch after its requests until a value
	// arrives (or the fetch's context ends).
	gate chan struct{}
}

func newMemSource(name string, b *budget.Budget) *memSource {
	return &memSource{name: name, b: b, cost: map[string]int{}, fetches: map[string]int{}, fail: map[string]error{}}
}

func (s *memSource) Name() string { return s.name }
func (s *memSource) Families() []Family {
	return []Family{{Name: "test_" + s.name + "_fetches", Help: "Fetches of the unit."}}
}
func (s *memSource) Supports(Window) bool  { return true }
func (s *memSource) EstimateCost(Unit) int { return s.fixed }
func (s *memSource) CostGroup() string     { return s.group }

func (s *memSource) setCost(project, window string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cost[project+"/"+window] = n
}

func (s *memSource) setFail(project, window string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		delete(s.fail, project+"/"+window)
		return
	}
	s.fail[project+"/"+window] = err
}

func (s *memSource) count(project, window string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fetches[project+"/"+window]
}

// Walks implements Stepper: with step set, every unit is a walk.
func (s *memSource) Walks(Unit) bool { return s.step }

// Begin implements Stepper when step is set.
func (s *memSource) Begin(u Unit, r client.DateRange, _ int) (Walk, error) {
	if !s.step {
		return nil, nil
	}
	k := u.Project + "/" + u.Window.String()
	s.mu.Lock()
	defer s.mu.Unlock()
	return &memWalk{s: s, k: k, r: r, n: max(1, s.cost[k])}, nil
}

// memWalk is a memSource unit sent one request at a time.
type memWalk struct {
	s    *memSource
	k    string
	r    client.DateRange
	n    int
	sent int
	res  *Result
}

func (w *memWalk) Step(ctx context.Context) (bool, error) {
	if err := w.s.b.Allow(ctx, client.EndpointVisitors); err != nil {
		return false, err
	}
	w.sent++
	if w.sent < w.n {
		return false, nil
	}
	s := w.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.order = append(s.order, s.name+"/"+w.k)
	s.ranges = append(s.ranges, w.r)
	if fail := s.fail[w.k]; fail != nil {
		return false, fail
	}
	s.fetches[w.k]++
	w.res = &Result{Samples: [][]Sample{{{Value: float64(s.fetches[w.k])}}}, Cost: w.n, Summary: "in memory"}
	return true, nil
}

// Progress implements Resumable: a page a request.
func (w *memWalk) Progress() (client.WalkProgress, bool) {
	if w.sent == 0 || w.res != nil {
		return client.WalkProgress{}, false
	}
	return client.WalkProgress{Endpoint: client.EndpointVisitors.String(), Project: w.k,
		From: w.r.From.String(), To: w.r.To.String(), PageSize: 1, Pages: w.sent}, true
}

// Resume implements Resumer when step is set: the walk goes on after its
// sent requests, refused when it could not have sent them.
func (s *memSource) Resume(u Unit, p client.WalkProgress, _ int) (Walk, error) {
	w, err := s.Begin(u, client.DateRange{}, 0)
	if err != nil || w == nil {
		return nil, fmt.Errorf("not a walk: %v", err)
	}
	mw := w.(*memWalk)
	if mw.r, err = p.Range(); err != nil {
		return nil, err
	}
	if p.Project != mw.k || p.Pages < 1 || p.Pages >= mw.n {
		return nil, fmt.Errorf("%d requests of %s sent, not within 1..%d", p.Pages, mw.k, mw.n-1)
	}
	mw.sent = p.Pages
	return mw, nil
}

func (w *memWalk) Sent() int                { return w.sent }
func (w *memWalk) Totals() *Result          { return nil }
func (w *memWalk) Result() (*Result, error) { return w.res, nil }

func (s *memSource) Fetch(ctx context.Context, u Unit, r client.DateRange, _ int) (*Result, error) {
	k := u.Project + "/" + u.Window.String()
	s.mu.Lock()
	n := max(1, s.cost[k])
	fail, gate := s.fail[k], s.gate
	s.mu.Unlock()
	for range n {
		if err := s.b.Allow(ctx, client.EndpointVisitors); err != nil {
			return nil, err
		}
	}
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.order = append(s.order, s.name+"/"+k)
	s.ranges = append(s.ranges, r)
	if fail != nil {
		return nil, fail
	}
	s.fetches[k]++
	return &Result{Samples: [][]Sample{{{Value: float64(s.fetches[k])}}}, Cost: n, Summary: "in memory"}, nil
}

// fetched returns the units fetched so far, in order.
func (s *memSource) fetched() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.order...)
}

// rig is an engine of memSources on a manual clock.
type rig struct {
	t     *testing.T
	clock *mintlifytest.Clock
	b     *budget.Budget
	st    *health.Status
	e     *Engine
	logs  *logbuf.Buffer
}

type rigOptions struct {
	perHour     int
	minInterval time.Duration
	projects    []string
	windows     []string
	pace        bool // the budget waits for room instead of refusing
	restore     *State
	start       time.Time // the clock's start; t0 when zero
}

// newRig builds the engine of sources (made by mk with the rig's budget);
// Start is left to the test.
func newRig(t *testing.T, o rigOptions, mk ...func(*budget.Budget) Source) *rig {
	t.Helper()
	if o.start.IsZero() {
		o.start = t0
	}
	clock := mintlifytest.NewClock(o.start)
	b := budget.New(o.perHour, clock.Now)
	if o.pace {
		b.Pace(clock.WaitUntil)
	}
	var sources []Source
	for _, f := range mk {
		sources = append(sources, f(b))
	}
	var windows []Window
	for _, w := range o.windows {
		win, err := ParseWindow(w)
		if err != nil {
			t.Fatal(err)
		}
		windows = append(windows, win)
	}
	if o.minInterval == 0 {
		o.minInterval = 15 * time.Minute
	}
	r := &rig{t: t, clock: clock, b: b, st: health.NewStatus(), logs: &logbuf.Buffer{}}
	var err error
	r.e, err = New(Config{Sources: sources, Projects: o.projects, Windows: windows, MinInterval: o.minInterval,
		Budget: b, Status: r.st, Now: clock.Now, Restore: o.restore, WaitUntil: clock.WaitUntil, Logger: log.NewLogfmtLogger(r.logs)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.e.Close)
	return r
}

// settle waits, in real time, until the worker sleeps having seen the
// clock as it is: every refresh that can run now has run.
func (r *rig) settle() {
	r.t.Helper()
	r.e.Touch()
	if !r.clock.Settle(1, 30*time.Second) {
		r.t.Fatalf("the engine did not settle in 30 s: %+v", r.e.States())
	}
}

// waitFor waits, in real time, until cond holds and the worker sleeps
// again: what the engine does on its own timer.
func (r *rig) waitFor(what string, cond func() bool) {
	r.t.Helper()
	r.eventually(what, func() bool { return r.clock.Settle(1, 0) && cond() })
}

// eventually waits, in real time, until cond holds.
func (r *rig) eventually(what string, cond func() bool) {
	r.t.Helper()
	deadline := time.Now().Add(mintlifytest.Patience(30 * time.Second))
	for {
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("%s: not within 30 s; states: %+v\nlogs:\n%s", what, r.e.States(), r.logs)
		}
		time.Sleep(time.Millisecond)
	}
}

// state returns the state of one unit by its name ("source/project/window").
func (r *rig) state(name string) UnitState {
	r.t.Helper()
	for _, s := range r.e.States() {
		if s.Unit.String() == name {
			return s
		}
	}
	r.t.Fatalf("no unit %s", name)
	return UnitState{}
}

// text is the current exposition.
func (r *rig) text() string {
	var b bytes.Buffer
	_ = r.e.Exposition().WriteText(&b)
	return b.String()
}

// logLines counts the log lines that contain s.
func (r *rig) logLines(s string) int {
	return strings.Count(r.logs.String(), s)
}

var errServer = &client.APIError{Endpoint: client.EndpointVisitors, StatusCode: 500, Message: "Internal Server Error"}

func rateLimited(after time.Duration) error {
	return &client.APIError{Endpoint: client.EndpointVisitors, StatusCode: 429, Message: "Too Many Requests", RetryAfter: after, HasRetryAfter: true}
}
