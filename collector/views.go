package collector

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/engine/derive"
)

// ViewsClient is what the views source needs of *client.Client.
type ViewsClient interface {
	Views(ctx context.Context, projectID string, q client.PathsQuery) (*client.PathsPage, error)
	WalkViews(ctx context.Context, projectID string, r client.DateRange, o client.WalkOptions) (*client.PathsResult, error)
}

// Views is the source of page view events, site-wide and per page; traffic
// "other" makes sum() over traffic the total.
type Views struct {
	client ViewsClient
	walk   client.WalkOptions
	filter PathFilter
}

// NewViews returns the views source.
func NewViews(c ViewsClient, o Options) *Views {
	return &Views{client: c, walk: o.walkOptions(), filter: o.Filter}
}

var viewsSource = SourceInfo{Name: "views", Default: true, Help: "page view events, site-wide and per page (1 request per 250 paths per window)",
	New: func(c Client, o Options) engine.Source { return NewViews(c, o) }}

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

// Name implements engine.Source.
func (*Views) Name() string { return "views" }

// Families implements engine.Source.
func (*Views) Families() []engine.Family { return viewsFamilies }

// Supports implements engine.Source.
func (*Views) Supports(engine.Window) bool { return true }

// EstimateCost implements engine.CostEstimator.
func (*Views) EstimateCost(u engine.Unit) int { return siteCost(u) }

// CostGroup implements engine.CostGrouper.
func (*Views) CostGroup() string { return pathsCostGroup }

// Fetch implements engine.Source.
func (v *Views) Fetch(ctx context.Context, u engine.Unit, r client.DateRange, prevCost int) (*engine.Result, error) {
	out := &engine.Result{Samples: make([][]engine.Sample, len(viewsFamilies))}
	res, err := fetchPaths(ctx, u, r, prevCost, v.client.Views, v.client.WalkViews, v.walk, v.filter, out)
	if err != nil {
		return nil, err
	}
	v.build(u, res, out)
	return out, nil
}

// Begin implements engine.Stepper.
func (v *Views) Begin(u engine.Unit, r client.DateRange, prevCost int) (engine.Walk, error) {
	return beginPaths(v.client, client.EndpointViews, u, r, prevCost, v.walk, v.filter, len(viewsFamilies), v.build)
}

// Resume implements engine.Resumer.
func (v *Views) Resume(u engine.Unit, p client.WalkProgress, prevCost int) (engine.Walk, error) {
	return resumePaths(v.client, client.EndpointViews, u, p, prevCost, v.walk, v.filter, len(viewsFamilies), v.build)
}

// Walks implements engine.Stepper.
func (v *Views) Walks(u engine.Unit) bool { return walks(v.client, u) }

// SplitsTotals implements engine.Splitter.
func (*Views) SplitsTotals() bool { return true }

// build sets out's samples from what one unit read.
func (v *Views) build(u engine.Unit, res pathsUnit, out *engine.Result) {
	if !u.Window.Site {
		page := make([]engine.Sample, 0, 3*len(res.rows))
		for _, r := range res.rows {
			page = appendTraffic(page, r.Path, r.Counts)
		}
		out.Samples[viewsPage] = page
		out.Samples[viewsPaths] = []engine.Sample{{Value: float64(res.distinct)}}
		out.Samples[viewsPathsExported] = []engine.Sample{{Value: float64(len(res.rows))}}
	}
	out.Samples[viewsSite] = appendTraffic(nil, "", res.totals)
}

// appendTraffic appends the human, ai and (positive) other series.
func appendTraffic(s []engine.Sample, path string, c client.Counts) []engine.Sample {
	add := func(traffic string, v float64) {
		if path == "" {
			s = append(s, engine.Sample{Labels: [2]string{traffic}, Value: v})
		} else {
			s = append(s, engine.Sample{Labels: [2]string{path, traffic}, Value: v})
		}
	}
	add("human", c.Human)
	add("ai", c.AI)
	if other := c.Total - c.Human - c.AI; other > 0 {
		add("other", other)
	}
	return s
}

// Additive implements engine.Summer.
func (*Views) Additive(engine.Unit) bool { return true }

// Sum implements engine.Summer: paths ranked by summed total and cut to
// --analytics.max-paths, as a direct read would.
func (v *Views) Sum(u engine.Unit, days []*engine.Result) *engine.Result {
	out := &engine.Result{Samples: make([][]engine.Sample, len(viewsFamilies))}
	out.Samples[viewsSite] = derive.SumSamples(familyOf(days, viewsSite)...)
	if u.Window.Site {
		return out
	}
	page := derive.SumSamples(familyOf(days, viewsPage)...)
	total := map[string]float64{}
	for _, s := range page {
		total[s.Labels[0]] += s.Value
	}
	paths := make([]string, 0, len(total))
	for p := range total {
		paths = append(paths, p)
	}
	slices.SortFunc(paths, func(a, b string) int { return cmp.Or(cmp.Compare(total[b], total[a]), strings.Compare(a, b)) })
	distinct := len(paths)
	if v.filter.MaxPaths > 0 && len(paths) > v.filter.MaxPaths {
		paths = paths[:v.filter.MaxPaths]
	}
	rank := make(map[string]int, len(paths))
	for i, p := range paths {
		rank[p] = i
	}
	kept := page[:0]
	for _, s := range page {
		if _, ok := rank[s.Labels[0]]; ok {
			kept = append(kept, s)
		}
	}
	slices.SortStableFunc(kept, func(a, b engine.Sample) int { return cmp.Compare(rank[a.Labels[0]], rank[b.Labels[0]]) })
	out.Samples[viewsPage] = kept
	out.Samples[viewsPaths] = []engine.Sample{{Value: float64(distinct)}}
	out.Samples[viewsPathsExported] = []engine.Sample{{Value: float64(len(paths))}}
	return out
}

var _ engine.Summer = (*Views)(nil)
