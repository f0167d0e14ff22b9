package collector

import (
	"context"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
)

// VisitorsClient is what the visitors source needs of *client.Client.
type VisitorsClient interface {
	Visitors(ctx context.Context, projectID string, q client.PathsQuery) (*client.PathsPage, error)
	WalkVisitors(ctx context.Context, projectID string, r client.DateRange, o client.WalkOptions) (*client.PathsResult, error)
}

// Visitors is the source of unique visitors, site-wide and per page. Unique
// counts do not add up: no series sums or folds pages.
type Visitors struct {
	client VisitorsClient
	walk   client.WalkOptions
	filter PathFilter
}

// NewVisitors returns the visitors source.
func NewVisitors(c VisitorsClient, o Options) *Visitors {
	return &Visitors{client: c, walk: o.walkOptions(), filter: o.Filter}
}

var visitorsSource = SourceInfo{Name: "visitors", Default: true, Help: "unique visitors, site-wide and per page (1 request per 250 paths per window)",
	New: func(c Client, o Options) engine.Source { return NewVisitors(c, o) }}

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

// Name implements engine.Source.
func (*Visitors) Name() string { return "visitors" }

// Families implements engine.Source.
func (*Visitors) Families() []engine.Family { return visitorsFamilies }

// Supports implements engine.Source.
func (*Visitors) Supports(engine.Window) bool { return true }

// EstimateCost implements engine.CostEstimator.
func (*Visitors) EstimateCost(u engine.Unit) int { return siteCost(u) }

// CostGroup implements engine.CostGrouper.
func (*Visitors) CostGroup() string { return pathsCostGroup }

// Fetch implements engine.Source.
func (v *Visitors) Fetch(ctx context.Context, u engine.Unit, r client.DateRange, prevCost int) (*engine.Result, error) {
	out := &engine.Result{Samples: make([][]engine.Sample, len(visitorsFamilies))}
	res, err := fetchPaths(ctx, u, r, prevCost, v.client.Visitors, v.client.WalkVisitors, v.walk, v.filter, out)
	if err != nil {
		return nil, err
	}
	v.build(u, res, out)
	return out, nil
}

// Begin implements engine.Stepper.
func (v *Visitors) Begin(u engine.Unit, r client.DateRange, prevCost int) (engine.Walk, error) {
	return beginPaths(v.client, client.EndpointVisitors, u, r, prevCost, v.walk, v.filter, len(visitorsFamilies), v.build)
}

// Resume implements engine.Resumer.
func (v *Visitors) Resume(u engine.Unit, p client.WalkProgress, prevCost int) (engine.Walk, error) {
	return resumePaths(v.client, client.EndpointVisitors, u, p, prevCost, v.walk, v.filter, len(visitorsFamilies), v.build)
}

// Walks implements engine.Stepper.
func (v *Visitors) Walks(u engine.Unit) bool { return walks(v.client, u) }

// SplitsTotals implements engine.Splitter.
func (*Visitors) SplitsTotals() bool { return true }

// build sets out's samples from what one unit read.
func (v *Visitors) build(u engine.Unit, res pathsUnit, out *engine.Result) {
	if !u.Window.Site {
		page := make([]engine.Sample, 0, 2*len(res.rows))
		dedup := make([]engine.Sample, 0, len(res.rows))
		for _, r := range res.rows {
			page = append(page,
				engine.Sample{Labels: [2]string{r.Path, "human"}, Value: r.Human},
				engine.Sample{Labels: [2]string{r.Path, "ai"}, Value: r.AI})
			dedup = append(dedup, engine.Sample{Labels: [2]string{r.Path}, Value: r.Total})
		}
		out.Samples[visPage], out.Samples[visPageDedup] = page, dedup
		out.Samples[visPaths] = []engine.Sample{{Value: float64(res.distinct)}}
		out.Samples[visPathsExported] = []engine.Sample{{Value: float64(len(res.rows))}}
	}
	out.Samples[visVisitors] = []engine.Sample{
		{Labels: [2]string{"human"}, Value: res.totals.Human},
		{Labels: [2]string{"ai"}, Value: res.totals.AI},
	}
	out.Samples[visVisitorsDedup] = []engine.Sample{{Value: res.totals.Total}}
}
