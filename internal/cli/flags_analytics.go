package cli

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/go-kit/log"
	"github.com/go-kit/log/level"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/internal/intflag"
)

// analyticsFlags are the flags of the analytics sources: --analytics.*
// (also accepted under their first, deprecated names --visitors.*),
// --collector.<source>, --searches.top-terms and --conversations.max-pages.
type analyticsFlags struct {
	current, deprecated walkFlags
	derivedWindows      bool
	collectors          map[string]*bool
	collectorSet        map[string]*bool // set by the user, on or off
	searchesTopTerms    int
	convMaxPages        int
}

// walkFlags are the flags shared by every analytics source, under one
// prefix.
type walkFlags struct {
	prefix          string
	windows         []string
	refreshInterval time.Duration
	pageSize        int
	maxPaths        int
	pathInclude     string
	pathExclude     string
	set             map[string]*bool // which were given, by flag suffix
}

// maxRefreshInterval bounds --analytics.refresh-interval: beyond it a
// value is a typo, and time arithmetic on it could overflow.
const maxRefreshInterval = 30 * 24 * time.Hour

func (a *analyticsFlags) register(app *kingpin.Application) {
	a.current.register(app, "analytics", false)
	a.deprecated.register(app, "visitors", true)
	app.Flag("analytics.derived-windows", "Derive the 7d, 30d… windows of additive sources ("+collector.List(func(d collector.Descriptor) string { return d.Derived })+") from a store of closed days and today's 1d window, at almost no requests; --no-analytics.derived-windows reads every window whole.").Default("true").BoolVar(&a.derivedWindows)
	a.collectors, a.collectorSet = map[string]*bool{}, map[string]*bool{}
	for _, src := range collector.Sources {
		c := app.Flag("collector."+src.Name, "Enable the "+src.Name+" source: "+src.Help+" ("+src.Cost+" per window).").Default(strconv.FormatBool(src.Default))
		a.collectorSet[src.Name] = new(bool)
		c.IsSetByUser(a.collectorSet[src.Name])
		a.collectors[src.Name] = c.Bool()
	}
	intflag.Var(app.Flag("searches.top-terms", "Also export the N most searched terms (1 to 100, still one request); 0 exports none. Terms are text typed by the public: mind cardinality and personal data.").Default("0"), &a.searchesTopTerms)
	intflag.Var(app.Flag("conversations.max-pages", "Refuse (an error, nothing exported) a conversations walk longer than this many pages of 1,000 turns.").Default(strconv.Itoa(client.DefaultConversationsMaxPages)), &a.convMaxPages)
}

// register defines the shared flags under prefix; the deprecated prefix
// hides them and gives them no defaults.
func (w *walkFlags) register(app *kingpin.Application, prefix string, hidden bool) {
	w.prefix, w.set = prefix, map[string]*bool{}
	flag := func(name, help string, defaults ...string) *kingpin.FlagClause {
		c := app.Flag(prefix+"."+name, help)
		w.set[name] = new(bool)
		c.IsSetByUser(w.set[name])
		if hidden {
			c.Hidden()
		} else if len(defaults) > 0 {
			c.Default(defaults...)
		}
		return c
	}
	flag("window", "Window to export, as N days ending today (UTC), or N days followed by :site for site-wide figures only at one request per source (30d:site); repeatable.", "1d", "7d", "30d").StringsVar(&w.windows)
	flag("refresh-interval", "Shortest time between two refreshes of one source, project and window; the request budget may stretch it.", "15m").DurationVar(&w.refreshInterval)
	intflag.Var(flag("page-size", fmt.Sprintf("Rows requested per page of the offset-paged endpoints (%s; the API's limit, 1 to %d).", pagedNames(), client.MaxPageSize), strconv.Itoa(client.MaxPageSize)), &w.pageSize)
	intflag.Var(flag("max-paths", "Per source, project and window, export only the top N paths; 0 exports all.", "5000"), &w.maxPaths)
	flag("path-include", "Export only paths matching this Go regular expression (unanchored).", "").StringVar(&w.pathInclude)
	flag("path-exclude", "Do not export paths matching this Go regular expression (unanchored).", "").StringVar(&w.pathExclude)
}

// analyticsConfig is what the analytics flags configure.
type analyticsConfig struct {
	windows         []engine.Window
	refreshInterval time.Duration
	sources         collector.Options
	derive          bool
	// collectors are the enabled sources; with the demo, every source the
	// user did not turn off.
	collectors []string
}

// config merges the deprecated names into the current ones (with a
// warning), checks every value, naming the flag as the user typed it, and
// returns the configuration.
func (a *analyticsFlags) config(demo bool, logger log.Logger) (analyticsConfig, error) {
	w := a.current
	for name, set := range a.deprecated.set {
		if !*set {
			continue
		}
		if *w.set[name] {
			return analyticsConfig{}, fmt.Errorf("--visitors.%s and --analytics.%s are the same flag; keep --analytics.%s", name, name, name)
		}
		level.Warn(logger).Log("msg", fmt.Sprintf("--visitors.%s is deprecated; use --analytics.%s", name, name))
		d := a.deprecated
		switch name {
		case "window":
			w.windows = d.windows
		case "refresh-interval":
			w.refreshInterval = d.refreshInterval
		case "page-size":
			w.pageSize = d.pageSize
		case "max-paths":
			w.maxPaths = d.maxPaths
		case "path-include":
			w.pathInclude = d.pathInclude
		case "path-exclude":
			w.pathExclude = d.pathExclude
		}
	}
	// The name the user typed, for messages.
	an := func(name string) string {
		if *a.deprecated.set[name] {
			return "--visitors." + name
		}
		return "--analytics." + name
	}
	c := analyticsConfig{refreshInterval: w.refreshInterval, derive: a.derivedWindows,
		sources: collector.Options{PageSize: w.pageSize, SearchesTopTerms: a.searchesTopTerms, ConversationsMaxPages: a.convMaxPages,
			Filter: collector.PathFilter{MaxPaths: w.maxPaths}}}
	if len(w.windows) == 0 {
		return c, fmt.Errorf("%s: no window given", an("window"))
	}
	seen := map[string]bool{}
	for _, s := range w.windows {
		win, err := engine.ParseWindow(s)
		if err != nil {
			return c, fmt.Errorf("%s: %w", an("window"), err)
		}
		if seen[win.Name] {
			return c, fmt.Errorf("%s: %s is given twice (a window and its :site form export the same series)", an("window"), win.Name)
		}
		seen[win.Name] = true
		c.windows = append(c.windows, win)
	}
	var err error
	if c.sources.Filter.Include, err = compileOptional(w.pathInclude); err != nil {
		return c, fmt.Errorf("%s: %w", an("path-include"), err)
	}
	if c.sources.Filter.Exclude, err = compileOptional(w.pathExclude); err != nil {
		return c, fmt.Errorf("%s: %w", an("path-exclude"), err)
	}
	switch {
	case w.maxPaths < 0:
		return c, fmt.Errorf("%s must be 0 (all) or more, not %d", an("max-paths"), w.maxPaths)
	case w.pageSize < 1 || w.pageSize > client.MaxPageSize:
		return c, fmt.Errorf("%s must be from 1 to %d, not %d", an("page-size"), client.MaxPageSize, w.pageSize)
	case w.refreshInterval <= 0 || w.refreshInterval > maxRefreshInterval:
		return c, fmt.Errorf("%s must be positive and at most %s, not %s", an("refresh-interval"), maxRefreshInterval, w.refreshInterval)
	case a.searchesTopTerms < 0 || a.searchesTopTerms > client.MaxSearchesLimit:
		return c, fmt.Errorf("--searches.top-terms must be from 0 (none) to %d, not %d", client.MaxSearchesLimit, a.searchesTopTerms)
	case a.convMaxPages < 1:
		return c, fmt.Errorf("--conversations.max-pages must be at least 1, not %d", a.convMaxPages)
	}
	for _, src := range collector.Sources {
		if *a.collectors[src.Name] || demo && !*a.collectorSet[src.Name] {
			c.collectors = append(c.collectors, src.Name)
		}
	}
	return c, nil
}

// pagedNames lists the sources of offset-paged endpoints.
func pagedNames() string {
	return collector.List(func(d collector.Descriptor) string {
		if d.Paged {
			return d.Name
		}
		return ""
	})
}

// compileOptional compiles a regular expression flag; "" is none.
func compileOptional(expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	return regexp.Compile(expr)
}

// errNothingToExport is the refusal when every source and the job watcher
// are off.
var errNothingToExport = errors.New("nothing to export: every source is off (--no-collector.*) and --collector.jobs is not set; turn one on")
