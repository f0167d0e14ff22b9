package collector

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/derived"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/exposition"
)

// PathFilter selects and caps the paths a per-page source exports.
type PathFilter struct {
	Include *regexp.Regexp
	Exclude *regexp.Regexp
	// MaxPaths keeps the top MaxPaths paths; 0 keeps all.
	MaxPaths int
}

func (f PathFilter) keeps(path string) bool {
	return (f.Include == nil || f.Include.MatchString(path)) && (f.Exclude == nil || !f.Exclude.MatchString(path))
}

// selectPaths sanitizes (merging equal paths), filters (in place), orders by
// key then path, and caps rows; distinct counts the paths before filtering.
// For unique rows (a walk's), the set of paths seen, as costly as sorting, is
// built only when sanitizing changed one.
func selectPaths[R any](rows []R, path func(*R) *string, key func(*R) float64, f PathFilter, unique bool) (kept []R, distinct int) {
	check := !unique
	for i := range rows {
		p := path(&rows[i])
		if s := exposition.SanitizeLabel(*p); s != *p {
			*p, check = s, true
		}
	}
	var seen map[string]struct{}
	if check {
		seen = make(map[string]struct{}, len(rows))
	}
	kept = rows[:0]
	for _, r := range rows {
		p := path(&r)
		if check {
			if _, dup := seen[*p]; dup {
				continue
			}
			seen[*p] = struct{}{}
		}
		distinct++
		if f.keeps(*p) {
			kept = append(kept, r)
		}
	}
	// Sorting pointers: comparing rows by value moves each to the heap.
	order := make([]*R, len(kept))
	for i := range kept {
		order[i] = &kept[i]
	}
	slices.SortStableFunc(order, func(a, b *R) int { return cmp.Or(cmp.Compare(key(b), key(a)), strings.Compare(*path(a), *path(b))) })
	if f.MaxPaths > 0 {
		order = order[:min(len(order), f.MaxPaths)]
	}
	out := make([]R, len(order)) // a copy: the rows cut are freed with rows
	for i := range out {
		out[i] = *order[i]
	}
	return out, distinct
}

// Paths is a source of an offset-paged export, site-wide and per page:
// visitors (unique visitors, which do not add up over pages or days) or
// views (page view events; traffic "other" makes sum() over traffic the
// total). A site window is one request; a full window a client.PathsWalk.
type Paths struct {
	base
	ep client.Endpoint
	// build sets out's samples but the paths counts (setPathCounts).
	build  func(u engine.Unit, t client.Counts, rows []client.PathCounts, out *engine.Result)
	page   client.PageFunc // (*client.Client).PathsPage in the exporter
	walk   client.WalkOptions
	filter PathFilter
}

// visitors and views are what tells the two apart; newPaths copies them.
var (
	visitors = &Paths{base: base{name: "visitors", families: visitorsFamilies}, ep: client.EndpointVisitors, build: buildVisitors}
	views    = &Paths{base: base{name: "views", families: viewsFamilies, additive: true}, ep: client.EndpointViews, build: buildViews}
)

var (
	visitorsSource = Descriptor{Name: visitors.name, Endpoint: visitors.ep, Default: true, Paged: true,
		Help: "unique visitors, site-wide and per page", Cost: pathsCost, New: visitors.source}
	viewsSource = Descriptor{Name: views.name, Endpoint: views.ep, Default: true, Paged: true, Derived: "views",
		Help: "page view events, site-wide and per page", Cost: pathsCost, New: views.source}
)

const pathsCost = "1 request per 250 paths"

func (k *Paths) source(c *client.Client, o Options) engine.Source { return newPaths(k, c.PathsPage, o) }

// NewVisitors returns the visitors source, which reads its pages with page.
func NewVisitors(page client.PageFunc, o Options) *Paths { return newPaths(visitors, page, o) }

func newPaths(k *Paths, page client.PageFunc, o Options) *Paths {
	p := *k
	p.page, p.filter = page, o.Filter
	// A walk may stop at the top MaxPaths (0: never) when rows come sorted by total.
	p.walk = client.WalkOptions{PageSize: o.PageSize, MaxPages: o.MaxPages, Top: o.Filter.MaxPaths, Keep: o.Filter.keeps}
	return &p
}

// The visitors families, in exposition order.
const (
	visVisitors = iota
	visVisitorsDedup
	visPage
	visPageDedup
	visPaths
	visPathsExported
)

var visitorsFamilies = []engine.Family{
	visVisitors: {SiteWide: true, Name: "mintlify_visitors",
		Help:   "Site-wide unique visitors over the window, by traffic (human or ai).",
		Labels: []string{"traffic"}},
	visVisitorsDedup: {SiteWide: true, Name: "mintlify_visitors_deduplicated",
		Help: "Site-wide unique visitors over the window, deduplicated across human and AI traffic."},
	visPage: {Name: "mintlify_page_visitors",
		Help:   "Unique visitors of one page over the window, by traffic (human or ai).",
		Labels: []string{"path", "traffic"}},
	visPageDedup: {Name: "mintlify_page_visitors_deduplicated",
		Help:   "Unique visitors of one page over the window, deduplicated across human and AI traffic.",
		Labels: []string{"path"}},
	visPaths: {Name: "mintlify_visitors_paths",
		Help: "Distinct paths the visitors export returned at the last refresh."},
	visPathsExported: {Name: "mintlify_visitors_paths_exported",
		Help: "Paths of the visitors export exported after the path filters and --analytics.max-paths."},
}

// The views families, in exposition order.
const (
	viewsSite = iota
	viewsPage
	viewsPaths
	viewsPathsExported
)

var viewsFamilies = []engine.Family{
	viewsSite: {SiteWide: true, Name: "mintlify_views",
		Help:   "Site-wide page view events over the window, by traffic (human, ai, other).",
		Labels: []string{"traffic"}},
	viewsPage: {Name: "mintlify_page_views",
		Help:   "Page view events of one page over the window, by traffic (human, ai, other).",
		Labels: []string{"path", "traffic"}},
	viewsPaths: {Name: "mintlify_views_paths",
		Help: "Distinct paths the views export returned at the last refresh."},
	viewsPathsExported: {Name: "mintlify_views_paths_exported",
		Help: "Paths of the views export exported after the path filters and --analytics.max-paths."},
}

// CostGroup implements engine.CostGrouper: before its first walk, a
// unit's cost is estimated from the other paths source's.
func (*Paths) CostGroup() string { return "paths" }

// SplitsTotals implements engine.Splitter.
func (*Paths) SplitsTotals() bool { return true }

// Walks implements engine.Stepper: a full window is walked a page at a time.
func (*Paths) Walks(u engine.Unit) bool { return !u.Window.Site }

// Fetch implements engine.Source: the site window's one request, or a
// full window's walk to its end.
func (p *Paths) Fetch(ctx context.Context, u engine.Unit, r client.DateRange, prevCost int) (*engine.Result, error) {
	if u.Window.Site {
		page, err := p.page(ctx, p.ep, u.Project, client.PathsQuery{Range: r, Limit: 1})
		if err != nil {
			return nil, err
		}
		return p.site(u, page.Totals, page.Skipped), nil
	}
	w, err := p.Begin(u, r, prevCost)
	if err != nil {
		return nil, err
	}
	if _, err := w.(*pathsWalk).All(ctx); err != nil {
		return nil, err
	}
	return w.Result()
}

// site returns the result of u's site window from its totals.
func (p *Paths) site(u engine.Unit, t client.Counts, skipped client.Skipped) *engine.Result {
	u.Window.Site = true
	out := &engine.Result{Samples: make([][]engine.Sample, len(p.families)), Cost: 1, Skipped: skipped, Summary: "site-wide totals"}
	p.build(u, t, nil, out)
	return out
}

// Begin implements engine.Stepper.
func (p *Paths) Begin(u engine.Unit, r client.DateRange, _ int) (engine.Walk, error) {
	if u.Window.Site {
		return nil, nil
	}
	w, err := client.NewWalk(p.page, p.ep, u.Project, r, p.walk)
	if err != nil {
		return nil, err
	}
	return &pathsWalk{PathsWalk: w, u: u, src: p}, nil
}

// Resume implements engine.Resumer: it continues a full window's walk from
// the progress a walk of the same unit gave, of the same endpoint and
// project.
func (p *Paths) Resume(u engine.Unit, pr client.WalkProgress, _ int) (engine.Walk, error) {
	switch {
	case u.Window.Site:
		return nil, fmt.Errorf("%s of project %q is not walked a page at a time", u.Source, u.Project)
	case pr.Endpoint != p.ep.String() || pr.Project != u.Project:
		return nil, fmt.Errorf("a %s walk of project %q is not one of %s of project %q", pr.Endpoint, pr.Project, p.ep, u.Project)
	}
	w, err := client.ResumeWalk(p.page, pr, p.walk)
	if err != nil {
		return nil, err
	}
	return &pathsWalk{PathsWalk: w, u: u, src: p}, nil
}

// pathsWalk is the engine.Walk of a full window of a paths source: the
// client's walk, whose Step, Sent and Progress it keeps, with the unit.
type pathsWalk struct {
	*client.PathsWalk
	u   engine.Unit
	src *Paths
}

// Totals implements engine.Walk: the first page's totals.
func (w *pathsWalk) Totals() *engine.Result {
	t, ok := w.PathsWalk.Totals()
	if !ok {
		return nil
	}
	return w.src.site(w.u, t, nil)
}

// Result implements engine.Walk.
func (w *pathsWalk) Result() (*engine.Result, error) {
	res := w.PathsWalk.Result()
	if res == nil {
		return nil, fmt.Errorf("%s walk of project %q is not complete", w.u.Source, w.u.Project)
	}
	rows, distinct := selectPaths(res.Rows, func(r *client.PathCounts) *string { return &r.Path },
		func(r *client.PathCounts) float64 { return r.Total }, w.src.filter, true)
	out := &engine.Result{Samples: make([][]engine.Sample, len(w.src.families)), Cost: res.Pages, Skipped: res.Skipped,
		Summary: fmt.Sprintf("%d paths, %d exported", distinct, len(rows))}
	if res.Stopped {
		out.Summary = fmt.Sprintf("top %d exported; rows came sorted, so the walk stopped after %d paths", len(rows), distinct)
	}
	w.src.build(w.u, res.Totals, rows, out)
	setPathCounts(out, distinct, len(rows))
	return out, nil
}

// setPathCounts sets the paths and paths exported families, the last two
// of both sources.
func setPathCounts(out *engine.Result, distinct, exported int) {
	n := len(out.Samples)
	out.Samples[n-2] = []engine.Sample{{Value: float64(distinct)}}
	out.Samples[n-1] = []engine.Sample{{Value: float64(exported)}}
}

func buildVisitors(u engine.Unit, t client.Counts, rows []client.PathCounts, out *engine.Result) {
	if !u.Window.Site {
		page := make([]engine.Sample, 0, 2*len(rows))
		dedup := make([]engine.Sample, 0, len(rows))
		for _, r := range rows {
			page = append(page,
				engine.Sample{Labels: [2]string{r.Path, "human"}, Value: r.Human},
				engine.Sample{Labels: [2]string{r.Path, "ai"}, Value: r.AI})
			dedup = append(dedup, engine.Sample{Labels: [2]string{r.Path}, Value: r.Total})
		}
		out.Samples[visPage], out.Samples[visPageDedup] = page, dedup
	}
	out.Samples[visVisitors] = []engine.Sample{
		{Labels: [2]string{"human"}, Value: t.Human},
		{Labels: [2]string{"ai"}, Value: t.AI},
	}
	out.Samples[visVisitorsDedup] = []engine.Sample{{Value: t.Total}}
}

func buildViews(u engine.Unit, t client.Counts, rows []client.PathCounts, out *engine.Result) {
	if !u.Window.Site {
		page := make([]engine.Sample, 0, 3*len(rows))
		for _, r := range rows {
			page = appendKinds(page, r.Path, traffic, []float64{r.Human, r.AI}, r.Total, "other")
		}
		out.Samples[viewsPage] = page
	}
	out.Samples[viewsSite] = appendKinds(nil, "", traffic, []float64{t.Human, t.AI}, t.Total, "other")
}

// traffic are the views' kinds of traffic, but the rest ("other").
var traffic = []string{"human", "ai"}

// Sum implements derived.Summer for views (visitors are not Additive): paths ranked by summed total and cut to
// --analytics.max-paths, as a direct read would.
func (v *Paths) Sum(u engine.Unit, days []*engine.Result) *engine.Result {
	out := v.base.Sum(u, days)
	if u.Window.Site {
		return out
	}
	page := out.Samples[viewsPage]
	total := map[string]float64{}
	for _, s := range page {
		total[s.Labels[0]] += s.Value
	}
	paths := slices.SortedFunc(maps.Keys(total), func(a, b string) int { return cmp.Or(cmp.Compare(total[b], total[a]), strings.Compare(a, b)) })
	distinct := len(paths)
	if v.filter.MaxPaths > 0 && len(paths) > v.filter.MaxPaths {
		paths = paths[:v.filter.MaxPaths]
	}
	rank := make(map[string]int, len(paths)) // 1 for the first path, 0 for a path cut
	for i, p := range paths {
		rank[p] = i + 1
	}
	kept := slices.DeleteFunc(page, func(s engine.Sample) bool { return rank[s.Labels[0]] == 0 })
	slices.SortStableFunc(kept, func(a, b engine.Sample) int { return cmp.Compare(rank[a.Labels[0]], rank[b.Labels[0]]) })
	out.Samples[viewsPage] = kept
	setPathCounts(out, distinct, len(paths))
	return out
}

var (
	_ engine.Resumer   = (*Paths)(nil)
	_ derived.Summer   = (*Paths)(nil)
	_ engine.Resumable = (*pathsWalk)(nil)
)
