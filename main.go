// Command mintlify_exporter is a Prometheus exporter for Mintlify's REST
// API: documentation analytics (visitors, views, assistant queries,
// feedback, searches, assistant conversations) per site and per page, and
// the status of agent jobs. Its "agent" subcommands send a follow-up
// message to an agent job and read a job.
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
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/prometheus/exporter-toolkit/web/kingpinflag"

	"github.com/mintlify-exporter/mintlify_exporter/agentcmd"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/demo"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/exporter"
	"github.com/mintlify-exporter/mintlify_exporter/logging"
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
	analytics        analyticsFlags
	visitors         analyticsFlags // deprecated names of the analytics flags
	collectors       map[string]*bool
	searchesTopTerms int
	convMaxPages     int
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

// analyticsFlags are the flags shared by every analytics source, also
// accepted under their first, deprecated names (--visitors.*).
type analyticsFlags struct {
	windows         []string
	refreshInterval time.Duration
	pageSize        int
	maxPaths        int
	pathInclude     string
	pathExclude     string
	set             map[string]*bool // which were given, by flag suffix
}

// addAnalyticsFlags defines the shared analytics flags under prefix; the
// deprecated prefix hides them and gives them no defaults.
func addAnalyticsFlags(app *kingpin.Application, prefix string, f *analyticsFlags, hidden bool) {
	f.set = map[string]*bool{}
	flag := func(name, help string, defaults ...string) *kingpin.FlagClause {
		c := app.Flag(prefix+"."+name, help)
		f.set[name] = new(bool)
		c.IsSetByUser(f.set[name])
		if hidden {
			c.Hidden()
		} else if len(defaults) > 0 {
			c.Default(defaults...)
		}
		return c
	}
	flag("window", "Window to export, as N days ending today (UTC), or N days followed by :site for site-wide figures only at one request per source (30d:site); repeatable.", "1d", "7d", "30d").StringsVar(&f.windows)
	flag("refresh-interval", "Shortest time between two refreshes of one source, project and window; the request budget may stretch it.", "15m").DurationVar(&f.refreshInterval)
	flag("page-size", fmt.Sprintf("Rows requested per page of the offset-paged endpoints (visitors, views; the API's limit, 1 to %d).", client.MaxPageSize), strconv.Itoa(client.MaxPageSize)).IntVar(&f.pageSize)
	flag("max-paths", "Per source, project and window, export only the top N paths; 0 exports all.", "5000").IntVar(&f.maxPaths)
	flag("path-include", "Export only paths matching this Go regular expression (unanchored).", "").StringVar(&f.pathInclude)
	flag("path-exclude", "Do not export paths matching this Go regular expression (unanchored).", "").StringVar(&f.pathExclude)
}

func newApp(f *flags) (*kingpin.Application, *agentcmd.Command) {
	app := kingpin.New(exporterName, "Prometheus exporter for Mintlify: documentation analytics (visitors, views, assistant, feedback, searches) per site and page, and agent job status.")
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

	addAnalyticsFlags(app, "analytics", &f.analytics, false)
	addAnalyticsFlags(app, "visitors", &f.visitors, true)
	f.collectors = map[string]*bool{}
	for _, src := range collector.Sources {
		def := "false"
		if src.Default {
			def = "true"
		}
		f.collectors[src.Name] = app.Flag("collector."+src.Name, "Enable the "+src.Name+" source: "+src.Help+".").Default(def).Bool()
	}
	app.Flag("searches.top-terms", "Also export the N most searched terms (1 to 100, still one request); 0 exports none. Terms are text typed by the public: mind cardinality and personal data.").Default("0").IntVar(&f.searchesTopTerms)
	app.Flag("conversations.max-pages", "Refuse (an error, nothing exported) a conversations walk longer than this many pages of 1,000 turns.").Default("10").IntVar(&f.convMaxPages)
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
	backfillCmd := registerBackfill(app)
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

	if backfillCmd.Selected(cmd) {
		return backfillCmd.run(ctx, &f, logger, stdout, stderr)
	}
	if agent.Selected(cmd) {
		c, projects, err := newClient(&f, logger)
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

// upstream returns the key and projects the flags (or the demo) name; it
// points f.apiURL at the demo when there is one.
func upstream(f *flags, d *demo.Server, logger log.Logger) (client.KeySource, []string, error) {
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
	return key, projects, nil
}

// newClient builds the API client of the agent commands from the flags.
func newClient(f *flags, logger log.Logger) (*client.Client, []string, error) {
	key, projects, err := upstream(f, nil, logger)
	if err != nil {
		return nil, nil, err
	}
	c, err := client.New(client.Config{
		BaseURL: f.apiURL, Key: key, Timeout: f.timeout, UserAgent: exporterName + "/" + version.Version,
	})
	if err != nil {
		return nil, nil, err
	}
	return c, projects, nil
}

// config builds the exporter's configuration from the flags, validating
// every value and naming the flag at fault.
func config(f *flags, logger log.Logger) (exporter.Config, error) {
	a := f.analytics
	// name returns the flag as the user wrote it, for errors.
	name := func(n string) string {
		if *f.visitors.set[n] {
			return "--visitors." + n
		}
		return "--analytics." + n
	}
	for name, set := range f.visitors.set {
		if !*set {
			continue
		}
		if *a.set[name] {
			return exporter.Config{}, fmt.Errorf("--visitors.%s and --analytics.%s are the same flag; keep --analytics.%s", name, name, name)
		}
		level.Warn(logger).Log("msg", fmt.Sprintf("--visitors.%s is deprecated; use --analytics.%s", name, name))
		switch name {
		case "window":
			a.windows = f.visitors.windows
		case "refresh-interval":
			a.refreshInterval = f.visitors.refreshInterval
		case "page-size":
			a.pageSize = f.visitors.pageSize
		case "max-paths":
			a.maxPaths = f.visitors.maxPaths
		case "path-include":
			a.pathInclude = f.visitors.pathInclude
		case "path-exclude":
			a.pathExclude = f.visitors.pathExclude
		}
	}
	cfg := exporter.Config{
		Timeout: f.timeout, UserAgent: exporterName + "/" + version.Version,
		RequestsPerHour: f.requestsPerHour, RefreshInterval: a.refreshInterval,
		PageSize: a.pageSize, MaxPaths: a.maxPaths,
		SearchesTopTerms: f.searchesTopTerms, ConversationsMaxPages: f.convMaxPages,
		Jobs: exporter.JobsConfig{Enabled: f.jobsEnabled, IDs: f.jobIDs, File: f.jobsFile,
			Discover: f.jobsDiscover, PollInterval: f.jobsPollInterval},
		CacheFile: f.cacheFile, TelemetryPath: f.telemetryPath, MaxRequests: f.maxRequests,
		Version: version.Info(), Logger: logger,
	}
	seen := map[string]bool{}
	for _, s := range a.windows {
		w, err := engine.ParseWindow(s)
		if err != nil {
			return cfg, fmt.Errorf("%s: %w", name("window"), err)
		}
		if seen[w.Name] {
			return cfg, fmt.Errorf("%s: %s is given twice (a window and its :site form export the same series)", name("window"), w.Name)
		}
		seen[w.Name] = true
		cfg.Windows = append(cfg.Windows, w)
	}
	var err error
	if cfg.PathInclude, err = compileOptional(a.pathInclude); err != nil {
		return cfg, fmt.Errorf("%s: %w", name("path-include"), err)
	}
	if cfg.PathExclude, err = compileOptional(a.pathExclude); err != nil {
		return cfg, fmt.Errorf("%s: %w", name("path-exclude"), err)
	}
	switch {
	case a.maxPaths < 0:
		return cfg, fmt.Errorf("%s must be 0 (all) or more, not %d", name("max-paths"), a.maxPaths)
	case a.pageSize < 1 || a.pageSize > client.MaxPageSize:
		return cfg, fmt.Errorf("%s must be from 1 to %d, not %d", name("page-size"), client.MaxPageSize, a.pageSize)
	case f.requestsPerHour < 1:
		return cfg, fmt.Errorf("--mintlify.requests-per-hour must be at least 1, not %d", f.requestsPerHour)
	case a.refreshInterval <= 0:
		return cfg, fmt.Errorf("%s must be positive", name("refresh-interval"))
	case f.jobsPollInterval <= 0:
		return cfg, errors.New("--jobs.poll-interval must be positive")
	case f.timeout <= 0:
		return cfg, errors.New("--mintlify.timeout must be positive")
	case f.searchesTopTerms < 0 || f.searchesTopTerms > 100:
		return cfg, fmt.Errorf("--searches.top-terms must be from 0 (none) to 100, not %d", f.searchesTopTerms)
	case f.convMaxPages < 1:
		return cfg, fmt.Errorf("--conversations.max-pages must be at least 1, not %d", f.convMaxPages)
	}
	for _, src := range collector.Sources {
		if *f.collectors[src.Name] || f.demo {
			cfg.Collectors = append(cfg.Collectors, src.Name)
		}
	}
	return cfg, nil
}

// serve runs the exporter until ctx ends.
func serve(ctx context.Context, f *flags, logger log.Logger, slogger *slog.Logger) error {
	cfg, err := config(f, logger)
	if err != nil {
		return err
	}
	level.Info(logger).Log("msg", "starting "+exporterName, "version", version.Info())
	level.Info(logger).Log("msg", "build context", "build_context", version.BuildContext())
	var d *demo.Server
	if f.demo {
		d = demo.Start(time.Now)
		defer d.Close()
		level.Warn(logger).Log("msg", d.Banner())
		cfg.Notes = append(cfg.Notes, d.Banner())
		if !cfg.Jobs.Enabled {
			cfg.Jobs.Enabled = true
			cfg.Jobs.IDs = append(cfg.Jobs.IDs, d.JobIDs...)
		}
	}
	if cfg.Key, cfg.Projects, err = upstream(f, d, logger); err != nil {
		return err
	}
	cfg.APIURL = f.apiURL
	x, err := exporter.New(cfg)
	if err != nil {
		return err
	}
	defer x.Close()

	srv := &http.Server{Handler: x.Handler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- web.ListenAndServe(srv, f.web, slogger) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	level.Info(logger).Log("msg", "shutting down: finishing in-flight scrapes, cancelling refreshes")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	x.Close()
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
