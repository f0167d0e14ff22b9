package cli

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/go-kit/log"
	"github.com/go-kit/log/level"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/exporter"
)

// analyticsFlags are the flags of the analytics sources: --analytics.*
// (also accepted under their first, deprecated names --visitors.*),
// --collector.<source>, --searches.top-terms and --conversations.max-pages.
type analyticsFlags struct {
	// The flags shared by every analytics source.
	windows         []string
	refreshInterval time.Duration
	pageSize        int
	maxPaths        int
	pathInclude     string
	pathExclude     string
	// names are their suffixes, as declared; set and oldSet tell, by
	// suffix, which were given as --analytics.* and as --visitors.*.
	names            []string
	set, oldSet      map[string]*bool
	derivedWindows   bool
	collectors       map[string]*bool
	collectorSet     map[string]*bool // set by the user, on or off
	searchesTopTerms int
	convMaxPages     int
}

// maxRefreshInterval bounds --analytics.refresh-interval: beyond it a
// value is a typo, and time arithmetic on it could overflow.
const maxRefreshInterval = 30 * 24 * time.Hour

func (a *analyticsFlags) register(app *kingpin.Application) {
	a.set, a.oldSet = map[string]*bool{}, map[string]*bool{}
	walkFlag(a, app, "window", "Window to export, as N days ending today (UTC), or N days followed by :site for site-wide figures only at one request per source (30d:site); repeatable.", &a.windows, (*kingpin.FlagClause).StringsVar, "1d", "7d", "30d")
	walkFlag(a, app, "refresh-interval", "Shortest time between two refreshes of one source, project and window; the request budget may stretch it.", &a.refreshInterval, (*kingpin.FlagClause).DurationVar, "15m")
	paged := collector.List(func(d collector.Descriptor) string {
		if d.Paged {
			return d.Name
		}
		return ""
	})
	pageHelp := fmt.Sprintf("Rows requested per page of the offset-paged endpoints (%s; the API's limit, 1 to %d).", paged, client.MaxPageSize)
	walkFlag(a, app, "page-size", pageHelp, &a.pageSize, intVar, strconv.Itoa(client.MaxPageSize))
	walkFlag(a, app, "max-paths", "Per source, project and window, export only the top N paths; 0 exports all.", &a.maxPaths, intVar, "5000")
	walkFlag(a, app, "path-include", "Export only paths matching this Go regular expression (unanchored).", &a.pathInclude, (*kingpin.FlagClause).StringVar, "")
	walkFlag(a, app, "path-exclude", "Do not export paths matching this Go regular expression (unanchored).", &a.pathExclude, (*kingpin.FlagClause).StringVar, "")
	app.Flag("analytics.derived-windows", "Derive the 7d, 30d… windows of additive sources ("+collector.List(func(d collector.Descriptor) string { return d.Derived })+") from a store of closed days and today's 1d window, at almost no requests; --no-analytics.derived-windows reads every window whole.").Default("true").BoolVar(&a.derivedWindows)
	a.collectors, a.collectorSet = map[string]*bool{}, map[string]*bool{}
	for _, src := range collector.Sources {
		a.collectorSet[src.Name] = new(bool)
		a.collectors[src.Name] = app.Flag("collector."+src.Name, "Enable the "+src.Name+" source: "+src.Help+" ("+src.Cost+" per window).").
			Default(strconv.FormatBool(src.Default)).IsSetByUser(a.collectorSet[src.Name]).Bool()
	}
	intVar(app.Flag("searches.top-terms", "Also export the N most searched terms (1 to 100, still one request); 0 exports none. Terms are text typed by the public: mind cardinality and personal data.").Default("0"), &a.searchesTopTerms)
	intVar(app.Flag("conversations.max-pages", "Refuse (an error, nothing exported) a conversations walk longer than this many pages of 1,000 turns.").Default(strconv.Itoa(client.DefaultConversationsMaxPages)), &a.convMaxPages)
}

// walkFlag defines --analytics.NAME into p and its hidden, deprecated twin
// --visitors.NAME (no default), whose value replaces p's when given.
func walkFlag[T any](a *analyticsFlags, app *kingpin.Application, name, help string, p *T, define func(*kingpin.FlagClause, *T), defaults ...string) {
	a.names = append(a.names, name)
	a.set[name], a.oldSet[name] = new(bool), new(bool)
	define(app.Flag("analytics."+name, help).Default(defaults...).IsSetByUser(a.set[name]), p)
	old := new(T)
	define(app.Flag("visitors."+name, help).Hidden().IsSetByUser(a.oldSet[name]).Action(func(*kingpin.ParseContext) error { *p = *old; return nil }), old)
}

// config warns of the deprecated names (their values replaced the current
// ones at parse time), checks every value, naming the flag as typed, and sets
// the analytics fields of c; with the demo, every source not turned off.
func (a *analyticsFlags) config(demo bool, logger log.Logger, c *exporter.Config) error {
	for _, name := range a.names {
		if !*a.oldSet[name] {
			continue
		}
		if *a.set[name] {
			return fmt.Errorf("--visitors.%s and --analytics.%s are the same flag; keep --analytics.%s", name, name, name)
		}
		level.Warn(logger).Log("msg", fmt.Sprintf("--visitors.%s is deprecated; use --analytics.%s", name, name))
	}
	// The name the user typed, for messages.
	an := func(name string) string {
		if *a.oldSet[name] {
			return "--visitors." + name
		}
		return "--analytics." + name
	}
	c.RefreshInterval, c.DeriveWindows = a.refreshInterval, a.derivedWindows
	c.Sources = collector.Options{PageSize: a.pageSize, SearchesTopTerms: a.searchesTopTerms, ConversationsMaxPages: a.convMaxPages,
		Filter: collector.PathFilter{MaxPaths: a.maxPaths}}
	for _, s := range a.windows {
		win, err := engine.ParseWindow(s)
		if err != nil {
			return fmt.Errorf("%s: %w", an("window"), err)
		}
		if slices.ContainsFunc(c.Windows, func(w engine.Window) bool { return w.Name == win.Name }) {
			return fmt.Errorf("%s: %s is given twice (a window and its :site form export the same series)", an("window"), win.Name)
		}
		c.Windows = append(c.Windows, win)
	}
	for _, p := range []struct {
		name, expr string
		re         **regexp.Regexp
	}{{"path-include", a.pathInclude, &c.Sources.Filter.Include}, {"path-exclude", a.pathExclude, &c.Sources.Filter.Exclude}} {
		var err error
		if p.expr == "" {
			continue
		}
		if *p.re, err = regexp.Compile(p.expr); err != nil {
			return fmt.Errorf("%s: %w", an(p.name), err)
		}
	}
	switch {
	case a.maxPaths < 0:
		return fmt.Errorf("%s must be 0 (all) or more, not %d", an("max-paths"), a.maxPaths)
	case a.pageSize < 1 || a.pageSize > client.MaxPageSize:
		return fmt.Errorf("%s must be from 1 to %d, not %d", an("page-size"), client.MaxPageSize, a.pageSize)
	case a.refreshInterval <= 0 || a.refreshInterval > maxRefreshInterval:
		return fmt.Errorf("%s must be positive and at most %s, not %s", an("refresh-interval"), maxRefreshInterval, a.refreshInterval)
	case a.searchesTopTerms < 0 || a.searchesTopTerms > client.MaxSearchesLimit:
		return fmt.Errorf("--searches.top-terms must be from 0 (none) to %d, not %d", client.MaxSearchesLimit, a.searchesTopTerms)
	case a.convMaxPages < 1:
		return fmt.Errorf("--conversations.max-pages must be at least 1, not %d", a.convMaxPages)
	}
	for _, src := range collector.Sources {
		if *a.collectors[src.Name] || demo && !*a.collectorSet[src.Name] {
			c.Collectors = append(c.Collectors, src.Name)
		}
	}
	return nil
}
