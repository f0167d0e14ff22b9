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
	"net/url"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

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
	"github.com/mintlify-exporter/mintlify_exporter/internal/intflag"
	"github.com/mintlify-exporter/mintlify_exporter/jobs"
	"github.com/mintlify-exporter/mintlify_exporter/logging"
	"github.com/mintlify-exporter/mintlify_exporter/remediation"
)

const (
	exporterName   = "mintlify_exporter"
	defaultAddress = ":9863"
	// shutdownGrace bounds how long in-flight scrapes may take on SIGTERM.
	shutdownGrace = 4 * time.Second
	// apiRequestsPerHour is the API's analytics limit per organization.
	apiRequestsPerHour = 100
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
	derivedWindows   bool
	visitors         analyticsFlags // deprecated names of the analytics flags
	collectors       map[string]*bool
	collectorSet     map[string]*bool // set by the user, on or off
	searchesTopTerms int
	convMaxPages     int
	jobsEnabled      bool
	jobIDs           []string
	jobsFile         string
	jobsDiscover     bool
	jobsPollInterval time.Duration
	jobsPollSet      bool
	cacheFile        string
	remediation      string // --remediation.config
	remediationToken string // --remediation.token-file
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
	intflag.Var(flag("page-size", fmt.Sprintf("Rows requested per page of the offset-paged endpoints (visitors, views; the API's limit, 1 to %d).", client.MaxPageSize), strconv.Itoa(client.MaxPageSize)), &f.pageSize)
	intflag.Var(flag("max-paths", "Per source, project and window, export only the top N paths; 0 exports all.", "5000"), &f.maxPaths)
	flag("path-include", "Export only paths matching this Go regular expression (unanchored).", "").StringVar(&f.pathInclude)
	flag("path-exclude", "Do not export paths matching this Go regular expression (unanchored).", "").StringVar(&f.pathExclude)
}

func newApp(f *flags) (*kingpin.Application, *agentcmd.Command) {
	return newAppVersion(f, version.Print(exporterName))
}

// newAppVersion is newApp with the text --version prints; kingpin also puts
// that text into the .TH line of --help-man, which must be one line.
func newAppVersion(f *flags, versionText string) (*kingpin.Application, *agentcmd.Command) {
	app := kingpin.New(exporterName, "Prometheus exporter for Mintlify: documentation analytics (visitors, views, assistant, feedback, searches) per site and page, and agent job status.")
	app.Version(versionText)
	app.HelpFlag.Short('h')
	app.UsageWriter(os.Stdout)
	app.UsageTemplate(usageTemplate)
	app.UsageFuncs(usageFuncs)

	f.web = kingpinflag.AddFlags(app, defaultAddress)
	app.Flag("web.telemetry-path", "Path under which to expose metrics.").Default("/metrics").StringVar(&f.telemetryPath)
	intflag.Var(app.Flag("web.max-requests", "Maximum number of concurrent scrape requests; the excess is answered 503. 0 means no limit.").Default("40"), &f.maxRequests)

	app.Flag("analytics.derived-windows", "Derive the 7d, 30d… windows of additive sources (views, assistant, searches without top terms, conversations) from a store of closed days and today's 1d window, at almost no requests; --no-analytics.derived-windows reads every window whole.").Default("true").BoolVar(&f.derivedWindows)
	app.Flag("mintlify.api-url", "Base address of the Mintlify API.").Default(client.DefaultBaseURL).StringVar(&f.apiURL)
	app.Flag("mintlify.api-key-file", "File holding the admin API key (re-read when it changes). Without it the key is read from the MINTLIFY_API_KEY environment variable.").PlaceHolder("FILE").StringVar(&f.apiKeyFile)
	app.Flag("mintlify.project-id", "Project to export; repeat for every project of the organization. Default: MINTLIFY_PROJECT_ID (comma-separated).").PlaceHolder("ID").StringsVar(&f.projectIDs)
	app.Flag("mintlify.timeout", "Timeout of each request to the API.").Default("30s").DurationVar(&f.timeout)
	intflag.Var(app.Flag("mintlify.requests-per-hour", "Analytics requests the exporter may send per sliding hour, shared by all projects and windows (the API allows 100 per organization).").Default("90"), &f.requestsPerHour)

	addAnalyticsFlags(app, "analytics", &f.analytics, false)
	addAnalyticsFlags(app, "visitors", &f.visitors, true)
	f.collectors, f.collectorSet = map[string]*bool{}, map[string]*bool{}
	for _, src := range collector.Sources {
		def := "false"
		if src.Default {
			def = "true"
		}
		c := app.Flag("collector."+src.Name, "Enable the "+src.Name+" source: "+src.Help+".").Default(def)
		f.collectorSet[src.Name] = new(bool)
		c.IsSetByUser(f.collectorSet[src.Name])
		f.collectors[src.Name] = c.Bool()
	}
	intflag.Var(app.Flag("searches.top-terms", "Also export the N most searched terms (1 to 100, still one request); 0 exports none. Terms are text typed by the public: mind cardinality and personal data.").Default("0"), &f.searchesTopTerms)
	intflag.Var(app.Flag("conversations.max-pages", "Refuse (an error, nothing exported) a conversations walk longer than this many pages of 1,000 turns.").Default(strconv.Itoa(client.DefaultConversationsMaxPages)), &f.convMaxPages)
	app.Flag("collector.jobs", "Enable the agent job watcher.").Default("false").BoolVar(&f.jobsEnabled)
	app.Flag("jobs.id", "Agent job to watch, as ID (with one project) or PROJECT/ID; repeatable.").PlaceHolder("ID").StringsVar(&f.jobIDs)
	app.Flag("jobs.file", "File of job ids to watch, one a line ('#' comments), re-read when it changes.").PlaceHolder("FILE").StringVar(&f.jobsFile)
	app.Flag("jobs.discover", "Also discover jobs through the API's deprecated v1 job listing.").Default("false").BoolVar(&f.jobsDiscover)
	app.Flag("jobs.poll-interval", "How often non-terminal jobs are re-read.").Default("1m").IsSetByUser(&f.jobsPollSet).DurationVar(&f.jobsPollInterval)

	app.Flag("remediation.config", "Remediation rules (YAML, re-read when it changes): turns on POST "+remediation.Path+", which turns chosen Alertmanager alerts into agent jobs; dry run unless the file says dry_run: false (docs/remediation.md).").PlaceHolder("FILE").StringVar(&f.remediation)
	app.Flag("remediation.token-file", "File holding the bearer token the remediation webhook requires (or use basic auth in --web.config.file).").PlaceHolder("FILE").StringVar(&f.remediationToken)
	app.Flag("cache.file", "Persist the last good snapshots and the request ledger in this file, so a restart spends no request until a refresh is due.").PlaceHolder("FILE").StringVar(&f.cacheFile)
	app.Flag("log.level", "Only log messages with the given severity or above. One of: [debug, info, warn, error]").Default("info").EnumVar(&f.logLevel, logging.Levels...)
	app.Flag("log.format", "Output format of log messages. One of: [logfmt, json]").Default("logfmt").EnumVar(&f.logFormat, logging.Formats...)
	app.Flag("demo", "Serve synthetic data from an embedded fake Mintlify API; needs no key or project id.").Default("false").BoolVar(&f.demo)

	app.Command("serve", "Run the exporter (the default command).").Default()
	return app, agentcmd.Register(app)
}

func main() {
	fillVersion()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program; it returns the exit code. SIGINT and SIGTERM
// stop it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runContext(ctx, args, stdin, stdout, stderr)
}

// runContext is run until ctx ends.
func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f flags
	versionText := version.Print(exporterName)
	if slices.Contains(args, "--help-man") { // the man page's header (.TH): one line, quoted
		versionText = strconv.Quote(version.Version)
	}
	app, agent := newAppVersion(&f, versionText)
	backfillCmd := registerBackfill(app)
	helpOrVersion := false // kingpin calls Terminate after printing --help or --version
	app.Terminate(func(int) { helpOrVersion = true })
	app.ErrorWriter(stderr)
	app.UsageWriter(stdout)
	cmd, err := app.Parse(args)
	if helpOrVersion { // printed; a missing required flag after --help is no error
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %s; try --help\n", exporterName, agentcmd.ErrorLine(explainParseError(app, args, err)))
		return 1
	}
	if cmd == "" {
		return 0
	}
	if err := unusedFlag(app, args, cmd); err != nil {
		fmt.Fprintf(stderr, "%s: error: %s\n", exporterName, err)
		return 1
	}
	logger, slogger, err := logging.New(stderr, f.logLevel, f.logFormat)
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", exporterName, err)
		return 1
	}
	if backfillCmd.Selected(cmd) {
		return backfillCmd.run(ctx, &f, logger, stdout, stderr)
	}
	if agent.Selected(cmd) {
		return runAgent(ctx, cmd, agent, &f, logger, stdin, stdout, stderr)
	}
	if err := serve(ctx, &f, logger, slogger); err != nil {
		var se startupError
		if errors.As(err, &se) {
			// A mistake in the configuration reads like a flag error.
			fmt.Fprintf(stderr, "%s: error: %s\n", exporterName, agentcmd.ErrorLine(se.Error()))
			return 1
		}
		level.Error(logger).Log("msg", "exiting", "err", err)
		return 1
	}
	return 0
}

// runAgent runs an agent subcommand, against the demo's fake API with
// --demo.
func runAgent(ctx context.Context, cmd string, agent *agentcmd.Command, f *flags, logger log.Logger, stdin io.Reader, stdout, stderr io.Writer) int {
	var d *demo.Server
	if f.demo {
		d = demo.Start(time.Now)
		defer d.Close()
		level.Warn(logger).Log("msg", "DEMO MODE: a synthetic API started for this command; the jobs and their answers are made up")
	}
	c, projects, err := newClient(f, d, logger)
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %s\n", exporterName, agentcmd.ErrorLine(err.Error()))
		return 1
	}
	return agent.Run(ctx, cmd, agentcmd.Env{
		Client: c, ProjectIDs: projects, Stdin: stdin, Stdout: stdout, Stderr: stderr,
		StderrIsTerminal: isTerminal(stderr),
	})
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
// environment. An empty or blank --mintlify.project-id is an error (an
// unset shell variable), as is one given twice.
func projectIDs(f *flags) ([]string, error) {
	if len(f.projectIDs) > 0 {
		seen := map[string]bool{}
		for _, p := range f.projectIDs {
			if strings.TrimSpace(p) == "" {
				return nil, errors.New("--mintlify.project-id is empty (an unset shell variable?): give the project id from the API keys page of the Mintlify dashboard")
			}
			if err := checkProjectID(p); err != nil {
				return nil, fmt.Errorf("--mintlify.project-id=%q: %v", p, err)
			}
			if seen[p] {
				return nil, fmt.Errorf("--mintlify.project-id=%s is given twice", p)
			}
			seen[p] = true
		}
		return f.projectIDs, nil
	}
	var out []string
	for _, p := range strings.FieldsFunc(os.Getenv("MINTLIFY_PROJECT_ID"), func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
		if err := checkProjectID(p); err != nil {
			return nil, fmt.Errorf("MINTLIFY_PROJECT_ID: %q: %v", p, err)
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// checkProjectID refuses what cannot be a project id: it becomes one
// segment of the API's URL paths.
func checkProjectID(p string) error {
	if len(p) > 200 {
		return errors.New("longer than 200 characters; not a project id")
	}
	for _, r := range p {
		if r <= ' ' || r == '/' || r == '?' || r == '#' || r == '%' || r == 0x7f || !unicode.IsPrint(r) {
			return errors.New("holds a space, a slash or another character no project id has")
		}
	}
	if p == "." || p == ".." {
		return errors.New("not a project id")
	}
	return nil
}

// upstream returns the key and projects the flags (or the demo) name; it
// points f.apiURL at the demo when there is one. With neither a key nor a
// project it reports both.
func upstream(f *flags, d *demo.Server, logger log.Logger) (client.KeySource, []string, error) {
	projects, perr := projectIDs(f)
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
		} else {
			err = fmt.Errorf("--mintlify.api-key-file: %w", err)
		}
	default:
		key, err = client.StaticKey(os.Getenv("MINTLIFY_API_KEY"))
	}
	if perr == nil && len(projects) == 0 {
		perr = errors.New("no project: set --mintlify.project-id (or MINTLIFY_PROJECT_ID); the project id is on the API keys page of the Mintlify dashboard")
	}
	switch {
	case err != nil && perr != nil:
		return nil, nil, fmt.Errorf("%v; and %v", err, perr)
	case err != nil:
		return nil, nil, err
	case perr != nil:
		return nil, nil, perr
	}
	return key, projects, nil
}

// newClient builds the API client of the agent commands from the flags,
// or for the demo's fake API. The demo's jobs are in its first project,
// which the agent commands use unless a project is given.
func newClient(f *flags, d *demo.Server, logger log.Logger) (*client.Client, []string, error) {
	if err := checkConnection(f); err != nil {
		return nil, nil, err
	}
	key, projects, err := upstream(f, d, logger)
	if err != nil {
		return nil, nil, err
	}
	if d != nil && len(f.projectIDs) == 0 {
		projects = d.ProjectIDs[:1]
	}
	c, err := client.New(client.Config{
		BaseURL: f.apiURL, Key: key, Timeout: f.timeout, UserAgent: exporterName + "/" + version.Version,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("--mintlify.api-url: %w", err)
	}
	return c, projects, nil
}

// checkConnection validates the flags every command that talks to the API
// uses.
func checkConnection(f *flags) error {
	if f.timeout <= 0 {
		return fmt.Errorf("--mintlify.timeout must be positive, not %s", f.timeout)
	}
	if !f.demo {
		if err := checkAPIURL(f.apiURL); err != nil {
			return fmt.Errorf("--mintlify.api-url=%q: %v", f.apiURL, err)
		}
	}
	return nil
}

// checkAPIURL accepts an absolute http or https address with a host.
func checkAPIURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return errors.New("not an address; want https://api.mintlify.com or http://HOST:PORT")
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("want an http:// or https:// address")
	case u.Host == "" || u.Hostname() == "":
		return errors.New("no host in the address")
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return errors.New("want a base address without query, fragment or user")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return errors.New("the port must be from 1 to 65535")
		}
	}
	return nil
}

// Upper bounds of the duration flags: beyond them a value is a typo, and
// time arithmetic on it could overflow.
const (
	maxRefreshInterval = 30 * 24 * time.Hour
	maxPollInterval    = 24 * time.Hour
	// minPollInterval keeps job reads, which no budget counts, to at
	// most one per job a second.
	minPollInterval = jobs.MinPollInterval
	maxTimeout      = time.Hour
)

// config builds the exporter's configuration from the flags, validating
// every value and naming the flag at fault. It logs warnings (deprecated
// flags, a budget above the API's limit) but never an info line, so a bad
// start prints one line.
func config(f *flags, logger log.Logger) (exporter.Config, error) {
	if err := checkConnection(f); err != nil {
		return exporter.Config{}, err
	}
	a := f.analytics
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
	// The name the user typed, for messages.
	an := func(name string) string {
		if *f.visitors.set[name] {
			return "--visitors." + name
		}
		return "--analytics." + name
	}
	cfg := exporter.Config{
		Timeout: f.timeout, UserAgent: exporterName + "/" + version.Version,
		RequestsPerHour: f.requestsPerHour, RefreshInterval: a.refreshInterval,
		PageSize: a.pageSize, MaxPaths: a.maxPaths, DeriveWindows: f.derivedWindows,
		SearchesTopTerms: f.searchesTopTerms, ConversationsMaxPages: f.convMaxPages,
		Jobs: exporter.JobsConfig{Enabled: f.jobsEnabled || f.demo, IDs: f.jobIDs, File: f.jobsFile,
			Discover: f.jobsDiscover, PollInterval: f.jobsPollInterval},
		CacheFile: f.cacheFile, TelemetryPath: f.telemetryPath, MaxRequests: f.maxRequests,
		Version: versionLine(), Logger: logger,
	}
	if len(a.windows) == 0 {
		return cfg, fmt.Errorf("%s: no window given", an("window"))
	}
	seen := map[string]bool{}
	for _, s := range a.windows {
		w, err := engine.ParseWindow(s)
		if err != nil {
			return cfg, fmt.Errorf("%s: %w", an("window"), err)
		}
		if seen[w.Name] {
			return cfg, fmt.Errorf("%s: %s is given twice (a window and its :site form export the same series)", an("window"), w.Name)
		}
		seen[w.Name] = true
		cfg.Windows = append(cfg.Windows, w)
	}
	var err error
	if cfg.PathInclude, err = compileOptional(a.pathInclude); err != nil {
		return cfg, fmt.Errorf("%s: %w", an("path-include"), err)
	}
	if cfg.PathExclude, err = compileOptional(a.pathExclude); err != nil {
		return cfg, fmt.Errorf("%s: %w", an("path-exclude"), err)
	}
	switch {
	case a.maxPaths < 0:
		return cfg, fmt.Errorf("%s must be 0 (all) or more, not %d", an("max-paths"), a.maxPaths)
	case a.pageSize < 1 || a.pageSize > client.MaxPageSize:
		return cfg, fmt.Errorf("%s must be from 1 to %d, not %d", an("page-size"), client.MaxPageSize, a.pageSize)
	case f.requestsPerHour < 1:
		return cfg, fmt.Errorf("--mintlify.requests-per-hour must be at least 1, not %d", f.requestsPerHour)
	case a.refreshInterval <= 0 || a.refreshInterval > maxRefreshInterval:
		return cfg, fmt.Errorf("%s must be positive and at most %s, not %s", an("refresh-interval"), maxRefreshInterval, a.refreshInterval)
	case f.jobsPollInterval < minPollInterval || f.jobsPollInterval > maxPollInterval:
		return cfg, fmt.Errorf("--jobs.poll-interval must be from %s to %s, not %s", minPollInterval, maxPollInterval, f.jobsPollInterval)
	case f.timeout > maxTimeout:
		return cfg, fmt.Errorf("--mintlify.timeout must be at most %s, not %s", maxTimeout, f.timeout)
	case f.searchesTopTerms < 0 || f.searchesTopTerms > client.MaxSearchesLimit:
		return cfg, fmt.Errorf("--searches.top-terms must be from 0 (none) to %d, not %d", client.MaxSearchesLimit, f.searchesTopTerms)
	case f.convMaxPages < 1:
		return cfg, fmt.Errorf("--conversations.max-pages must be at least 1, not %d", f.convMaxPages)
	case f.maxRequests < 0:
		return cfg, fmt.Errorf("--web.max-requests must be 0 (no limit) or more, not %d", f.maxRequests)
	}
	if !cfg.Jobs.Enabled {
		for _, j := range []struct {
			flag string
			set  bool
		}{{"--jobs.id", len(f.jobIDs) > 0}, {"--jobs.file", f.jobsFile != ""}, {"--jobs.discover", f.jobsDiscover}, {"--jobs.poll-interval", f.jobsPollSet}} {
			if j.set {
				return cfg, fmt.Errorf("%s is set but the job watcher is off: add --collector.jobs", j.flag)
			}
		}
	}
	for _, id := range f.jobIDs {
		if strings.TrimSpace(id) == "" {
			return cfg, errors.New("--jobs.id is empty (an unset shell variable?)")
		}
		if looksLikeKey(id) {
			return cfg, errors.New("--jobs.id: a value looks like an admin API key (mint_...), not a job id; it would become a label")
		}
	}
	if f.jobsFile != "" {
		if err := checkJobsFile(f.jobsFile); err != nil {
			return cfg, fmt.Errorf("--jobs.file=%s: %v", f.jobsFile, err)
		}
	}
	if err := checkTelemetryPath(f.telemetryPath); err != nil {
		return cfg, fmt.Errorf("--web.telemetry-path=%q: %v", f.telemetryPath, err)
	}
	if err := checkListenAddresses(f.web); err != nil {
		return cfg, err
	}
	if err := checkFiles(f); err != nil {
		return cfg, err
	}
	if f.requestsPerHour > apiRequestsPerHour {
		level.Warn(logger).Log("msg", fmt.Sprintf("--mintlify.requests-per-hour=%d is above the API's limit of %d analytics requests per organization an hour: expect 429 answers, for this exporter and for everything else of the organization that uses the API", f.requestsPerHour, apiRequestsPerHour))
	}
	for _, src := range collector.Sources {
		// The demo serves every source the user did not turn off.
		if *f.collectors[src.Name] || f.demo && !*f.collectorSet[src.Name] {
			cfg.Collectors = append(cfg.Collectors, src.Name)
		}
	}
	if cfg.Remediation, err = remediationConfig(f); err != nil {
		return cfg, err
	}
	if len(cfg.Collectors) == 0 && !cfg.Jobs.Enabled {
		return cfg, errors.New("nothing to export: every source is off (--no-collector.*) and --collector.jobs is not set; turn one on")
	}
	if f.demo && f.apiURL != client.DefaultBaseURL {
		level.Warn(logger).Log("msg", "--mintlify.api-url is ignored with --demo, which serves its own synthetic API", "api_url", f.apiURL)
	}
	if f.telemetryPath == "/" {
		level.Warn(logger).Log("msg", "--web.telemetry-path=/ serves the metrics at /, in place of the landing page (the state of every unit and job)")
	}
	return cfg, nil
}

// startupError is an error found before the exporter serves (a flag, a
// file, the API's answer to the first check, a socket): run prints it in
// the style of a flag error, not as a log line.
type startupError struct{ err error }

func (e startupError) Error() string { return e.err.Error() }
func (e startupError) Unwrap() error { return e.err }

// serve runs the exporter until ctx ends. Everything is validated, and the
// listening sockets opened, before the first info line.
func serve(ctx context.Context, f *flags, logger log.Logger, slogger *slog.Logger) error {
	cfg, err := config(f, logger)
	if err != nil {
		return startupError{err}
	}
	var d *demo.Server
	if f.demo {
		d = demo.Start(time.Now)
		defer d.Close()
		cfg.Notes = append(cfg.Notes, d.Banner())
		cfg.Examples = demoExamples()
		for _, id := range d.JobIDs {
			if !slices.Contains(cfg.Jobs.IDs, id) {
				cfg.Jobs.IDs = append(cfg.Jobs.IDs, id)
			}
		}
	}
	if cfg.Key, cfg.Projects, err = upstream(f, d, logger); err != nil {
		return startupError{err}
	}
	if cfg.Jobs.Enabled { // refused before anything is logged
		if err := jobs.CheckConfig(jobs.Config{Projects: cfg.Projects, IDs: cfg.Jobs.IDs,
			File: cfg.Jobs.File, Discover: cfg.Jobs.Discover, PollInterval: cfg.Jobs.PollInterval}); err != nil {
			return startupError{err}
		}
	}
	cfg.APIURL = f.apiURL
	ls, err := listen(f.web)
	if err != nil {
		return startupError{err}
	}
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()

	level.Info(logger).Log("msg", "starting "+exporterName, "version", version.Info())
	level.Info(logger).Log("msg", "build context", "build_context", version.BuildContext())
	if d != nil {
		level.Warn(logger).Log("msg", d.Banner())
	}
	x, err := exporter.New(cfg)
	if err != nil {
		return startupError{err}
	}
	defer x.Close()

	srv := exporter.NewServer(x.Handler(), slog.NewLogLogger(slogger.Handler(), slog.LevelError))
	errc := make(chan error, 1)
	go func() {
		var err error
		if ls == nil { // systemd socket activation or vsock: the toolkit listens
			err = web.ListenAndServe(srv, f.web, slogger)
		} else {
			err = web.ServeMultiple(ls, srv, f.web, slogger)
		}
		errc <- err
	}()
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
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
	<-errc // the server's goroutine has logged its last line
	level.Info(logger).Log("msg", "stopped")
	return nil
}

// demoExamples are the agent commands to try against the demo, shown on
// its landing page.
func demoExamples() []string {
	return []string{
		exporterName + " agent get --demo --job=" + demo.Jobs[2].ID,
		exporterName + " agent message --demo --job=" + demo.Jobs[0].ID + " --prompt='Also fix the broken links' --wait",
	}
}

func compileOptional(expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	return regexp.Compile(expr)
}

// badValue finds the value kingpin quotes in a parse error: "30" in
// `time: missing unit in duration "30"`, verbose in `got 'verbose'`.
var badValue = regexp.MustCompile(`"([^"]*)"|'([^']*)'`)

// explainParseError makes kingpin's parse errors name the flag at fault,
// in the style of every other configuration error ("--flag=value: what"),
// and suggests the nearest flag for an unknown one.
func explainParseError(app *kingpin.Application, args []string, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown long flag '"); ok {
		name = strings.TrimSuffix(name, "'")
		if near := nearestFlag(app, strings.TrimPrefix(name, "--")); near != "" {
			return fmt.Sprintf("unknown flag %s (did you mean --%s)", name, near)
		}
		return "unknown flag " + name
	}
	m := badValue.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	value := m[1] + m[2]
	for i, a := range args {
		name, v, hasValue := strings.Cut(a, "=")
		if !hasValue && i+1 < len(args) {
			v = args[i+1]
		}
		if strings.HasPrefix(name, "--") && v == value {
			return fmt.Sprintf("%s=%s: %s", name, value, msg)
		}
	}
	return msg
}

// nearestFlag returns the flag whose name is closest to name (at most a
// third of its letters apart), or "".
func nearestFlag(app *kingpin.Application, name string) string {
	best, bestD := "", len(name)/3+1
	for _, f := range app.Model().Flags {
		if f.Hidden {
			continue
		}
		if d := editDistance(name, f.Name); d < bestD {
			best, bestD = f.Name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
