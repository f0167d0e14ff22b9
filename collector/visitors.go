package collector

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// Walker fetches every page of the unique visitors export; *client.Client
// implements it.
type Walker interface {
	WalkVisitors(ctx context.Context, projectID string, r client.DateRange, o client.WalkOptions) (*client.VisitorsResult, error)
}

// VisitorsConfig configures the visitors collector.
type VisitorsConfig struct {
	Client   Walker
	Projects []string
	Windows  []Window
	// MinInterval is the shortest time between two refreshes of one walk
	// (--visitors.refresh-interval); the budget may stretch it.
	MinInterval time.Duration
	// PageSize is the limit sent upstream (1..250).
	PageSize int
	// MaxPages guards against an upstream that never stops paging.
	MaxPages int
	// PageConcurrency bounds the pages fetched at once within one walk.
	PageConcurrency int
	Filter          PathFilter
	Budget          *Budget
	Status          *Status
	Logger          log.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// OnSnapshot, when set, is called after every successful refresh (for
	// example to persist the state).
	OnSnapshot func()
}

// Visitors serves unique visitor gauges from immutable snapshots, one per
// project and window, and refreshes them in the background when a scrape
// finds them older than the planned interval. A scrape never waits on the
// API once a snapshot exists. Walks run one at a time, in the order they
// became due, on one worker goroutine, so the budget check made before a
// walk holds until it ends.
type Visitors struct {
	cfg    VisitorsConfig
	now    func() time.Time
	logger log.Logger
	walks  []*walk // in project, then window order
	wake   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed when the worker has ended

	mu    sync.Mutex
	plan  Plan
	queue []*walk // due walks waiting for the worker, in order
	// rateLimits counts 429 answers since the last successful refresh.
	rateLimits int
	changed    chan struct{} // closed and replaced whenever a walk settles

	expo atomic.Pointer[Exposition]
}

// walk is the refresh state of one project and window; guarded by
// Visitors.mu.
type walk struct {
	project  string
	window   Window
	snap     *Snapshot
	inFlight bool
	settled  bool // a first attempt ended, or was deferred
	retryAt  time.Time
	failures int
	lastErr  string
	// lastClass is errorClass of the last failure: a failure is logged when
	// it differs from the previous one, not at every refresh.
	lastClass string
	deferred  string // why the last due refresh did not start
}

// Backoffs after failures.
const (
	failureBackoffBase   = 30 * time.Second
	rateLimitBackoffBase = 2 * time.Minute
	// maxRateLimitPause caps any pause after a 429, Retry-After included:
	// the upstream limit is per hour, so a longer pause would be an error.
	maxRateLimitPause = time.Hour
)

// NewVisitors returns the visitors collector. Call Close to stop its
// refreshes.
func NewVisitors(cfg VisitorsConfig) (*Visitors, error) {
	if cfg.Client == nil || cfg.Budget == nil || cfg.Status == nil {
		return nil, errors.New("visitors collector: Client, Budget and Status are required")
	}
	if len(cfg.Projects) == 0 || len(cfg.Windows) == 0 {
		return nil, errors.New("visitors collector: at least one project and one window are required")
	}
	if cfg.PageSize < 1 || cfg.PageSize > 250 {
		return nil, fmt.Errorf("visitors page size %d out of range 1..250", cfg.PageSize)
	}
	if cfg.MinInterval <= 0 {
		return nil, errors.New("visitors refresh interval must be positive")
	}
	if cfg.Logger == nil {
		cfg.Logger = log.NewNopLogger()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	v := &Visitors{
		cfg: cfg, now: cfg.Now, logger: cfg.Logger,
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		changed: make(chan struct{}),
	}
	v.ctx, v.cancel = context.WithCancel(context.Background())
	seen := map[string]bool{}
	for _, p := range cfg.Projects {
		for _, w := range cfg.Windows {
			k := p + "\x00" + w.Name
			if seen[k] {
				continue
			}
			seen[k] = true
			v.walks = append(v.walks, &walk{project: p, window: w})
			cfg.Status.Track(p, SourceVisitors, w.Name)
		}
	}
	v.expo.Store(newExposition(nil))
	v.mu.Lock()
	v.replanLocked()
	v.mu.Unlock()
	go v.work()
	return v, nil
}

// Close cancels the refresh in flight, drops the queued ones and waits for
// the worker to end.
func (v *Visitors) Close() {
	v.cancel()
	<-v.done
}

// work runs queued walks one at a time until Close.
func (v *Visitors) work() {
	defer close(v.done)
	for {
		select {
		case <-v.ctx.Done():
			v.mu.Lock()
			queued := v.queue
			v.queue = nil
			v.mu.Unlock()
			for _, w := range queued {
				v.settle(w, func() {})
			}
			return
		case <-v.wake:
		}
		for v.ctx.Err() == nil {
			v.mu.Lock()
			if len(v.queue) == 0 {
				v.mu.Unlock()
				break
			}
			w := v.queue[0]
			v.queue = v.queue[1:]
			v.mu.Unlock()
			v.refresh(w)
		}
	}
}

// Exposition returns the current pre-rendered exposition.
func (v *Visitors) Exposition() *Exposition { return v.expo.Load() }

// Ready reports whether every project and window has a snapshot.
func (v *Visitors) Ready() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, w := range v.walks {
		if w.snap == nil {
			return false
		}
	}
	return true
}

// Interval is the refresh interval currently planned.
func (v *Visitors) Interval() time.Duration {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.plan.Interval
}

// WalkState describes one project and window for the landing page.
type WalkState struct {
	Project, Window string
	// Snapshot is nil before the first successful refresh.
	Snapshot   *Snapshot
	Refreshing bool
	// LastError is the error of the last refresh, "" when it succeeded.
	LastError string
	// Deferred says why a due refresh did not start, if it did not.
	Deferred string
}

// States returns the state of every project and window.
func (v *Visitors) States() []WalkState {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make([]WalkState, len(v.walks))
	for i, w := range v.walks {
		out[i] = WalkState{Project: w.project, Window: w.window.Name, Snapshot: w.snap,
			Refreshing: w.inFlight, LastError: w.lastErr, Deferred: w.deferred}
	}
	return out
}

// Snapshots returns the current snapshots, for persisting.
func (v *Visitors) Snapshots() []*Snapshot {
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []*Snapshot
	for _, w := range v.walks {
		if w.snap != nil {
			out = append(out, w.snap)
		}
	}
	return out
}

// Restore installs snapshots loaded from persisted state. Snapshots of
// projects or windows not configured are ignored; the rest are served at
// once and refreshed only when due. It returns how many were installed.
func (v *Visitors) Restore(snaps []Snapshot) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	n := 0
	for _, s := range snaps {
		for _, w := range v.walks {
			if w.project == s.Project && w.window.Name == s.Window && w.snap == nil {
				w.snap = restoredSnapshot(s)
				w.settled = true
				v.cfg.Status.Restore(w.project, SourceVisitors, w.window.Name, s.Completed)
				n++
			}
		}
	}
	v.replanLocked()
	v.publishLocked()
	return n
}

// Touch is called by every scrape. It starts a background refresh of every
// walk that is due, and, when some walk has no snapshot yet, waits up to
// wait (or until ctx ends) for the first attempts to settle.
func (v *Visitors) Touch(ctx context.Context, wait time.Duration) {
	v.mu.Lock()
	now := v.now()
	queued := false
	for _, w := range v.walks {
		if v.dueLocked(w, now) {
			w.inFlight = true
			v.queue = append(v.queue, w)
			queued = true
		}
	}
	v.mu.Unlock()
	if queued {
		select {
		case v.wake <- struct{}{}:
		default: // the worker is already awake
		}
	}
	if wait <= 0 {
		return
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		v.mu.Lock()
		pending := false
		for _, w := range v.walks {
			if w.snap == nil && !w.settled {
				pending = true
			}
		}
		ch := v.changed
		v.mu.Unlock()
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

// dueLocked reports whether w should start a refresh now.
func (v *Visitors) dueLocked(w *walk, now time.Time) bool {
	if w.inFlight || now.Before(w.retryAt) {
		return false
	}
	if w.snap == nil {
		return true
	}
	if w.snap.Range != w.window.Range(now) {
		return true // the UTC day rolled over: the window moved
	}
	return !now.Before(w.snap.Completed.Add(v.plan.Interval))
}

// refresh runs one walk on the worker; w.inFlight is set.
func (v *Visitors) refresh(w *walk) {
	v.mu.Lock()
	known := 0
	if w.snap != nil {
		known = w.snap.Pages
	}
	v.mu.Unlock()

	// Never start a walk the budget cannot finish: it needs its last known
	// number of pages, or the whole hour's budget when it is longer than
	// that (the budget then paces it over several hours).
	need := min(max(1, known), v.cfg.Budget.PerHour())
	if until := v.cfg.Budget.PausedUntil(); !until.IsZero() {
		v.deferWalk(w, fmt.Sprintf("rate limited by the API until %s", until.UTC().Format(time.RFC3339)), until)
		return
	}
	if left := v.cfg.Budget.Remaining(); left < need {
		v.deferWalk(w, fmt.Sprintf("needs %d requests, %d of %d left in the last hour", need, left, v.cfg.Budget.PerHour()), time.Time{})
		return
	}

	start := v.now()
	rng := w.window.Range(start)
	res, err := v.cfg.Client.WalkVisitors(v.ctx, w.project, rng, client.WalkOptions{
		PageSize: v.cfg.PageSize, MaxPages: v.cfg.MaxPages, KnownPages: known, Concurrency: v.cfg.PageConcurrency,
	})
	end := v.now()
	took := end.Sub(start)
	if err != nil {
		v.fail(w, err, end, took)
		return
	}
	snap := NewSnapshot(w.project, w.window.Name, res, v.cfg.Filter, end, took)
	v.succeed(w, snap)
}

// settle marks w as no longer in flight and wakes scrapes waiting for it.
func (v *Visitors) settle(w *walk, f func()) {
	v.mu.Lock()
	f()
	w.inFlight = false
	w.settled = true
	close(v.changed)
	v.changed = make(chan struct{})
	v.mu.Unlock()
}

func (v *Visitors) deferWalk(w *walk, why string, until time.Time) {
	v.settle(w, func() {
		if w.deferred != why {
			level.Debug(v.logger).Log("msg", "refresh deferred to respect the request budget",
				"project", w.project, "window", w.window.Name, "reason", why)
		}
		w.deferred = why
		if !until.IsZero() {
			w.retryAt = until
		}
	})
}

func (v *Visitors) fail(w *walk, err error, end time.Time, took time.Duration) {
	if v.ctx.Err() != nil {
		v.settle(w, func() {}) // shutting down: not a failure of the API
		return
	}
	v.cfg.Status.Failed(w.project, SourceVisitors, w.window.Name, took)
	if ra, has, ok := client.IsRateLimited(err); ok {
		v.mu.Lock()
		v.rateLimits++
		if !has {
			ra = rateLimitBackoffBase << min(v.rateLimits-1, 5)
		}
		ra = min(ra, maxRateLimitPause)
		v.mu.Unlock()
		v.cfg.Budget.Pause(end.Add(ra))
		level.Warn(v.logger).Log("msg", "the API rate limit (100 analytics requests per organization per hour) was hit; pausing all analytics requests",
			"project", w.project, "window", w.window.Name, "resume_at", end.Add(ra).UTC().Format(time.RFC3339))
	}
	v.settle(w, func() {
		w.failures++
		w.deferred = ""
		w.retryAt = end.Add(min(v.plan.Interval, failureBackoffBase<<min(w.failures-1, 10)))
		if class := errorClass(err); class != w.lastClass {
			level.Error(v.logger).Log("msg", "visitors refresh failed; serving the previous snapshot",
				"project", w.project, "window", w.window.Name, "err", advice(err), "retry_at", w.retryAt.UTC().Format(time.RFC3339))
			w.lastClass = class
		}
		w.lastErr = err.Error()
	})
}

func (v *Visitors) succeed(w *walk, snap *Snapshot) {
	v.cfg.Status.Succeeded(w.project, SourceVisitors, w.window.Name, snap.Completed, snap.Duration)
	v.settle(w, func() {
		if w.lastErr != "" {
			level.Info(v.logger).Log("msg", "visitors refresh succeeded again", "project", w.project, "window", w.window.Name)
		}
		w.snap, w.failures, w.lastErr, w.lastClass, w.deferred, w.retryAt = snap, 0, "", "", "", time.Time{}
		v.rateLimits = 0
		level.Debug(v.logger).Log("msg", "visitors refreshed", "project", w.project, "window", w.window.Name,
			"range", snap.Range.String(), "pages", snap.Pages, "paths", snap.Returned, "exported", len(snap.Rows),
			"duration", snap.Duration)
		v.replanLocked()
		v.publishLocked()
	})
	if v.cfg.OnSnapshot != nil {
		v.cfg.OnSnapshot()
	}
}

// replanLocked recomputes the refresh interval from the last known page
// counts and logs when the budget stretches it.
func (v *Visitors) replanLocked() {
	pages := make([]int, len(v.walks))
	for i, w := range v.walks {
		if w.snap != nil {
			pages[i] = w.snap.Pages
		}
	}
	p := PlanInterval(pages, v.cfg.Budget.PerHour(), v.cfg.MinInterval)
	if p.Interval != v.plan.Interval && p.Stretched {
		level.Info(v.logger).Log("msg", "refresh interval stretched to fit the analytics request budget",
			"interval", p.Interval, "min_interval", v.cfg.MinInterval, "walks", len(v.walks),
			"requests_per_round", p.PagesPerRound, "requests_per_hour", v.cfg.Budget.PerHour())
	}
	v.plan = p
	for _, w := range v.walks {
		v.cfg.Status.SetInterval(w.project, SourceVisitors, w.window.Name, p.Interval)
	}
}

// publishLocked swaps in a new exposition of the current snapshots.
func (v *Visitors) publishLocked() {
	var snaps []*Snapshot
	for _, w := range v.walks {
		if w.snap != nil {
			snaps = append(snaps, w.snap)
		}
	}
	v.expo.Store(newExposition(snaps))
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

// Describe implements prometheus.Collector.
func (v *Visitors) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range visitorsDescs {
		ch <- d
	}
}

var visitorsDescs = func() [numFamilies]*prometheus.Desc {
	var d [numFamilies]*prometheus.Desc
	for i, f := range visitorsFamilies {
		d[i] = prometheus.NewDesc(f.name, f.help, f.labels, nil)
	}
	return d
}()

// Collect implements prometheus.Collector from the current snapshots. The
// scrape handler's fast path serves the pre-rendered Exposition instead;
// both carry the same series.
func (v *Visitors) Collect(ch chan<- prometheus.Metric) {
	g := prometheus.GaugeValue
	for _, s := range v.Snapshots() {
		p, w := s.Project, s.Window
		ch <- prometheus.MustNewConstMetric(visitorsDescs[famVisitors], g, float64(s.Totals.Human), p, w, "human")
		ch <- prometheus.MustNewConstMetric(visitorsDescs[famVisitors], g, float64(s.Totals.AI), p, w, "ai")
		ch <- prometheus.MustNewConstMetric(visitorsDescs[famVisitorsDedup], g, float64(s.Totals.Total), p, w)
		ch <- prometheus.MustNewConstMetric(visitorsDescs[famPaths], g, float64(s.Returned), p, w)
		ch <- prometheus.MustNewConstMetric(visitorsDescs[famPathsExported], g, float64(len(s.Rows)), p, w)
		for _, r := range s.Rows {
			ch <- prometheus.MustNewConstMetric(visitorsDescs[famPageVisitors], g, float64(r.Human), p, w, r.Path, "human")
			ch <- prometheus.MustNewConstMetric(visitorsDescs[famPageVisitors], g, float64(r.AI), p, w, r.Path, "ai")
			ch <- prometheus.MustNewConstMetric(visitorsDescs[famPageVisitorsDedup], g, float64(r.Total), p, w, r.Path)
		}
	}
}
