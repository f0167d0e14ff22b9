// Package exporter assembles and serves the exporter from one validated
// Config: the API client and its budget, the sources on the engine, the
// event-stream source, the job watcher, the webhook, the cache file and the
// HTTP endpoints.
package exporter

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	versioncollector "github.com/prometheus/client_golang/prometheus/collectors/version"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/derived"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/health"
	"github.com/mintlify-exporter/mintlify_exporter/internal/progname"
	"github.com/mintlify-exporter/mintlify_exporter/jobs"
	"github.com/mintlify-exporter/mintlify_exporter/landingpage"
	"github.com/mintlify-exporter/mintlify_exporter/metricshandler"
	"github.com/mintlify-exporter/mintlify_exporter/remediation"
	"github.com/mintlify-exporter/mintlify_exporter/statefile"
	"github.com/mintlify-exporter/mintlify_exporter/stream"
)

// Config is the whole configuration of a running exporter; the command
// line validates it, naming the flag at fault.
type Config struct {
	// The upstream API.
	APIURL    string
	Key       client.KeySource
	Timeout   time.Duration
	UserAgent string
	Projects  []string
	// RequestsPerHour is the analytics budget of all sources, projects and windows.
	RequestsPerHour int

	// Collectors names the enabled analytics sources (collector.Sources).
	Collectors      []string
	Windows         []engine.Window
	RefreshInterval time.Duration
	// Sources configures the sources' walks; zero fields take the defaults.
	Sources collector.Options
	// DeriveWindows derives additive sources' windows from a day store
	// (package derived).
	DeriveWindows bool

	Jobs JobsConfig
	// Stream configures the event-stream source; nil turns it off.
	Stream *StreamConfig
	// Remediation configures the Alertmanager webhook (its ConfigPath, Token,
	// BasicAuth and LedgerPath; New sets the rest); nil turns it off.
	Remediation *remediation.Options

	// CacheFile is --cache.file ("" disables it).
	CacheFile string
	// TelemetryPath is where metrics are served; MaxRequests bounds
	// concurrent scrapes (0: no limit).
	TelemetryPath string
	MaxRequests   int

	// Version, Notes (the demo banner) and Examples (commands to try) are
	// shown on the landing page.
	Version  string
	Notes    []string
	Examples []string
	Logger   log.Logger
}

// JobsConfig configures the agent job watcher: its IDs, File, Discover and
// PollInterval; New sets the rest.
type JobsConfig struct {
	Enabled bool
	jobs.Config
}

// Exporter is a running exporter.
type Exporter struct {
	handler http.Handler
	engine  *engine.Engine
	saver   *statefile.Saver
	journal *statefile.Journal
	lock    *statefile.FileLock // of the cache file, nil without one
	stream  *stream.Source      // nil when off
	cancel  context.CancelFunc
	running sync.WaitGroup // the stream's poller and the job watcher
	logger  log.Logger

	live    *prometheus.Registry
	budget  *budget.Budget
	client  *client.Client
	status  *health.Status
	watcher *jobs.Watcher           // nil when off
	webhook *remediation.Remediator // nil when off
	saved   *statefile.File         // the cache file read at start, nil without one
}

// New builds and starts the exporter: the first refresh of every unit
// starts now (unless the cache file holds data not yet due). Call Close to
// stop it.
func New(cfg Config) (*Exporter, error) {
	cfg.Logger = cmp.Or(cfg.Logger, log.NewNopLogger())
	cfg.TelemetryPath = cmp.Or(cfg.TelemetryPath, "/metrics")
	ctx, cancel := context.WithCancel(context.Background())
	x := &Exporter{cancel: cancel, logger: cfg.Logger}
	err := x.analytics(cfg)
	if err == nil && cfg.Stream != nil {
		err = x.buildStream(ctx, cfg)
	}
	if err == nil {
		err = x.agents(cfg)
	}
	if err != nil {
		x.Close()
		return nil, err
	}
	routes := x.routes(cfg)
	x.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rctx, cancel := context.WithTimeout(r.Context(), RequestTimeout)
		defer cancel()
		routes.ServeHTTP(w, r.WithContext(rctx))
	})
	if x.engine != nil {
		x.engine.Start()
	}
	if x.stream != nil {
		x.running.Go(func() { x.stream.Run(ctx) })
	}
	if x.watcher != nil {
		x.running.Go(func() { x.watcher.Run(ctx) })
	}
	return x, nil
}

// analytics builds the budget, the API client, the live registry and the
// engine (nil when every source is off), not started.
func (x *Exporter) analytics(cfg Config) error {
	x.status, x.budget = health.NewStatus(), budget.New(cfg.RequestsPerHour, time.Now)
	x.live = prometheus.NewRegistry()
	if cfg.CacheFile != "" {
		if err := x.openJournal(cfg); err != nil {
			return err
		}
	}
	observeAPI := health.ObserveAPI(x.live)
	// The event stream alone (no analytics source, job watcher or webhook) needs no API key.
	if cfg.Key != nil || cfg.Stream == nil || len(cfg.Collectors) > 0 || cfg.Jobs.Enabled || cfg.Remediation != nil {
		var err error
		x.client, err = client.New(client.Config{
			BaseURL: cfg.APIURL, Key: cfg.Key, Timeout: cfg.Timeout, UserAgent: cfg.UserAgent,
			Hooks: client.Hooks{Allow: x.budget.Allow, Observe: observeAPI, Unsent: x.budget.Unsent},
		})
		if err != nil {
			return err
		}
	}
	x.live.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		versioncollector.NewCollector(progname.Name),
		x.budget,
	)
	if cfg.Stream == nil { // else the stream's syncedStatus
		x.live.MustRegister(x.status)
	}
	if fk, ok := cfg.Key.(*client.FileKey); ok {
		x.live.MustRegister(collector.KeyFile(fk)...)
		fk.Notify(func(err error) { // a changed key file that cannot be used, and the recovery
			if err != nil {
				level.Error(cfg.Logger).Log("msg", "the API key file changed but cannot be used; the previous key stays in use until it expires (mintlify_api_key_file_ok is 0)", "err", err)
				return
			}
			level.Info(cfg.Logger).Log("msg", "the API key file is usable again; its key is in use", "file", fk.Path())
		})
	}
	sources, err := collector.Build(cfg.Collectors, x.client, cfg.Sources)
	if err != nil || len(sources) == 0 && cfg.Stream == nil {
		return err
	}
	// The saver exists before the engine and the stream that report their
	// changes to it; it asks them for their state only after a change, once
	// started. Without the stream it keeps the stream's section on disk.
	x.saved = statefile.LoadFile(cfg.CacheFile, cfg.Logger)
	var restore *engine.State
	var days []derived.Day
	var saverParts statefile.Parts
	if x.saved != nil {
		restore, days, saverParts.Kept = &x.saved.State, x.saved.Days, x.saved.Stream
	}
	var layer engine.Layer
	if len(sources) > 0 {
		saverParts.Engine = func() engine.State { return x.engine.State() }
		if cfg.DeriveWindows {
			dl := derived.New(derived.Config{Logger: cfg.Logger, Days: days})
			saverParts.Days, layer = dl.Days, dl
			x.live.MustRegister(dl)
		}
	}
	if cfg.Stream != nil {
		saverParts.Stream = x.streamSnapshot
	}
	x.saver = statefile.NewPartsSaver(cfg.CacheFile, saverParts, cfg.Logger)
	if len(sources) == 0 {
		return nil
	}
	omit := omitForStream(cfg.Stream)
	x.engine, err = engine.New(engine.Config{
		Sources: sources, Projects: cfg.Projects, Windows: cfg.Windows,
		MinInterval: cfg.RefreshInterval, Budget: x.budget, Status: x.status, Logger: cfg.Logger,
		Layer:    layer,
		Restore:  restore,
		OnChange: x.saver.Changed,
		Omit:     omit,
	})
	if err != nil {
		return err
	}
	if omit != nil {
		level.Info(cfg.Logger).Log("msg", "the event stream replaces these REST sources for the projects it maps; their requests go to the others (--stream.keep-rest keeps them)",
			"sources", strings.Join(StreamReplaces, ","), "projects", strings.Join(slices.Compact(slices.Sorted(maps.Values(cfg.Stream.Projects))), ","))
	}
	x.live.MustRegister(x.engine.LiveCollectors()...)
	return nil
}

// openJournal restores the budget from its journal beside the cache file,
// so that a crash loop cannot exceed the budget.
func (x *Exporter) openJournal(cfg Config) error {
	// The lock comes first: the temporary files and the journal may be
	// another exporter's.
	lock, err := statefile.Lock(cfg.CacheFile)
	if err != nil {
		return fmt.Errorf("--cache.file=%s: %w", cfg.CacheFile, err)
	}
	x.lock = lock
	statefile.CleanTemp(cfg.CacheFile, "", cfg.Logger)
	j, st, err := statefile.OpenJournal(cfg.CacheFile+statefile.JournalSuffix, time.Now)
	if err != nil {
		return fmt.Errorf("--cache.file: %w", err)
	}
	if st.Skipped > 0 {
		level.Warn(cfg.Logger).Log("msg", "skipped unreadable lines of the budget journal (a save interrupted by a crash)", "lines", st.Skipped)
	}
	budget.LogRestored(cfg.Logger, "budget journal", x.budget.Restore(st.Sent, st.PausedUntil))
	j.Held = lock.Held
	x.budget.Record(j)
	x.journal = j
	if until := x.budget.PausedUntil(); !until.IsZero() {
		level.Warn(cfg.Logger).Log("msg", "analytics requests stay paused after a 429 answered before the restart", "resume_at", until.UTC().Format(time.RFC3339))
	}
	level.Debug(cfg.Logger).Log("msg", "read the budget journal", "file", cfg.CacheFile+statefile.JournalSuffix, "requests_last_hour", x.budget.Used())
	return nil
}

// agents builds the job watcher and the webhook, not started.
func (x *Exporter) agents(cfg Config) error {
	if !cfg.Jobs.Enabled && cfg.Remediation == nil {
		return nil
	}
	jc := cfg.Jobs.Config
	jc.Client, jc.Projects, jc.Added, jc.Status, jc.Logger = x.client, cfg.Projects, cfg.Remediation != nil, x.status, cfg.Logger
	w, err := jobs.New(jc)
	if err != nil {
		return err
	}
	x.watcher = w
	x.live.MustRegister(w)
	if cfg.Remediation == nil {
		return nil
	}
	o := *cfg.Remediation
	o.Projects, o.API, o.Jobs, o.Logger, o.Timeout = cfg.Projects, x.client, w, cfg.Logger, cfg.Timeout
	x.webhook, err = remediation.New(o)
	if err != nil {
		return fmt.Errorf("--remediation.config: %w", err)
	}
	x.live.MustRegister(x.webhook)
	return nil
}

func (x *Exporter) routes(cfg Config) http.Handler {
	mux := http.NewServeMux()
	mcfg := metricshandler.Config{Live: x.live, MaxRequests: cfg.MaxRequests, Instrument: x.live, Logger: cfg.Logger}
	state := landingpage.Config{Version: cfg.Version, TelemetryPath: cfg.TelemetryPath, Examples: cfg.Examples, Notes: cfg.Notes,
		Units: func() []engine.UnitState { return nil }, BudgetRemaining: x.budget.Remaining, BudgetPerHour: x.budget.PerHour()}
	if eng := x.engine; eng != nil {
		mcfg.Cached = eng // not a nil *engine.Engine in the interface
		state.Units, state.Reserve = eng.States, eng.Reserve
	}
	if x.watcher != nil {
		state.Jobs, state.JobsDescribe = x.watcher.Jobs, describeJobs(cfg)
	}
	if x.stream != nil {
		state.Stream, state.StreamPoll = streamView(x.stream, cfg.Stream), cfg.Stream.PollInterval
	}
	mux.Handle(cfg.TelemetryPath, metricshandler.New(mcfg))
	if x.webhook != nil {
		mux.Handle(remediation.Path, x.webhook)
		state.Remediation = x.webhook.Rows
	} else {
		// Not the landing page: an Alertmanager pointed here would take
		// its 200 for a delivery.
		mux.HandleFunc(remediation.Path, func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "the remediation webhook is off: start the exporter with --remediation.config (docs/remediation.md)", http.StatusNotFound)
		})
	}
	mux.HandleFunc("/-/healthy", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "Healthy")
	})
	mux.HandleFunc("/-/ready", func(w http.ResponseWriter, r *http.Request) {
		if x.engine != nil && !x.engine.Ready() {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "Not ready: the first refresh of some unit (source, project and window) is still to be tried; see the landing page")
			return
		}
		fmt.Fprintln(w, "Ready")
	})
	if cfg.TelemetryPath != "/" {
		mux.Handle("/", landingpage.New(state))
	}
	return mux
}

// describeJobs says what the job watcher watches, for the landing page.
func describeJobs(cfg Config) string {
	var parts []string
	if cfg.Jobs.Enabled {
		parts = append(parts, fmt.Sprintf("%d job id(s)", len(cfg.Jobs.IDs)))
		if cfg.Jobs.File != "" {
			parts = append(parts, "the ids in "+cfg.Jobs.File)
		}
		if cfg.Jobs.Discover {
			parts = append(parts, "the jobs the API lists (discovery)")
		}
	}
	if cfg.Remediation != nil {
		parts = append(parts, "the jobs the remediation webhook creates")
	}
	return fmt.Sprintf("Watching %s; active jobs are read every %s.", strings.Join(parts, ", "), cfg.Jobs.PollInterval)
}

// CheckTelemetryPath reports why p cannot be the path of the metrics: it
// must be a clean absolute URL path, not another endpoint's.
func CheckTelemetryPath(p string) error {
	if !strings.HasPrefix(p, "/") {
		return errors.New("must start with a slash, such as /metrics")
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~!$&'()*+,;=:@/", r)) {
			return fmt.Errorf("holds %q: use letters, digits and -._~/ only", r)
		}
	}
	if path.Clean(p) != p {
		return fmt.Errorf("is not a clean path (want %s)", path.Clean(p))
	}
	if len(p) > 1000 {
		return errors.New("is longer than 1000 characters")
	}
	if slices.Contains([]string{"/-/healthy", "/-/ready", remediation.Path}, p) {
		return fmt.Errorf("is the exporter's %s endpoint; choose another path, such as /metrics", p)
	}
	return nil
}

// Close stops the refreshes, the stream's poller and the job watcher and
// saves the cache file.
func (x *Exporter) Close() {
	x.cancel()
	x.running.Wait()
	if x.engine != nil {
		x.engine.Close()
	}
	if x.engine != nil || x.stream != nil {
		x.saver.Close()
	}
	x.journal.Close()
	x.lock.Unlock()
}
