// Command mintlify_exporter is a Prometheus exporter for Mintlify's REST
// API: unique visitors per site and per page, split into human and AI
// traffic, and the status of agent jobs. Its "agent" subcommands send a
// follow-up message to an agent job and read a job.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	versioncollector "github.com/prometheus/client_golang/prometheus/collectors/version"
	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/prometheus/exporter-toolkit/web/kingpinflag"

	"github.com/mintlify-exporter/mintlify_exporter/agentcmd"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/demo"
	"github.com/mintlify-exporter/mintlify_exporter/landingpage"
	"github.com/mintlify-exporter/mintlify_exporter/logging"
	"github.com/mintlify-exporter/mintlify_exporter/metricshandler"
	"github.com/mintlify-exporter/mintlify_exporter/statefile"
)

const (
	exporterName   = "mintlify_exporter"
	defaultAddress = ":9863"
	// shutdownGrace bounds how long in-flight scrapes may take on SIGTERM.
	shutdownGrace = 4 * time.Second
)

// flags holds every command-line flag.
type flags struct {
	web              *web.FlagConfig
	telemetryPath    string
	maxRequests      int
	apiURL           string
	apiKeyFile       string
	projectIDs       []string
	timeout          time.Duration
	requestsPerHour  int
	windows          []string
	refreshInterval  time.Duration
	pageSize         int
	maxPaths         int
	pathInclude      string
	pathExclude      string
	jobsEnabled      bool
	jobIDs           []string
	jobsFile         string
	jobsDiscover     bool
	jobsPollInterval time.Duration
	cacheFile        string
	logLevel         string
	logFormat        string
	demo             bool
}

func newApp(f *flags) (*kingpin.Application, *agentcmd.Command) {
	app := kingpin.New(exporterName, "Prometheus exporter for Mintlify: unique visitors (human and AI) per site and page, and agent job status.")
	app.Version(version.Print(exporterName))
	app.HelpFlag.Short('h')
	app.UsageWriter(os.Stdout)

	f.web = kingpinflag.AddFlags(app, defaultAddress)
	app.Flag("web.telemetry-path", "Path under which to expose metrics.").Default("/metrics").StringVar(&f.telemetryPath)
	app.Flag("web.max-requests", "Maximum number of concurrent scrape requests; the excess is answered 503. 0 means no limit.").Default("40").IntVar(&f.maxRequests)

	app.Flag("mintlify.api-url", "Base address of the Mintlify API.").Default(client.DefaultBaseURL).StringVar(&f.apiURL)
	app.Flag("mintlify.api-key-file", "File holding the admin API key (re-read when it changes). Without it the key is read from the MINTLIFY_API_KEY environment variable.").PlaceHolder("FILE").StringVar(&f.apiKeyFile)
	app.Flag("mintlify.project-id", "Project to export; repeat for every project of the organization. Default: MINTLIFY_PROJECT_ID (comma-separated).").PlaceHolder("ID").StringsVar(&f.projectIDs)
	app.Flag("mintlify.timeout", "Timeout of each request to the API.").Default("30s").DurationVar(&f.timeout)
	app.Flag("mintlify.requests-per-hour", "Analytics requests the exporter may send per sliding hour, shared by all projects and windows (the API allows 100 per organization).").Default("90").IntVar(&f.requestsPerHour)

	app.Flag("visitors.window", "Window of unique visitors to export, as N days ending today (UTC); repeatable.").Default("1d", "7d", "30d").StringsVar(&f.windows)
	app.Flag("visitors.refresh-interval", "Shortest time between two refreshes of a window; the request budget may stretch it.").Default("15m").DurationVar(&f.refreshInterval)
	app.Flag("visitors.page-size", "Rows requested per page (the API's limit, 1 to 250).").Default("250").IntVar(&f.pageSize)
	app.Flag("visitors.max-paths", "Per project and window, export only the top N paths by deduplicated visitors; 0 exports all.").Default("5000").IntVar(&f.maxPaths)
	app.Flag("visitors.path-include", "Export only paths matching this Go regular expression (unanchored).").Default("").StringVar(&f.pathInclude)
	app.Flag("visitors.path-exclude", "Do not export paths matching this Go regular expression (unanchored).").Default("").StringVar(&f.pathExclude)

	app.Flag("collector.jobs", "Enable the agent job watcher.").Default("false").BoolVar(&f.jobsEnabled)
	app.Flag("jobs.id", "Agent job to watch, as ID (with one project) or PROJECT/ID; repeatable.").PlaceHolder("ID").StringsVar(&f.jobIDs)
	app.Flag("jobs.file", "File of job ids to watch, one a line ('#' comments), re-read when it changes.").PlaceHolder("FILE").StringVar(&f.jobsFile)
	app.Flag("jobs.discover", "Also discover jobs through the API's deprecated v1 job listing.").Default("false").BoolVar(&f.jobsDiscover)
	app.Flag("jobs.poll-interval", "How often non-terminal jobs are re-read.").Default("1m").DurationVar(&f.jobsPollInterval)

	app.Flag("cache.file", "Persist the last good snapshots and the request ledger in this file, so a restart spends no request until a refresh is due.").PlaceHolder("FILE").StringVar(&f.cacheFile)
	app.Flag("log.level", "Only log messages with the given severity or above. One of: [debug, info, warn, error]").Default("info").EnumVar(&f.logLevel, logging.Levels...)
	app.Flag("log.format", "Output format of log messages. One of: [logfmt, json]").Default("logfmt").EnumVar(&f.logFormat, logging.Formats...)
	app.Flag("demo", "Serve synthetic data from an embedded fake Mintlify API; needs no key or project id.").Default("false").BoolVar(&f.demo)

	app.Command("serve", "Run the exporter (the default command).").Default()
	return app, agentcmd.Register(app)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program; it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f flags
	app, agent := newApp(&f)
	helpOrVersion := false // kingpin calls Terminate after printing --help or --version
	app.Terminate(func(int) { helpOrVersion = true })
	app.ErrorWriter(stderr)
	app.UsageWriter(stdout)
	cmd, err := app.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v; try --help\n", exporterName, err)
		return 1
	}
	if helpOrVersion || cmd == "" { // --help or --version was handled
		return 0
	}
	logger, slogger, err := logging.New(stderr, f.logLevel, f.logFormat)
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", exporterName, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if agent.Selected(cmd) {
		c, projects, err := newClient(&f, nil, nil, logger)
		if err != nil {
			fmt.Fprintf(stderr, "%s: error: %v\n", exporterName, err)
			return 1
		}
		return agent.Run(ctx, cmd, agentcmd.Env{
			Client: c, ProjectIDs: projects, Stdin: stdin, Stdout: stdout, Stderr: stderr,
			StderrIsTerminal: isTerminal(stderr),
		})
	}
	if err := serve(ctx, &f, logger, slogger); err != nil {
		level.Error(logger).Log("msg", "exiting", "err", err)
		return 1
	}
	return 0
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// projectIDs returns the configured projects: the flags, else the
// environment.
func projectIDs(f *flags) []string {
	if len(f.projectIDs) > 0 {
		return f.projectIDs
	}
	var out []string
	out = append(out, strings.FieldsFunc(os.Getenv("MINTLIFY_PROJECT_ID"), func(r rune) bool { return r == ',' || r == ' ' || r == '\n' })...)
	return out
}

// newClient builds the API client from the flags. hooks and d may be nil.
func newClient(f *flags, hooks *client.Hooks, d *demo.Server, logger log.Logger) (*client.Client, []string, error) {
	projects := projectIDs(f)
	var key client.KeySource
	var err error
	switch {
	case d != nil:
		f.apiURL = d.URL()
		key, err = client.StaticKey(d.Key)
		if len(projects) == 0 {
			projects = d.ProjectIDs
		}
	case f.apiKeyFile != "":
		var fk *client.FileKey
		if fk, err = client.NewFileKey(f.apiKeyFile); err == nil {
			key = fk
			if fk.WorldReadable() {
				level.Warn(logger).Log("msg", "the API key file is readable by every user of this machine; restrict it (chmod 600)", "file", fk.Path())
			}
		}
	default:
		key, err = client.StaticKey(os.Getenv("MINTLIFY_API_KEY"))
	}
	if err != nil {
		return nil, nil, err
	}
	if len(projects) == 0 {
		return nil, nil, errors.New("no project: set --mintlify.project-id (or MINTLIFY_PROJECT_ID); the project id is on the API keys page of the Mintlify dashboard")
	}
	cfg := client.Config{
		BaseURL:   f.apiURL,
		Key:       key,
		Timeout:   f.timeout,
		UserAgent: exporterName + "/" + version.Version,
	}
	if hooks != nil {
		cfg.Hooks = *hooks
	}
	c, err := client.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	return c, projects, nil
}

// serve runs the exporter until ctx ends.
func serve(ctx context.Context, f *flags, logger log.Logger, slogger *slog.Logger) error {
	level.Info(logger).Log("msg", "starting "+exporterName, "version", version.Info())
	level.Info(logger).Log("msg", "build context", "build_context", version.BuildContext())

	windows := make([]collector.Window, 0, len(f.windows))
	for _, s := range f.windows {
		w, err := collector.ParseWindow(s)
		if err != nil {
			return fmt.Errorf("--visitors.window: %w", err)
		}
		windows = append(windows, w)
	}
	var filter collector.PathFilter
	var err error
	if filter.Include, err = compileOptional(f.pathInclude); err != nil {
		return fmt.Errorf("--visitors.path-include: %w", err)
	}
	if filter.Exclude, err = compileOptional(f.pathExclude); err != nil {
		return fmt.Errorf("--visitors.path-exclude: %w", err)
	}
	if f.maxPaths < 0 {
		return fmt.Errorf("--visitors.max-paths must be 0 (all) or more, not %d", f.maxPaths)
	}
	filter.MaxPaths = f.maxPaths
	if f.pageSize < 1 || f.pageSize > 250 {
		return fmt.Errorf("--visitors.page-size must be from 1 to 250, not %d", f.pageSize)
	}
	if f.requestsPerHour < 1 {
		return fmt.Errorf("--mintlify.requests-per-hour must be at least 1, not %d", f.requestsPerHour)
	}
	if f.refreshInterval <= 0 || f.jobsPollInterval <= 0 || f.timeout <= 0 {
		return errors.New("--visitors.refresh-interval, --jobs.poll-interval and --mintlify.timeout must be positive")
	}

	var d *demo.Server
	if f.demo {
		d = demo.Start(time.Now)
		defer d.Close()
		level.Warn(logger).Log("msg", d.Banner())
		if !f.jobsEnabled {
			f.jobsEnabled = true
			f.jobIDs = append(f.jobIDs, d.JobIDs...)
		}
	}

	status := collector.NewStatus()
	budget := collector.NewBudget(f.requestsPerHour, time.Now)
	budget.Pace(func(ctx context.Context, t time.Time) error { return client.DefaultSleep(ctx, time.Until(t)) })
	apiMetrics := collector.NewAPIMetrics()
	c, projects, err := newClient(f, &client.Hooks{Allow: budget.Allow, Observe: apiMetrics.Observe}, d, logger)
	if err != nil {
		return err
	}

	live := prometheus.NewRegistry()
	live.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		versioncollector.NewCollector(exporterName),
		status, budget, apiMetrics,
	)

	var visitors *collector.Visitors
	cache := statefile.New(f.cacheFile, logger)
	visitors, err = collector.NewVisitors(collector.VisitorsConfig{
		Client: c, Projects: projects, Windows: windows,
		MinInterval: f.refreshInterval, PageSize: f.pageSize, MaxPages: 1000, PageConcurrency: 4,
		Filter: filter, Budget: budget, Status: status, Logger: logger,
		OnSnapshot: func() { cache.Save(visitors, budget) },
	})
	if err != nil {
		return err
	}
	defer visitors.Close()
	cache.Load(visitors, budget)

	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	jobsDescribe := "disabled (--collector.jobs)"
	if f.jobsEnabled {
		jobs, err := collector.NewJobsWatcher(collector.JobsConfig{
			Client: c, Projects: projects, IDs: f.jobIDs, File: f.jobsFile, Discover: f.jobsDiscover,
			PollInterval: f.jobsPollInterval, Status: status, Logger: logger,
		})
		if err != nil {
			return err
		}
		live.MustRegister(jobs)
		go jobs.Run(runCtx)
		jobsDescribe = fmt.Sprintf("watching %d job id(s), file %q, discovery %v, polled every %s", len(f.jobIDs), f.jobsFile, f.jobsDiscover, f.jobsPollInterval)
	}

	mux := http.NewServeMux()
	mux.Handle(f.telemetryPath, metricshandler.New(metricshandler.Config{
		Live: live, Visitors: visitors, MaxRequests: f.maxRequests,
		FirstWait: 10 * time.Second, Instrument: live, Logger: logger,
	}))
	mux.HandleFunc("/-/healthy", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		fmt.Fprintln(w, "Healthy")
	})
	mux.HandleFunc("/-/ready", func(w http.ResponseWriter, r *http.Request) {
		if !visitors.Ready() {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "Not ready: waiting for the first snapshot of every project and window")
			return
		}
		w.WriteHeader(http.StatusOK)
		fmt.Fprintln(w, "Ready")
	})
	if f.telemetryPath != "/" {
		var notes []string
		if d != nil {
			notes = append(notes, d.Banner())
		}
		mux.Handle("/", landingpage.New(landingpage.Config{
			Version: version.Info(), TelemetryPath: f.telemetryPath,
			JobsEnabled: f.jobsEnabled, JobsDescribe: jobsDescribe,
		}, landingpage.State{
			Visitors: visitors.States, Interval: visitors.Interval,
			BudgetRemaining: budget.Remaining, BudgetPerHour: budget.PerHour(), Notes: notes,
		}))
	}

	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- web.ListenAndServe(srv, f.web, slogger) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	level.Info(logger).Log("msg", "shutting down: finishing in-flight scrapes, cancelling refreshes")
	cancelRun()
	visitors.Close()
	cache.Save(visitors, budget)
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

func compileOptional(expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	return regexp.Compile(expr)
}
