package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine/budget"
	"github.com/mintlify-exporter/mintlify_exporter/engine/exposition"
	"github.com/mintlify-exporter/mintlify_exporter/engine/health"
	"github.com/mintlify-exporter/mintlify_exporter/internal/backoff"
	"github.com/mintlify-exporter/mintlify_exporter/internal/errstate"
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
	Budget *budget.Budget
	// Status exports each source's health per project.
	Status *health.Status
	Logger log.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// WaitUntil is the worker's timer: it returns once the clock reads t,
	// or with ctx's error when ctx ends first. Nil waits on real timers;
	// tests on a manual clock pass one that their clock releases.
	WaitUntil func(ctx context.Context, t time.Time) error
	// Planner plans each unit's refresh interval; PlanWeighted when nil.
	Planner Planner
	// Restore, when set, is persisted state to start from: units whose
	// restored data is not yet due are not refreshed at start-up.
	Restore *State
	// OnChange, when set, is called after a unit's data changed, outside
	// the engine's locks (for example to schedule saving the state).
	OnChange func()
	// DeriveWindows derives the windows of additive sources (Summer) from a
	// day store of closed days and today's 1d unit (see derive.go).
	DeriveWindows bool
}

// Engine refreshes every unit of every source from the API on its own
// timer and serves the results as one pre-rendered exposition. See the
// package documentation.
type Engine struct {
	cfg       Config
	now       func() time.Time
	logger    log.Logger
	sources   []sourceInfo
	units     []*unit // in source, project, window order
	skipped   *prometheus.CounterVec
	wake      chan struct{} // asks the worker to look at the units again
	ctx       context.Context
	cancel    context.CancelFunc
	done      chan struct{} // closed when the worker has ended
	startOnce sync.Once

	mu      sync.Mutex
	started bool
	// sleeping is set while the worker sleeps; pokes counts wake-ups and
	// pokesSeen those the worker had when it last looked at the units
	// (see Idle).
	sleeping, working bool
	wakeAt            time.Time // when the sleeping worker's timer fires; zero for never
	pokes, pokesSeen  uint64
	// rateLimits counts 429 answers since the last successful refresh.
	rateLimits int
	changed    chan struct{} // closed and replaced whenever a unit changes state
	plan       planSummary   // the plan last logged
	// firstRoundLogged and allDataLogged keep the first round's two log
	// lines (it does not fit the hour; every unit has data) to one each.
	firstRoundLogged, allDataLogged bool
	skipLogged                      map[string]bool
	// days is the day store of derived windows; dayRetryAt holds day
	// reads back after one failed.
	days       map[dayKey]*dayEntry
	dayRetryAt time.Time
	// dayJobs are the day store's reads in progress; spareSent holds when
	// each request of a spare one went (the last hour only).
	dayJobs    []*job
	spareSent  []time.Time
	dayChanges *prometheus.CounterVec
	// connErrs says when a failure to connect to the API is logged: once
	// per kind for the whole engine.
	connErrs errstate.State

	expo atomic.Pointer[exposition.Exposition]
	// live is what the scrape-time collectors export, taken at each
	// change: a scrape takes no lock of the engine's.
	live atomic.Pointer[liveState]
}

// sourceInfo is a source with its families' descriptions.
type sourceInfo struct {
	src      Source
	families []Family
	headers  []exposition.Chunk
	descs    []*prometheus.Desc
	// group is the source's CostGroup, "" when it has none.
	group string
	// splits is set for a Splitter that splits its windows.
	splits bool
}

// unit is the refresh state of one unit; guarded by Engine.mu.
type unit struct {
	Unit
	src      int // index in Engine.sources
	snap     *snapshot
	interval time.Duration
	inFlight bool // the worker is sending a request of its job
	due      bool // fell due; stays so until its refresh starts
	// job is its fetch in progress (a walk that yields between pages), nil
	// when none.
	job *job
	// For a source that splits its windows (Splitter): totals is a page
	// walk's totals unit, pages a totals unit's page walk; both nil for a
	// unit that is the whole window.
	totals, pages *unit
	// rank says where the unit stands in the value order, for the landing
	// page; "" when it is not due.
	rank string
	// attempted is set once a refresh of the unit ended, in success or
	// failure, in this process or a previous one (restored data).
	attempted bool
	retryAt   time.Time
	failures  int
	lastErr   string
	// errs says when a failure is logged: when its errorClass differs from
	// the last one's, and the recovery.
	errs errstate.State
	// waitAt, when set, is when the unit, due now, is expected to start: it
	// waits for room in the request budget or for a rate-limit pause to
	// end. waitWhy says which, for the landing page.
	waitAt  time.Time
	waitWhy string
	// Derived windows: base is the 1d unit a derivable window sums with its
	// closed days (nil when it is not derivable); derived is set while its
	// data is that sum; auditAt is its last audit and drift what it found;
	// fallback says why it is read directly again.
	base     *unit
	derived  bool
	auditAt  time.Time
	drift    float64
	audited  bool
	fallback string
}

// snapshot is the immutable result of one successful refresh of a unit,
// with its families rendered.
type snapshot struct {
	rng       client.DateRange
	res       *Result
	completed time.Time
	duration  time.Duration
	rendered  []exposition.Chunk // one per family of the source
	// derived is set when the data is the sum of the day store's days and
	// today's 1d unit.
	derived bool
}

// failureBackoffBase is the wait before a failed unit is refreshed again;
// it doubles for each further failure, up to the unit's interval.
const failureBackoffBase = 30 * time.Second

// rateLimitBackoff is the pause of every analytics request after a 429
// without Retry-After, for each further 429 until a refresh succeeds
// (package backoff compares it with the others).
var rateLimitBackoff = backoff.AnalyticsRateLimit

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
		days:       map[dayKey]*dayEntry{},
		dayChanges: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mintlify_derived_day_changes_total",
			Help: "Closed days of derived windows whose second read, a day after the day ended, changed the site-wide figure (events counted late).",
		}, []string{"source"}),
		skipped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mintlify_rows_skipped_total", Help: skippedHelp,
		}, []string{"source", "reason"}),
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	names := map[string]bool{}
	for si, s := range cfg.Sources {
		info := sourceInfo{src: s, families: s.Families()}
		if g, ok := s.(CostGrouper); ok {
			info.group = g.CostGroup()
		}
		if sp, ok := s.(Splitter); ok {
			info.splits = sp.SplitsTotals()
		}
		for _, f := range info.families {
			if names[f.Name] || len(f.Labels) > MaxLabels {
				return nil, fmt.Errorf("engine: source %s: family %s is declared twice or has more than %d labels", s.Name(), f.Name, MaxLabels)
			}
			names[f.Name] = true
			info.headers = append(info.headers, exposition.Header(f.Name, f.Help))
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
				u := &unit{Unit: Unit{Source: s.Name(), Project: p, Window: w}, src: si}
				if info.splits && !w.Site {
					site := w
					site.Site = true
					t := &unit{Unit: Unit{Source: s.Name(), Project: p, Window: site}, src: si, pages: u}
					u.totals = t
					e.units = append(e.units, t)
					cfg.Status.Track(p, s.Name(), site.String())
				}
				e.units = append(e.units, u)
				cfg.Status.Track(p, s.Name(), w.String())
			}
		}
		// Every reason is exported from the start, at 0, so that rate()
		// and increase() see the first skipped row.
		for _, reason := range client.SkipReasons {
			e.skipped.WithLabelValues(s.Name(), reason)
		}
	}
	if len(e.units) == 0 {
		return nil, errors.New("engine: no source supports any of the windows")
	}
	e.linkDerivable()
	e.expo.Store(&exposition.Exposition{})
	e.mu.Lock()
	if cfg.Restore != nil {
		e.restoreLocked(cfg.Restore)
	}
	e.replanLocked()
	e.publishLocked()
	e.live.Store(e.liveLocked())
	e.mu.Unlock()
	return e, nil
}

// Start starts the worker: every unit without restored data that is still
// current is refreshed at once, cheapest first, and every unit again when
// it falls due, whether or not anything scrapes. Call Close to stop it.
func (e *Engine) Start() {
	e.startOnce.Do(func() {
		e.mu.Lock()
		e.started = true
		e.mu.Unlock()
		go e.work()
	})
}

// Close cancels the refresh in flight and waits for the worker to end.
func (e *Engine) Close() {
	e.cancel()
	e.startOnce.Do(func() { close(e.done) }) // never started
	<-e.done
}

// Exposition returns the current pre-rendered exposition.
func (e *Engine) Exposition() *exposition.Exposition { return e.expo.Load() }
