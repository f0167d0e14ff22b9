package main

// The "backfill" command: past days of analytics into an OpenMetrics file
// for promtool (package backfill does the work).

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/go-kit/log"
	"github.com/prometheus/common/version"

	"github.com/mintlify-exporter/mintlify_exporter/backfill"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/demo"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/exporter"
)

func init() {
	// The backfill's help shows, after its own flags, the global flags it
	// uses (see help.go).
	commandGlobals[cmdBackfill] = []string{"mintlify.", "analytics.page-size", "analytics.max-paths", "analytics.path-", "collector.", "searches.", "conversations.", "cache.file", "log.", "demo", "help", "version"}
	commandHelp[cmdBackfill] = map[string]string{
		"demo":       "Backfill from a synthetic API started for this command alone; needs no key or project id.",
		"cache.file": "The exporter's state file: the days written also seed its store of derived windows (stop the exporter first).",
	}
	commandDefaults[cmdBackfill] = map[string]string{"mintlify.requests-per-hour": strconv.Itoa(backfill.DefaultRequestsPerHour)}
	commandHidden[cmdBackfill] = []string{"collector.jobs"}
}

// backfillCommand holds the backfill command's flags.
type backfillCommand struct {
	from, to, output             string
	pages, dryRun, resume, force bool
	// budgetSet tells whether --mintlify.requests-per-hour was given: the
	// backfill's default (40) differs from serve's (90).
	budgetSet bool
}

// cmdBackfill is the command's name as kingpin reports it.
const cmdBackfill = "backfill"

// registerBackfill adds the backfill command and its flags to app, after
// the shared flags (newApp).
func registerBackfill(app *kingpin.Application) *backfillCommand {
	b := &backfillCommand{}
	cmd := app.Command(cmdBackfill, fmt.Sprintf(
		"Write past days of analytics as OpenMetrics for 'promtool tsdb create-blocks-from openmetrics': "+
			"each completed UTC day of --from..--to, under the live metric names with window=\"1d\", stamped with the day's last second. "+
			"Site-wide figures cost one request per source, project and day (90 days × 4 sources = 360 requests = 9 hours at 40 an hour). "+
			"Here --mintlify.requests-per-hour defaults to %d; beside a live exporter the two must add up to 100 or less.",
		backfill.DefaultRequestsPerHour))
	cmd.Flag("from", "First day to backfill (YYYY-MM-DD, UTC); required.").PlaceHolder("DATE").StringVar(&b.from)
	cmd.Flag("to", "Last day to backfill (YYYY-MM-DD, UTC), included; default yesterday, the last completed day.").PlaceHolder("DATE").StringVar(&b.to)
	cmd.Flag("output", "OpenMetrics file to write; its journal FILE.journal is kept beside it until the backfill is complete; required.").PlaceHolder("FILE").StringVar(&b.output)
	cmd.Flag("backfill.pages", "Also write the per-page series: a full walk per source, project and day (one request per --analytics.page-size paths), capped by --analytics.path-include/-exclude and --analytics.max-paths.").BoolVar(&b.pages)
	cmd.Flag("dry-run", "Print the requests and the time the backfill needs, and stop: nothing is sent.").BoolVar(&b.dryRun)
	cmd.Flag("resume", "Continue an interrupted or incomplete backfill (same arguments) from its journal: no finished day is asked again.").BoolVar(&b.resume)
	cmd.Flag("force", "Start over: replace --output and its journal.").BoolVar(&b.force)
	if rph := app.GetFlag("mintlify.requests-per-hour"); rph != nil {
		rph.IsSetByUser(&b.budgetSet)
	}
	return b
}

// demoBackfillPerHour is backfill's budget against the demo's fake, which
// has no hourly limit for it.
const demoBackfillPerHour = 100_000

// Selected reports whether cmd, the command kingpin selected, is backfill.
func (b *backfillCommand) Selected(cmd string) bool { return cmd == cmdBackfill }

// run runs the backfill and returns the exit code.
func (b *backfillCommand) run(ctx context.Context, f *flags, logger log.Logger, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "%s: error: %v\n", exporterName, err)
		return backfill.ExitError
	}
	if !b.budgetSet {
		f.requestsPerHour = backfill.DefaultRequestsPerHour
	}
	cfg, err := config(f, logger)
	if err != nil {
		return fail(err)
	}
	if !b.budgetSet && f.demo {
		// The demo's fake has no hourly limit for backfill: the quick
		// start finishes in seconds instead of spreading 30 days over hours.
		cfg.RequestsPerHour = demoBackfillPerHour
		fmt.Fprintln(stderr, "demo: the synthetic API has no hourly limit for backfill, so the request budget is lifted; against the real API backfill sends 40 requests an hour unless --mintlify.requests-per-hour says otherwise")
	}
	from, err := parseFlagDate("--from", b.from)
	if err != nil {
		return fail(err)
	}
	to, err := parseFlagDate("--to", b.to)
	if err != nil {
		return fail(err)
	}
	if cfg.RequestsPerHour > 100 && !f.demo {
		fmt.Fprintf(stderr, "warning: --mintlify.requests-per-hour=%d is above the API's limit of 100 per organization: expect 429 answers\n", cfg.RequestsPerHour)
	}
	var d *demo.Server
	if f.demo {
		d = demo.Start(time.Now, mintlifytest.WithRateLimit(0))
		defer d.Close()
		fmt.Fprintln(stderr, d.Banner())
	}
	key, projects, err := upstream(f, d, logger)
	if err != nil && b.dryRun {
		// A dry run sends nothing: it needs no key.
		if ids, perr := projectIDs(f); perr == nil && len(ids) > 0 {
			key, projects, err = noKey{}, ids, nil
		}
	}
	if err != nil {
		return fail(err)
	}
	budget := engine.NewBudget(cfg.RequestsPerHour, time.Now)
	c, err := client.New(client.Config{
		BaseURL: f.apiURL, Key: key, Timeout: cfg.Timeout, UserAgent: exporterName + "/" + version.Version,
		Hooks: client.Hooks{Allow: budget.Allow},
	})
	if err != nil {
		return fail(err)
	}
	sources, err := collector.Build(cfg.Collectors, c, collector.Options{
		PageSize: cfg.PageSize, MaxPages: exporter.MaxPages, PageConcurrency: exporter.PageConcurrency,
		Filter:           collector.PathFilter{Include: cfg.PathInclude, Exclude: cfg.PathExclude, MaxPaths: cfg.MaxPaths},
		SearchesTopTerms: cfg.SearchesTopTerms, ConversationsMaxPages: cfg.ConversationsMaxPages,
	})
	if err != nil {
		return fail(err)
	}
	// What decides the output besides the range, pages, projects and
	// sources: a resume with other values is refused.
	apiURL := "--mintlify.api-url=" + f.apiURL
	if f.demo {
		apiURL = "--demo" // its address changes with every run
	}
	args := []string{
		apiURL,
		"--analytics.path-include=" + regexpString(cfg.PathInclude),
		"--analytics.path-exclude=" + regexpString(cfg.PathExclude),
		"--analytics.max-paths=" + strconv.Itoa(cfg.MaxPaths),
		"--searches.top-terms=" + strconv.Itoa(cfg.SearchesTopTerms),
	}
	res, err := backfill.Run(ctx, backfill.Config{
		From: from, To: to, Output: b.output,
		Pages: b.pages, DryRun: b.dryRun, Resume: b.resume, Force: b.force, CacheFile: f.cacheFile,
		Sources: sources, Projects: projects, Budget: budget, Args: args,
		Protected: map[string]string{"--mintlify.api-key-file": f.apiKeyFile, "--cache.file": f.cacheFile, "--jobs.file": f.jobsFile},
		Out:       stdout, Progress: stderr, Terminal: isTerminal(stderr),
	})
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", exporterName, err)
	}
	return backfill.ExitCode(res, err)
}

// parseFlagDate parses a YYYY-MM-DD flag value; "" is the zero Date.
func parseFlagDate(flag, s string) (client.Date, error) {
	if s == "" {
		return client.Date{}, nil
	}
	d, err := client.ParseDate(s)
	if err != nil {
		return client.Date{}, fmt.Errorf("%s: %w", flag, err)
	}
	return d, nil
}

// regexpString is the expression of an optional regexp.
func regexpString(r *regexp.Regexp) string {
	if r == nil {
		return ""
	}
	return r.String()
}

// noKey is the key source of a dry run without a key: nothing is sent.
type noKey struct{}

// Key implements client.KeySource.
func (noKey) Key() (string, error) { return "", client.ErrNoKey }
