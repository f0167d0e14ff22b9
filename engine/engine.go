package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/internal/backoff"
)

// Config configures an Engine.
type Config struct {
	// Sources are the enabled sources, in exposition order.
	Sources  []Source
	Projects []string
	Windows  []Window
	// MinInterval is the shortest time between two refreshes of one unit
	// (--analytics.refresh-interval); the planner may stretch it.
	MinInterval time.Duration
	// Budget is the organization's analytics request ledger, also the
	// client's Allow hook.
	Budget *Budget
	// Status exports each source's health per project.
	Status *Status
	Logger log.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Planner plans each unit's refresh interval; PlanWeighted when nil.
	Planner Planner
	// Restore, when set, is persisted state to start from: units whose
	// restored data is not yet due are not refreshed at start-up.
	Restore *State
	// OnChange, when set, is called after a unit's data changed, outside
	// the engine's locks (for example to schedule saving the state).
	OnChange func()
}

// Engine refreshes every unit of every source from the API and serves the
// results as one pre-rendered exposition. See the package documentation.
type Engine struct {
	cfg       Config
	now       func() time.Time
	logger    log.Logger
	sources   []sourceInfo
	units     []*unit // in source, project, window order
	skipped   *prometheus.CounterVec
	wake      chan struct{}
	ctx       context.Context
	cancel    context.CancelFunc
	done      chan struct{} // closed when the worker has ended
	startOnce sync.Once

	mu    sync.Mutex
	queue []*unit // due units waiting for the worker, in order
	// rateLimits counts 429 answers since the last successful refresh.
	rateLimits int
	changed    chan struct{} // closed and replaced whenever a unit settles
	planLog    string        // the plan last logged
	// interruptWait, when set, ends the worker's wait for room in the
	// budget, so that it chooses again among the queued units.
	interruptWait context.CancelFunc
	skipLogged    map[string]bool

	expo atomic.Pointer[Exposition]
}

// sourceInfo is a source with its families' descriptions.
type sourceInfo struct {
	src      Source
	families []Family
	headers  []chunk
	descs    []*prometheus.Desc
}

// unit is the refresh state of one unit; guarded by Engine.mu.
type unit struct {
	Unit
	src      int // index in Engine.sources
	snap     *snapshot
	interval time.Duration
	inFlight bool
	settled  bool // a first attempt ended, or was deferred
	retryAt  time.Time
	failures int
	lastErr  string
	// lastClass is errorClass of the last failure: a failure is logged when
	// it differs from the previous one, not at every refresh.
	lastClass string
	deferred  string // why the last due refresh did not start, or waits
}

// snapshot is the immutable result of one successful refresh of a unit,
// with its families rendered.
type snapshot struct {
	rng       client.DateRange
	res       *Result
	completed time.Time
	duration  time.Duration
	rendered  []chunk // one per family of the source
}

// Backoffs after failures.
const (
	// failureBackoffBase is the wait before a failed unit is refreshed
	// again; it doubles for each further failure, up to the unit's
	// interval.
	failureBackoffBase = 30 * time.Second
)

// rateLimitBackoff is the pause of every analytics request after a 429
// without Retry-After: 2 m, doubling for each further 429 until a refresh
// succeeds, up to client.MaxRateLimitPause.
var rateLimitBackoff = backoff.Policy{Base: 2 * time.Minute, Max: client.MaxRateLimitPause}

var skippedHelp = "Malformed rows of API answers skipped by source and reason (the rest of the answer is kept); never their content."

// New returns an engine with its restored data, if any. Start starts it.
func New(cfg Config) (*Engine, error) {
	if cfg.Budget == nil || cfg.Status == nil {
		return nil, errors.New("engine: Budget and Status are required")
	}
	if len(cfg.Sources) == 0 || len(cfg.Projects) == 0 || len(cfg.Windows) == 0 {
		return nil, errors.New("engine: at least one source, project and window are required")
	}
	if cfg.MinInterval <= 0 {
		return nil, errors.New("engine: the refresh interval must be positive")
	}
	if cfg.Logger == nil {
		cfg.Logger = log.NewNopLogger()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Planner == nil {
		cfg.Planner = PlanWeighted
	}
	e := &Engine{
		cfg: cfg, now: cfg.Now, logger: cfg.Logger,
		wake:       make(chan struct{}, 1),
		done:       make(chan struct{}),
		changed:    make(chan struct{}),
		skipLogged: map[string]bool{},
		skipped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mintlify_rows_skipped_total", Help: skippedHelp,
		}, []string{"source", "reason"}),
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	names := map[string]bool{}
	for si, s := range cfg.Sources {
		info := sourceInfo{src: s, families: s.Families()}
		for _, f := range info.families {
			if names[f.Name] || len(f.Labels) > MaxLabels {
				return nil, fmt.Errorf("engine: source %s: family %s is declared twice or has more than %d labels", s.Name(), f.Name, MaxLabels)
			}
			names[f.Name] = true
			info.headers = append(info.headers, headerChunk(f))
			info.descs = append(info.descs, prometheus.NewDesc(f.Name, f.Help, append([]string{"project", "window"}, f.Labels...), nil))
		}
		e.sources = append(e.sources, info)
		seen := map[string]bool{}
		for _, p := range cfg.Projects {
			for _, w := range cfg.Windows {
				k := p + "\x00" + w.Name
				if seen[k] || !s.Supports(w) {
					continue
				}
				seen[k] = true
				e.units = append(e.units, &unit{Unit: Unit{Source: s.Name(), Project: p, Window: w}, src: si})
				cfg.Status.Track(p, s.Name(), w.Name)
			}
		}
	}
	if len(e.units) == 0 {
		return nil, errors.New("engine: no source supports any of the windows")
	}
	e.expo.Store(&Exposition{})
	e.mu.Lock()
	if cfg.Restore != nil {
		e.restoreLocked(cfg.Restore)
	}
	e.replanLocked()
	e.publishLocked()
	e.mu.Unlock()
	return e, nil
}

// Start starts the worker: every unit without restored data that is still
// current is refreshed at once, one at a time. Call Close to stop it.
func (e *Engine) Start() {
	e.startOnce.Do(func() {
		go e.work()
		e.Touch(context.Background(), 0)
	})
}

// Close cancels the refresh in flight, drops the queued ones and waits for
// the worker to end.
func (e *Engine) Close() {
	e.cancel()
	e.startOnce.Do(func() { close(e.done) }) // never started
	<-e.done
}

// work runs queued refreshes one at a time until Close, so the budget
// check made before a refresh holds until it ends. Each time it takes the
// most valuable queued unit (nextLocked); when the budget has no room for
// it, the worker waits for room (a budget that paces) but looks again
// whenever another unit becomes due, so a unit that became more valuable
// meanwhile goes first and nothing waits behind a long wait.
func (e *Engine) work() {
	defer close(e.done)
	for {
		select {
		case <-e.ctx.Done():
			e.mu.Lock()
			queued := e.queue
			e.queue = nil
			e.mu.Unlock()
			for _, u := range queued {
				e.settle(u, func() {})
			}
			return
		case <-e.wake:
		}
		for e.ctx.Err() == nil {
			e.mu.Lock()
			if len(e.queue) == 0 {
				e.mu.Unlock()
				break
			}
			now := e.now()
			u := e.queue[e.nextLocked(now)]
			cost := e.expectedCostLocked(u, now)
			e.mu.Unlock()
			if e.admit(u, cost) {
				e.unqueue(u)
				e.refresh(u, cost)
			}
		}
	}
}

// expectedCostLocked is what the next refresh of u is expected to cost:
// its last cost, less the share of it that left the window when the UTC
// day rolled over (a 1d window starts the day nearly empty). The walk is
// paced request by request anyway, so an estimate too low never exceeds
// the budget; it only keeps a unit from waiting for room it will not use.
func (e *Engine) expectedCostLocked(u *unit, now time.Time) int {
	if u.snap == nil {
		return 0
	}
	cost := u.snap.res.Cost
	if u.snap.rng != u.Window.Range(now) {
		days := max(1, u.Window.Days)
		cost = 1 + cost*(days-1)/days
	}
	return cost
}

// admit reports whether u may be refreshed now. Never start a refresh the
// budget cannot finish: it needs its last known cost, or the whole hour's
// budget when it is longer than that (the budget then paces it over several
// hours). During a rate-limit pause, or when a budget that does not pace is
// spent, u is deferred and leaves the queue. A budget that paces makes the
// worker wait for room, until another unit becomes due; then admit returns
// false with u still queued, and the worker chooses again.
func (e *Engine) admit(u *unit, cost int) bool {
	need := min(max(1, cost), e.cfg.Budget.PerHour())
	if until := e.cfg.Budget.PausedUntil(); !until.IsZero() {
		e.unqueue(u)
		e.deferUnit(u, fmt.Sprintf("rate limited by the API until %s", until.UTC().Format(time.RFC3339)), until)
		return false
	}
	left := e.cfg.Budget.Remaining()
	if left >= need {
		return true
	}
	why := fmt.Sprintf("needs %d requests, %d of %d left in the last hour", need, left, e.cfg.Budget.PerHour())
	ctx, cancel := context.WithCancel(e.ctx)
	e.mu.Lock()
	u.deferred = "waiting: " + why
	e.interruptWait = cancel // Touch cancels the wait when another unit becomes due
	e.mu.Unlock()
	err := e.cfg.Budget.WaitFor(ctx, need)
	e.mu.Lock()
	e.interruptWait = nil
	e.mu.Unlock()
	interrupted := ctx.Err() != nil
	cancel()
	switch {
	case err == nil:
		return true
	case e.ctx.Err() != nil:
		return false // shutting down: work settles the queue
	case interrupted:
		return false // another unit became due: choose again
	}
	e.unqueue(u)
	e.deferUnit(u, why, time.Time{})
	return false
}

// unqueue takes u out of the queue.
func (e *Engine) unqueue(u *unit) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if j := slices.Index(e.queue, u); j >= 0 {
		e.queue = slices.Delete(e.queue, j, j+1)
	}
}

// Exposition returns the current pre-rendered exposition.
func (e *Engine) Exposition() *Exposition { return e.expo.Load() }

// Ready reports whether every unit has data.
func (e *Engine) Ready() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, u := range e.units {
		if u.snap == nil {
			return false
		}
	}
	return true
}

// Touch is called by every scrape. It starts a background refresh of every
// unit that is due, and, when some unit has no data yet, waits up to wait
// (or until ctx ends) for the first attempts to settle.
func (e *Engine) Touch(ctx context.Context, wait time.Duration) {
	e.mu.Lock()
	now := e.now()
	queued := false
	for _, u := range e.units {
		if e.dueLocked(u, now) {
			u.inFlight = true
			e.queue = append(e.queue, u)
			queued = true
		}
	}
	if queued && e.interruptWait != nil {
		e.interruptWait()
	}
	e.mu.Unlock()
	if queued {
		select {
		case e.wake <- struct{}{}:
		default: // the worker is already awake
		}
	}
	if wait <= 0 {
		return
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		e.mu.Lock()
		pending := false
		for _, u := range e.units {
			if u.snap == nil && !u.settled {
				pending = true
			}
		}
		ch := e.changed
		e.mu.Unlock()
		if !pending {
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

// Idle reports whether no refresh is queued or running, and returns a
// channel closed at the next change; tests use it to wait for refreshes.
func (e *Engine) Idle() (bool, <-chan struct{}) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, u := range e.units {
		if u.inFlight {
			return false, e.changed
		}
	}
	return true, e.changed
}

// nextLocked returns the index in the queue of the unit to refresh next:
// the one whose data is most wrong per request it costs. A unit's data is
// wrong by about a/(24·N) of its value after a hours for an N-day window,
// and by about 1/N once the UTC day rolled over and the window moved; a
// unit without data comes first. Ties keep the order units became due in.
func (e *Engine) nextLocked(now time.Time) int {
	best, bestScore := 0, -1.0
	for i, u := range e.queue {
		score := math.Inf(1)
		if u.snap != nil {
			days := float64(max(1, u.Window.Days))
			wrong := now.Sub(u.snap.completed).Hours() / (24 * days)
			if u.snap.rng != u.Window.Range(now) {
				wrong = max(wrong, 1/days)
			}
			score = wrong / float64(max(1, e.expectedCostLocked(u, now)))
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// dueLocked reports whether u should start a refresh now.
func (e *Engine) dueLocked(u *unit, now time.Time) bool {
	if u.inFlight || now.Before(u.retryAt) {
		return false
	}
	if u.snap == nil {
		return true
	}
	if u.snap.rng != u.Window.Range(now) {
		return true // the UTC day rolled over: the window moved
	}
	if !now.Before(u.snap.completed.Add(u.interval)) {
		// Data refreshed now would be replaced at the next UTC midnight,
		// when the window moves; when that is less than a quarter of the
		// interval away, the refresh waits for it, and its requests stay
		// free for the rollover, when every unit is due at once.
		midnight := client.DateOf(now).AddDays(1).Time()
		return midnight.Sub(now) >= u.interval/4
	}
	return false
}

// refresh runs one unit on the worker; u.inFlight is set and the budget
// admitted it.
func (e *Engine) refresh(u *unit, cost int) {
	start := e.now()
	rng := u.Window.Range(start)
	res, err := e.sources[u.src].src.Fetch(e.ctx, u.Unit, rng, cost)
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

// check refuses a result that does not fit the source's families.
func (e *Engine) check(u *unit, res *Result) error {
	if res == nil || len(res.Samples) > len(e.sources[u.src].families) {
		return fmt.Errorf("source %s returned a result that does not match its families", u.Source)
	}
	return nil
}

// render renders a result's families for a unit.
func (e *Engine) render(u *unit, res *Result) []chunk {
	fams := e.sources[u.src].families
	out := make([]chunk, len(fams))
	for i, f := range fams {
		if i < len(res.Samples) {
			out[i] = renderFamily(f, u.Project, u.Window.Name, res.Samples[i])
		}
	}
	return out
}

// settle marks u as no longer in flight and wakes scrapes waiting for it.
func (e *Engine) settle(u *unit, f func()) {
	e.mu.Lock()
	f()
	u.inFlight = false
	u.settled = true
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
}

func (e *Engine) deferUnit(u *unit, why string, until time.Time) {
	e.settle(u, func() {
		if u.deferred != why {
			level.Debug(e.logger).Log("msg", "refresh deferred to respect the request budget",
				"unit", u.Unit.String(), "reason", why)
		}
		u.deferred = why
		if !until.IsZero() {
			u.retryAt = until
		}
	})
}

func (e *Engine) fail(u *unit, err error, end time.Time, took time.Duration) {
	if e.ctx.Err() != nil {
		e.settle(u, func() {}) // shutting down: not a failure of the API
		return
	}
	e.cfg.Status.Failed(u.Project, u.Source, u.Window.Name, took)
	if ra, has, ok := client.IsRateLimited(err); ok {
		e.mu.Lock()
		e.rateLimits++
		if !has {
			ra = rateLimitBackoff.Delay(e.rateLimits)
		}
		ra = min(ra, client.MaxRateLimitPause)
		e.mu.Unlock()
		e.cfg.Budget.Pause(end.Add(ra))
		level.Warn(e.logger).Log("msg", "the API rate limit (100 analytics requests per organization per hour) was hit; pausing all analytics requests",
			"unit", u.Unit.String(), "resume_at", end.Add(ra).UTC().Format(time.RFC3339))
	}
	e.settle(u, func() {
		u.failures++
		u.deferred = ""
		u.retryAt = end.Add(backoff.Policy{Base: failureBackoffBase, Max: u.interval}.Delay(u.failures))
		if class := errorClass(err); class != u.lastClass {
			msg := u.Source + " refresh failed; serving the previous data"
			if u.snap == nil {
				msg = u.Source + " refresh failed; no data for this unit yet"
			}
			level.Error(e.logger).Log("msg", msg, "collector", u.Source, "project", u.Project, "window", u.Window.String(),
				"err", advice(err), "retry_at", u.retryAt.UTC().Format(time.RFC3339))
			u.lastClass = class
		}
		u.lastErr = err.Error()
	})
}

func (e *Engine) succeed(u *unit, snap *snapshot) {
	e.cfg.Status.Succeeded(u.Project, u.Source, u.Window.Name, snap.completed, snap.duration)
	for _, reason := range slices.Sorted(maps.Keys(snap.res.Skipped)) {
		n := snap.res.Skipped[reason]
		if n <= 0 {
			continue
		}
		e.skipped.WithLabelValues(u.Source, reason).Add(float64(n))
		e.mu.Lock()
		first := !e.skipLogged[u.Source+"\x00"+reason]
		e.skipLogged[u.Source+"\x00"+reason] = true
		e.mu.Unlock()
		if first {
			level.Warn(e.logger).Log("msg", "the API sent malformed rows; they were skipped and the rest of the answer kept (logged once per source and reason; see mintlify_rows_skipped_total)",
				"collector", u.Source, "project", u.Project, "window", u.Window.String(), "reason", reason, "rows", n)
		}
	}
	e.settle(u, func() {
		if u.lastErr != "" {
			level.Info(e.logger).Log("msg", u.Source+" refresh succeeded again", "collector", u.Source, "project", u.Project, "window", u.Window.String())
		}
		u.snap, u.failures, u.lastErr, u.lastClass, u.deferred, u.retryAt = snap, 0, "", "", "", time.Time{}
		e.rateLimits = 0
		level.Debug(e.logger).Log("msg", u.Source+" refreshed", "collector", u.Source, "project", u.Project, "window", u.Window.String(),
			"range", snap.rng.String(), "requests", snap.res.Cost, "summary", snap.res.Summary, "duration", snap.duration)
		e.replanLocked()
		e.publishLocked()
	})
	if e.cfg.OnChange != nil {
		e.cfg.OnChange()
	}
}

// replanLocked recomputes every unit's interval from the last known costs
// and logs the plan when the budget stretches it and it changed.
func (e *Engine) replanLocked() {
	pu := make([]PlanUnit, len(e.units))
	for i, u := range e.units {
		pu[i] = PlanUnit{Cost: 1, Days: u.Window.Days}
		if u.snap != nil {
			pu[i].Cost = max(1, u.snap.res.Cost)
		}
	}
	intervals := e.cfg.Planner(pu, e.cfg.Budget.PerHour(), e.cfg.MinInterval)
	stretched := false
	var plan strings.Builder
	rate := 0.0
	for i, u := range e.units {
		u.interval = max(intervals[i], e.cfg.MinInterval)
		stretched = stretched || u.interval > e.cfg.MinInterval
		rate += float64(pu[i].Cost) * float64(time.Hour) / float64(u.interval)
		fmt.Fprintf(&plan, "%s=%s/%dreq ", u.Unit.String(), u.interval, pu[i].Cost)
		e.cfg.Status.SetInterval(u.Project, u.Source, u.Window.Name, u.interval)
	}
	if s := strings.TrimSpace(plan.String()); stretched && s != e.planLog {
		level.Info(e.logger).Log("msg", "refresh intervals stretched to fit the analytics request budget; each unit's interval grows with the square root of its cost times its days",
			"min_interval", e.cfg.MinInterval, "requests_per_hour", e.cfg.Budget.PerHour(),
			"planned_requests_per_hour", fmt.Sprintf("%.1f", rate), "plan", s)
		e.planLog = s
	}
}

// publishLocked swaps in a new exposition of the current data: for each
// source, each family whole, units in project then window order.
func (e *Engine) publishLocked() {
	x := &Exposition{}
	for si, s := range e.sources {
		for fi := range s.families {
			header := false
			for _, u := range e.units {
				if u.src != si || u.snap == nil || len(u.snap.rendered[fi].text) == 0 {
					continue
				}
				if !header { // a family without series is left out, as client_golang does
					x.add(s.headers[fi])
					header = true
				}
				x.add(u.snap.rendered[fi])
			}
		}
	}
	e.expo.Store(x)
}

// UnitState describes one unit for the landing page.
type UnitState struct {
	Unit
	// Range, Completed, Cost and Summary describe the last good data; Completed
	// is zero before the first.
	Range     client.DateRange
	Completed time.Time
	Cost      int
	Summary   string
	// Interval is the planned refresh interval.
	Interval   time.Duration
	Refreshing bool
	// LastError is the error of the last refresh, "" when it succeeded.
	LastError string
	// Deferred says why a due refresh did not start, or what it waits for.
	Deferred string
}

// States returns the state of every unit.
func (e *Engine) States() []UnitState {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]UnitState, len(e.units))
	for i, u := range e.units {
		s := UnitState{Unit: u.Unit, Interval: u.interval, Refreshing: u.inFlight, LastError: u.lastErr, Deferred: u.deferred, Cost: 1}
		if u.snap != nil {
			s.Range, s.Completed, s.Cost, s.Summary = u.snap.rng, u.snap.completed, u.snap.res.Cost, u.snap.res.Summary
		}
		out[i] = s
	}
	return out
}

// LiveCollectors returns the engine's metrics that change between
// refreshes and are gathered at every scrape (mintlify_rows_skipped_total).
func (e *Engine) LiveCollectors() []prometheus.Collector { return []prometheus.Collector{e.skipped} }

// Describe implements prometheus.Collector for the sources' families.
func (e *Engine) Describe(ch chan<- *prometheus.Desc) {
	for _, s := range e.sources {
		for _, d := range s.descs {
			ch <- d
		}
	}
}

// Collect implements prometheus.Collector from the current data. The scrape
// handler's fast path serves the pre-rendered Exposition instead; both
// carry the same series.
func (e *Engine) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	type item struct {
		u    Unit
		src  int
		snap *snapshot
	}
	var items []item
	for _, u := range e.units {
		if u.snap != nil {
			items = append(items, item{u.Unit, u.src, u.snap})
		}
	}
	e.mu.Unlock()
	for _, it := range items {
		s := e.sources[it.src]
		for fi, samples := range it.snap.res.Samples {
			n := len(s.families[fi].Labels)
			for _, sm := range samples {
				lv := append([]string{it.u.Project, it.u.Window.Name}, sm.Labels[:n]...)
				m, err := prometheus.NewConstMetric(s.descs[fi], prometheus.GaugeValue, sm.Value, lv...)
				if err != nil {
					m = prometheus.NewInvalidMetric(s.descs[fi], err)
				}
				ch <- m
			}
		}
	}
}

// errorClass names the kind of a refresh error, leaving out what varies
// between two refreshes failing for the same reason (such as the offset of
// the page that failed first in a parallel walk).
func errorClass(err error) string {
	var ae *client.APIError
	var de *client.DecodeError
	switch {
	case errors.As(err, &ae):
		return fmt.Sprintf("api %d %s", ae.StatusCode, ae.Message)
	case errors.As(err, &de):
		return "decode " + de.Reason
	case errors.Is(err, ErrBudgetExhausted):
		return "budget"
	case errors.Is(err, ErrRateLimitPause):
		return "paused"
	case errors.Is(err, client.ErrTooManyPages):
		return "too many pages"
	case errors.Is(err, client.ErrEmptyPageWithMore):
		return "empty page"
	case errors.Is(err, client.ErrBodyTooLarge):
		return "body too large"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return "transport"
}

// advice returns the error text with what to do for the common cases.
func advice(err error) string {
	switch {
	case client.IsUnauthorized(err):
		return err.Error() + " (the admin API key was refused: check that it is an admin key of this organization and has not expired or been revoked)"
	case client.IsNotFound(err):
		return err.Error() + " (check --mintlify.project-id against the dashboard's API keys page)"
	}
	return err.Error()
}
