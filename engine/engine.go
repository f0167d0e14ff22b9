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

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/exposition"
	"github.com/mintlify-exporter/mintlify_exporter/health"
	"github.com/mintlify-exporter/mintlify_exporter/internal/errstate"
)

// Config configures an Engine.
type Config struct {
	Sources  []Source
	Projects []string
	Windows  []Window
	// MinInterval is --analytics.refresh-interval: the least age of data refreshed.
	MinInterval time.Duration
	// Budget is the analytics request ledger, also the client's Allow hook.
	Budget *budget.Budget
	Status *health.Status
	Logger log.Logger
	Now    func() time.Time // time.Now when nil
	// WaitUntil returns once the clock reads t, or with ctx's error; nil
	// waits on real timers. Tests on a manual clock pass their own.
	WaitUntil func(ctx context.Context, t time.Time) error
	// Restore is persisted state to start from.
	Restore *State
	// OnChange is called after data changed, unlocked (to save the state).
	OnChange func()
	// Layer, when set, serves some units from others' data (layer.go).
	Layer Layer
	// Omit names the (source, project) pairs that get no unit: another data
	// path (the event stream) measures them, so their requests go to the rest.
	Omit func(source, project string) bool
}

// Engine refreshes every unit by the scheduling rule and serves the results as one
// pre-rendered exposition. See the package documentation.
type Engine struct {
	cfg       Config
	logger    log.Logger
	sources   []sourceInfo
	units     []*unit // in source, project, window order
	byUnit    map[Unit]*unit
	skipped   *prometheus.CounterVec
	ctx       context.Context
	cancel    context.CancelFunc
	done      chan struct{} // closed when the worker has ended
	startOnce sync.Once

	// sleep guards the worker's wake-up: wakeUp ends its sleep, touched
	// asks it to look again before it sleeps.
	sleep   sync.Mutex
	wakeUp  context.CancelFunc
	touched bool

	mu         sync.Mutex
	rateLimits int // 429 answers since the last successful refresh
	// firstRoundLogged and allDataLogged keep two log lines to one each.
	firstRoundLogged, allDataLogged bool
	skipLogged                      map[string]bool
	// reads are the units of the layer's fixed-range reads; notes the
	// refreshes it is still to be told of.
	reads map[readKey]*unit
	notes []note
	// connErrs logs a connection failure once per kind for the engine.
	connErrs errstate.State

	expo atomic.Pointer[exposition.Exposition]
	// live is what scrape-time collectors export, so a scrape takes no lock.
	live atomic.Pointer[[]liveCount]
}

// sourceInfo is a source with its families' descriptions.
type sourceInfo struct {
	src      Source
	families []Family
	headers  []exposition.Chunk
	descs    []*prometheus.Desc
	group    string // its CostGroup, "" when none
	splits   bool   // a Splitter that splits its windows
}

// unit is the refresh state of one unit; guarded by Engine.mu.
type unit struct {
	Unit
	src  int // index in Engine.sources
	snap *snapshot
	// interval is mintlify_refresh_interval_seconds, set once per refresh (for
	// the data at intervalFrom), so that data no longer refreshed outgrows it.
	interval     time.Duration
	intervalFrom time.Time
	inFlight     bool // the worker is sending a request of its job
	job          *job // its fetch in progress
	// For a Splitter's window: totals is a page walk's totals unit, pages
	// a totals unit's page walk.
	totals, pages *unit
	rank          string // its place in the rule's order, "" when not eligible
	attempted     bool   // a refresh ended, here or before a restart
	retryAt       time.Time
	failures      int
	lastErr       string
	// errs logs a failure when its errorClass changes, and the recovery.
	errs errstate.State
	// waitAt is when the eligible unit should start; waitWhy: "budget" or "paused".
	waitAt  time.Time
	waitWhy string
	// dueAt is when the rule expects the next refresh of an ok unit not
	// eligible yet: its eligibility, later when the hour is full or units
	// worth more fill it.
	dueAt time.Time
	gap   time.Duration // the longest the rule expects between two of its starts
	// fixed is set on a Layer's Read, a unit not in Engine.units.
	fixed *fixedRange
}

// fixedRange is what a unit of a fixed date range reads (Read).
type fixedRange struct {
	rng    client.DateRange
	worth  float64   // its data's worth under the rule
	totals bool      // first among equals
	at     time.Time // not before
	of     *unit     // the unit whose source reads it, and whose cost it has
	done   func(res *Result, err error, now time.Time)
}

// rangeAt is the range u reads at now: its window's, or its fixed range.
func (u *unit) rangeAt(now time.Time) client.DateRange {
	if u.fixed != nil {
		return u.fixed.rng
	}
	return u.Window.Range(now)
}

// snapshot is the immutable result of one successful refresh, rendered.
type snapshot struct {
	rng       client.DateRange
	res       *Result
	completed time.Time
	duration  time.Duration
	rendered  []exposition.Chunk // one per family of the source
	served    bool               // by the Layer
}

// data is the snapshot as Data.
func (s *snapshot) data() Data { return Data{Range: s.rng, Result: s.res, Completed: s.completed} }

// failureBackoffBase is the first retry wait, doubled per further failure.
const failureBackoffBase = 30 * time.Second

// New returns an engine with its restored data, if any. Start starts it.
func New(cfg Config) (*Engine, error) {
	switch {
	case cfg.Budget == nil || cfg.Status == nil:
		return nil, errors.New("engine: Budget and Status are required")
	case len(cfg.Sources) == 0 || len(cfg.Projects) == 0 || len(cfg.Windows) == 0:
		return nil, errors.New("engine: at least one source, project and window are required")
	case cfg.MinInterval <= 0:
		return nil, errors.New("engine: the refresh interval must be positive")
	}
	if cfg.Logger == nil {
		cfg.Logger = log.NewNopLogger()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.OnChange == nil {
		cfg.OnChange = func() {}
	}
	e := &Engine{
		cfg: cfg, logger: cfg.Logger,
		done:       make(chan struct{}),
		skipLogged: map[string]bool{},
		byUnit:     map[Unit]*unit{},
		skipped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mintlify_rows_skipped_total", Help: "Malformed rows of API answers skipped, by source and reason.",
		}, []string{"source", "reason"}),
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	names := map[string]bool{} // of every source's families
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
		e.addUnits(si, info)
		// Every reason is exported from the start, at 0, so that rate()
		// and increase() see the first skipped row.
		for _, reason := range client.SkipReasons {
			e.skipped.WithLabelValues(s.Name(), reason)
		}
	}
	if len(e.units) == 0 {
		return nil, errors.New("engine: no source supports any of the windows")
	}
	e.mu.Lock()
	if cfg.Restore != nil {
		e.restoreLocked(cfg.Restore)
	}
	e.publishLocked()
	e.changedLocked()
	e.mu.Unlock()
	if cfg.Layer != nil {
		cfg.Layer.Attach(e)
	}
	return e, nil
}

// addUnits adds source si's units: one per project and window it supports,
// a window of a source that splits it as a totals unit and a page walk.
func (e *Engine) addUnits(si int, info sourceInfo) {
	s := info.src
	seen := map[string]bool{}
	add := func(u *unit) {
		e.units = append(e.units, u)
		e.byUnit[u.Unit] = u
		e.cfg.Status.Track(u.Project, u.Source, u.Window.Name, e.statusPart(u))
		e.cfg.Status.SetInterval(u.Project, u.Source, u.Window.Name, e.statusPart(u), u.interval)
	}
	for _, p := range e.cfg.Projects {
		for _, w := range e.cfg.Windows {
			k := p + "\x00" + w.Name
			if seen[k] || !s.Supports(w) || e.cfg.Omit != nil && e.cfg.Omit(s.Name(), p) {
				continue
			}
			seen[k] = true
			u := &unit{Unit: Unit{Source: s.Name(), Project: p, Window: w}, src: si, interval: e.cfg.MinInterval}
			if info.splits && !w.Site {
				t := &unit{Unit: u.Unit, src: si, pages: u, interval: e.cfg.MinInterval}
				t.Window.Site = true
				u.totals = t
				add(t)
			}
			add(u)
		}
	}
}

// statusPart is u's part label (health.PartAll, ...): a source that splits
// its windows has a totals and a pages unit.
func (e *Engine) statusPart(u *unit) string {
	switch {
	case !e.sources[u.src].splits:
		return health.PartAll
	case u.Window.Site:
		return health.PartTotals
	}
	return health.PartPages
}

// Start starts the worker, which refreshes every unit when it falls due,
// whether or not anything scrapes. Call Close to stop it.
func (e *Engine) Start() {
	e.startOnce.Do(func() { go e.work() })
}

// Close cancels the refresh in flight and waits for the worker to end.
func (e *Engine) Close() {
	e.cancel()
	e.startOnce.Do(func() { close(e.done) }) // never started
	<-e.done
}

// Exposition returns the current pre-rendered exposition.
func (e *Engine) Exposition() *exposition.Exposition { return e.expo.Load() }
