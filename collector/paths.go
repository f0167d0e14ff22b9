package collector

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/engine/exposition"
)

// PathFilter selects and caps the paths a per-page source exports.
type PathFilter struct {
	Include *regexp.Regexp
	Exclude *regexp.Regexp
	// MaxPaths keeps the top MaxPaths paths; 0 keeps all.
	MaxPaths int
}

// keeps reports whether the include and exclude patterns keep path.
func (f PathFilter) keeps(path string) bool {
	return (f.Include == nil || f.Include.MatchString(path)) && (f.Exclude == nil || !f.Exclude.MatchString(path))
}

// selectPaths sanitizes (merging equal paths), filters, orders by key then
// path, and caps rows; distinct counts the paths before filtering.
func selectPaths[R any](rows []R, path func(*R) *string, key func(*R) float64, f PathFilter) (kept []R, distinct int) {
	return selectPathsOf(rows, path, key, f, false)
}

// selectPathsOf filters rows in place; unique (a walk's rows) builds the set
// of paths seen, as costly as sorting, only when sanitizing changed one.
func selectPathsOf[R any](rows []R, path func(*R) *string, key func(*R) float64, f PathFilter, unique bool) (kept []R, distinct int) {
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
	slices.SortStableFunc(order, func(a, b *R) int {
		if c := cmp.Compare(key(b), key(a)); c != 0 {
			return c
		}
		return strings.Compare(*path(a), *path(b))
	})
	n := len(order)
	if f.MaxPaths > 0 {
		n = min(n, f.MaxPaths)
	}
	out := make([]R, n) // a copy: the rows cut are freed with rows
	for i := range out {
		out[i] = *order[i]
	}
	return out, distinct
}

// pathsUnit is what one unit of a paths source read.
type pathsUnit struct {
	totals   client.Counts
	rows     []client.PathCounts // nil for a site window
	distinct int                 // distinct paths before filtering
}

// fetchPaths reads one unit of visitors or views: a site window is one row
// for its totals, a full window a walk whose rows selectPaths keeps.
func fetchPaths(ctx context.Context, u engine.Unit, r client.DateRange, prevCost int,
	one func(context.Context, string, client.PathsQuery) (*client.PathsPage, error),
	walk func(context.Context, string, client.DateRange, client.WalkOptions) (*client.PathsResult, error),
	o client.WalkOptions, f PathFilter, out *engine.Result) (pathsUnit, error) {
	if u.Window.Site {
		page, err := one(ctx, u.Project, client.PathsQuery{Range: r, Limit: 1})
		if err != nil {
			return pathsUnit{}, err
		}
		out.Cost, out.Summary, out.Skipped = 1, "site-wide totals", page.Skipped
		return pathsUnit{totals: page.Totals}, nil
	}
	res, err := walk(ctx, u.Project, r, walkOptions(o, prevCost, f))
	if err != nil {
		return pathsUnit{}, err
	}
	return finishPaths(res, f, out), nil
}

// walkOptions may stop at the top MaxPaths when rows come sorted by total.
func walkOptions(o client.WalkOptions, prevCost int, f PathFilter) client.WalkOptions {
	o.KnownPages = prevCost
	if f.MaxPaths > 0 {
		o.Top, o.Keep = f.MaxPaths, f.keeps
	}
	return o
}

// finishPaths keeps a walk's rows and sets out's Cost, Summary and Skipped.
func finishPaths(res *client.PathsResult, f PathFilter, out *engine.Result) pathsUnit {
	rows, distinct := selectPathsOf(res.Rows, pathOf, totalOf, f, true)
	out.Cost, out.Skipped = res.Pages, res.Skipped
	out.Summary = fmt.Sprintf("%d paths, %d exported", distinct, len(rows))
	if res.Stopped {
		out.Summary = fmt.Sprintf("top %d exported; rows came sorted, so the walk stopped after %d paths", len(rows), distinct)
	}
	return pathsUnit{totals: res.Totals, rows: rows, distinct: distinct}
}

// PathsWalker lets a paths source walk one request at a time.
type PathsWalker interface {
	BeginWalk(ep client.Endpoint, projectID string, r client.DateRange, o client.WalkOptions) (*client.PathsWalk, error)
	ResumeWalk(p client.WalkProgress, o client.WalkOptions) (*client.PathsWalk, error)
}

// walks reports whether u is walked one request at a time through c.
func walks(c any, u engine.Unit) bool {
	_, ok := c.(PathsWalker)
	return ok && !u.Window.Site
}

// pathsWalk is the engine.Walk of a full window of visitors or views.
type pathsWalk struct {
	pw     *client.PathsWalk
	u      engine.Unit
	filter PathFilter
	nfam   int
	build  func(u engine.Unit, pu pathsUnit, out *engine.Result)
}

// beginPaths starts a full window's walk; nil when not walked in steps.
func beginPaths(c any, ep client.Endpoint, u engine.Unit, r client.DateRange, prevCost int, o client.WalkOptions, f PathFilter,
	nfam int, build func(engine.Unit, pathsUnit, *engine.Result)) (engine.Walk, error) {
	pw, ok := c.(PathsWalker)
	if !ok || u.Window.Site {
		return nil, nil
	}
	w, err := pw.BeginWalk(ep, u.Project, r, walkOptions(o, prevCost, f))
	if err != nil {
		return nil, err
	}
	return &pathsWalk{pw: w, u: u, filter: f, nfam: nfam, build: build}, nil
}

// resumePaths continues a full window's walk from the progress a walk of
// the same unit gave (engine.Resumer): it must be of ep and u's project.
func resumePaths(c any, ep client.Endpoint, u engine.Unit, p client.WalkProgress, prevCost int, o client.WalkOptions, f PathFilter,
	nfam int, build func(engine.Unit, pathsUnit, *engine.Result)) (engine.Walk, error) {
	pw, ok := c.(PathsWalker)
	switch {
	case !ok || u.Window.Site:
		return nil, fmt.Errorf("%s of project %q is not walked a page at a time", u.Source, u.Project)
	case p.Endpoint != ep.String() || p.Project != u.Project:
		return nil, fmt.Errorf("a %s walk of project %q is not one of %s of project %q", p.Endpoint, p.Project, ep, u.Project)
	}
	w, err := pw.ResumeWalk(p, walkOptions(o, prevCost, f))
	if err != nil {
		return nil, err
	}
	return &pathsWalk{pw: w, u: u, filter: f, nfam: nfam, build: build}, nil
}

// Progress implements engine.Resumable.
func (w *pathsWalk) Progress() (client.WalkProgress, bool) { return w.pw.Progress() }

// Step implements engine.Walk.
func (w *pathsWalk) Step(ctx context.Context) (bool, error) { return w.pw.Next(ctx) }

// Sent implements engine.Walk.
func (w *pathsWalk) Sent() int { return w.pw.Pages() }

// Totals implements engine.Walk: the first page's totals.
func (w *pathsWalk) Totals() *engine.Result {
	t, ok := w.pw.Totals()
	if !ok {
		return nil
	}
	site := w.u
	site.Window.Site = true
	out := &engine.Result{Samples: make([][]engine.Sample, w.nfam), Cost: 1, Summary: "site-wide totals"}
	w.build(site, pathsUnit{totals: t}, out)
	return out
}

// Result implements engine.Walk.
func (w *pathsWalk) Result() (*engine.Result, error) {
	res := w.pw.Result()
	if res == nil {
		return nil, fmt.Errorf("%s walk of project %q is not complete", w.u.Source, w.u.Project)
	}
	out := &engine.Result{Samples: make([][]engine.Sample, w.nfam)}
	w.build(w.u, finishPaths(res, w.filter, out), out)
	return out, nil
}

// pathOf and totalOf read a row for selectPaths, ranked by total.
func pathOf(r *client.PathCounts) *string  { return &r.Path }
func totalOf(r *client.PathCounts) float64 { return r.Total }

// pathsCostGroup groups visitors and views (engine.CostGrouper): before its
// first walk, a unit's cost is estimated from the other source's.
const pathsCostGroup = "paths"

// siteCost is one request for a site window, unknown (0) for a walk.
func siteCost(u engine.Unit) int {
	if u.Window.Site {
		return 1
	}
	return 0
}

var (
	_ engine.Resumer   = (*Visitors)(nil)
	_ engine.Resumer   = (*Views)(nil)
	_ engine.Resumable = (*pathsWalk)(nil)
)
