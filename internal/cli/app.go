package cli

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/alecthomas/kingpin/v2"

	"github.com/mintlify-exporter/mintlify_exporter/agentcmd"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/logging"
)

// flags holds every global flag, by group (flags_*.go), then the flags of
// the agent and backfill commands.
type flags struct {
	web         webFlags
	api         apiFlags
	analytics   analyticsFlags
	jobs        jobsFlags
	remediation remediationFlags
	stream      streamFlags
	cacheFile   string
	logLevel    string
	logFormat   string
	demo        bool
	agent       *agentcmd.Command
	backfill    *backfillCommand
}

// newAppVersion is newApp with the text --version prints; kingpin also puts
// that text into the .TH line of --help-man, which must be one line.
func newAppVersion(f *flags, versionText string) *kingpin.Application {
	app := kingpin.New(exporterName, "Prometheus exporter for Mintlify: documentation analytics ("+collector.DefaultNames()+") per site and page, and agent job status.")
	app.Version(versionText)
	app.HelpFlag.Short('h')
	app.UsageTemplate(usageTemplate)
	app.UsageFuncs(usageFuncs)

	for _, group := range []interface{ register(*kingpin.Application) }{&f.web, &f.api, &f.analytics, &f.jobs, &f.remediation, &f.stream} {
		group.register(app)
	}
	app.Flag("cache.file", "Persist the last good snapshots and the request ledger in this file, so a restart spends no request until a refresh is due.").PlaceHolder("FILE").StringVar(&f.cacheFile)
	app.Flag("log.level", "Only log messages with the given severity or above. One of: [debug, info, warn, error]").Default("info").EnumVar(&f.logLevel, logging.Levels...)
	app.Flag("log.format", "Output format of log messages. One of: [logfmt, json]").Default("logfmt").EnumVar(&f.logFormat, logging.Formats...)
	app.Flag("demo", "Serve synthetic data from an embedded fake Mintlify API; needs no key or project id.").Default("false").BoolVar(&f.demo)

	app.Command("serve", "Run the exporter (the default command).").Default()
	f.agent, f.backfill = agentcmd.Register(app), registerBackfill(app)
	return app
}

// intValue is an int flag: a decimal integer and nothing else, not read
// through float64 as kingpin's.
type intValue struct {
	name string // for errors: kingpin does not name the flag
	p    *int
}

func intVar(c *kingpin.FlagClause, p *int) { c.SetValue(&intValue{name: c.Model().Name, p: p}) }

func (v *intValue) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, strconv.IntSize)
	switch {
	case err == nil:
		*v.p = int(n)
		return nil
	case errors.Is(err, strconv.ErrRange):
		return fmt.Errorf("--%s=%s is out of range; give a smaller whole number", v.name, s)
	default:
		return fmt.Errorf("--%s=%q is not a whole number; give digits only, such as 90", v.name, s)
	}
}

func (v *intValue) String() string { return strconv.Itoa(*v.p) }
