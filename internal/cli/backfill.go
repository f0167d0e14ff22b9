package cli

// The "backfill" command's flags; package backfill does the work.

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/backfill"
	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
)

// backfillCommand holds the backfill command's flags.
type backfillCommand struct {
	from, to, output             string
	pages, dryRun, resume, force bool
	labels                       []string
	// The --remote-write.* flags.
	rwURL, rwConfig, rwJournal string
	rwJournalSet               bool
}

// cmdBackfill is the command's name as kingpin reports it.
const cmdBackfill = "backfill"

// registerBackfill adds the backfill command and its flags to app.
func registerBackfill(app *kingpin.Application) *backfillCommand {
	b := &backfillCommand{}
	cmd := app.Command(cmdBackfill, fmt.Sprintf(
		"Write past days of analytics as OpenMetrics for 'promtool tsdb create-blocks-from openmetrics', or send them by remote write (--remote-write.url): "+
			"each completed UTC day of --from..--to, under the live metric names with window=\"1d\" and the live target labels (job=\"mintlify\"), stamped with the day's last second. "+
			"Site-wide figures cost one request per source, project and day (90 days × 4 sources = 360 requests = 9 hours at 40 an hour). "+
			"Here --mintlify.requests-per-hour defaults to %d; beside a live exporter the two must add up to %d or less. "+
			"With --stream.s3.bucket (and the other --stream.* flags as the exporter's), the history comes from the event stream instead, with no API request: "+
			"the mintlify_stream_* counters over --from..--to, a sample every 5 minutes of event time, and the daily visitor gauges, written to --output or sent by --remote-write.url (docs/backfill.md).",
		backfill.DefaultRequestsPerHour, client.AnalyticsRequestsPerHour))
	cmd.Flag("from", "First day to backfill (YYYY-MM-DD, UTC); required.").PlaceHolder("DATE").StringVar(&b.from)
	cmd.Flag("to", "Last day to backfill (YYYY-MM-DD, UTC), included; default yesterday, the last completed day.").PlaceHolder("DATE").StringVar(&b.to)
	cmd.Flag("output", "OpenMetrics file to write; its journal FILE.journal is kept beside it until the backfill is complete; required unless --remote-write.url.").PlaceHolder("FILE").StringVar(&b.output)
	cmd.Flag("backfill.label", "Target label of every backfilled series, NAME=VALUE, repeatable: the labels the live series get from their scrape, so that history and live data are one series. Default job=mintlify (the shipped scrape config's and chart's job); NAME= with no value removes one.").PlaceHolder("NAME=VALUE").StringsVar(&b.labels)
	cmd.Flag("remote-write.url", "Send the samples by Prometheus remote write (1.0) to this write endpoint instead of writing --output, each day once fetched, oldest first: Prometheus' receiver (http://HOST:9090/api/v1/write, with --web.enable-remote-write-receiver), Mimir, Thanos Receive, VictoriaMetrics. The receiver must accept samples as old as --from (see docs/backfill.md).").PlaceHolder("URL").StringVar(&b.rwURL)
	cmd.Flag("remote-write.config", "YAML file with the HTTP settings of remote write, in the format of Prometheus' remote_write (basic_auth, authorization, bearer token or password files, tls_config, proxy_url, headers such as X-Scope-OrgID, remote_timeout); without url.").PlaceHolder("FILE").StringVar(&b.rwConfig)
	cmd.Flag("remote-write.journal", "Journal of a remote-write backfill: what was fetched and what the receiver accepted, kept until every day is sent; --resume continues from it.").Default("backfill-remote-write.journal").PlaceHolder("FILE").IsSetByUser(&b.rwJournalSet).StringVar(&b.rwJournal)
	cmd.Flag("backfill.pages", "Also write the per-page series: a full walk per source, project and day (one request per --analytics.page-size paths), capped by --analytics.path-include/-exclude and --analytics.max-paths.").BoolVar(&b.pages)
	cmd.Flag("dry-run", "Print the requests and the time the backfill needs, and stop: nothing is sent.").BoolVar(&b.dryRun)
	cmd.Flag("resume", "Continue an interrupted or incomplete backfill (same arguments) from its journal: no finished day is asked again.").BoolVar(&b.resume)
	cmd.Flag("force", "Start over: replace --output and its journal.").BoolVar(&b.force)
	return b
}

// run runs the backfill and returns the exit code.
func (b *backfillCommand) run(ctx context.Context, f *flags, logger log.Logger, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, errorPrefix+err.Error())
		return backfill.ExitError
	}
	if f.stream.bucket != "" {
		return b.runStream(ctx, f, logger, stdout, stderr)
	}
	// The exporter's configuration with backfill's budget, by default less
	// than the exporter's so that both can run side by side.
	if !f.api.requestsPerHourSet {
		f.api.requestsPerHour = backfill.DefaultRequestsPerHour
	}
	cfg, err := config(f, logger)
	if err != nil {
		return fail(err)
	}
	if !f.api.requestsPerHourSet && f.demo {
		cfg.RequestsPerHour = 100_000 // the demo's fake has no hourly limit for backfill
		fmt.Fprintf(stderr, "demo: the synthetic API has no hourly limit for backfill, so the request budget is lifted; against the real API backfill sends %d requests an hour unless --mintlify.requests-per-hour says otherwise\n", backfill.DefaultRequestsPerHour)
	}
	// The backfill's own flags.
	bc := backfill.Config{Output: b.output, Journal: b.rwJournal, CacheFile: f.cacheFile,
		Pages: b.pages, DryRun: b.dryRun, Resume: b.resume, Force: b.force,
		Out: stdout, Progress: stderr, Terminal: isTerminal(stderr)}
	if bc.From, err = parseFlagDate("--from", b.from); err != nil {
		return fail(err)
	}
	if bc.Labels, err = backfill.MergeLabels(b.labels); err != nil {
		return fail(err)
	}
	switch {
	case b.rwURL != "":
		if bc.RemoteWrite, err = backfill.NewRemoteWriter(b.rwURL, b.rwConfig, userAgent()); err != nil {
			return fail(err)
		}
	case b.rwConfig != "":
		return fail(fmt.Errorf("--remote-write.config=%s is set without --remote-write.url", b.rwConfig))
	case b.rwJournalSet:
		return fail(fmt.Errorf("--remote-write.journal=%s is set without --remote-write.url (the journal of --output is FILE.journal)", b.rwJournal))
	}
	if bc.To, err = parseFlagDate("--to", b.to); err != nil {
		return fail(err)
	}
	conn, err := f.api.connect(f.demo, forBackfill, logger)
	if err != nil && b.dryRun { // a dry run sends nothing, so it needs no key
		if ids, perr := f.api.projects(); perr == nil && len(ids) > 0 {
			conn, err = connection{apiURL: f.api.url, key: noKey{}, projects: ids}, nil
		}
	}
	if err != nil {
		return fail(err)
	}
	defer conn.close()
	if conn.demo != nil {
		fmt.Fprintln(stderr, conn.demo.Banner())
	}
	bc.Budget = budget.New(cfg.RequestsPerHour, time.Now)
	c, err := conn.client(cfg.Timeout, client.Hooks{Allow: bc.Budget.Allow})
	if err != nil {
		return fail(err)
	}
	if bc.Sources, err = collector.Build(cfg.Collectors, c, cfg.Sources); err != nil {
		return fail(err)
	}
	bc.Projects = conn.projects
	// Besides the range, pages, projects and sources, these decide the
	// output: a resume with other values is refused.
	apiURL := "--mintlify.api-url=" + f.api.url
	if f.demo {
		apiURL = "--demo" // its address changes with every run
	}
	bc.Args = []string{
		apiURL,
		"--analytics.path-include=" + f.analytics.pathInclude,
		"--analytics.path-exclude=" + f.analytics.pathExclude,
		"--analytics.max-paths=" + strconv.Itoa(f.analytics.maxPaths),
		"--searches.top-terms=" + strconv.Itoa(f.analytics.searchesTopTerms),
	}
	bc.Protected = map[string]string{"--mintlify.api-key-file": f.api.keyFile, "--cache.file": f.cacheFile, "--jobs.file": f.jobs.file, "--remote-write.config": b.rwConfig}
	res, err := backfill.Run(ctx, bc)
	if err != nil {
		fmt.Fprintln(stderr, errorPrefix+err.Error())
	}
	return backfill.ExitCode(res, err)
}

// parseFlagDate parses a YYYY-MM-DD flag value; "" is the zero Date.
func parseFlagDate(flag, s string) (d client.Date, err error) {
	if s != "" {
		if d, err = client.ParseDate(s); err != nil {
			err = fmt.Errorf("%s: %w", flag, err)
		}
	}
	return d, err
}

// noKey is the key source of a dry run without a key: nothing is sent.
type noKey struct{}

// Key implements client.KeySource.
func (noKey) Key() (string, error) { return "", client.ErrNoKey }
