package collector

import (
	"cmp"
	"slices"
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/engine"
)

// The additive sources (views, assistant, searches without top terms,
// conversations) implement engine.Summer: their counts are events, so a
// window is the sum of its days, and the engine derives 7d and 30d from a
// day store and today's 1d unit. Visitors are unique counts and feedback
// by page and top search terms are top-N lists: neither adds up over days.

// familyOf returns the samples of family i of each day.
func familyOf(days []*engine.Result, i int) [][]engine.Sample {
	out := make([][]engine.Sample, 0, len(days))
	for _, d := range days {
		if i < len(d.Samples) {
			out = append(out, d.Samples[i])
		}
	}
	return out
}

// sumFamily sums family i over the days, series ordered by their labels.
func sumFamily(days []*engine.Result, i int) []engine.Sample {
	s := engine.SumSamples(familyOf(days, i)...)
	slices.SortStableFunc(s, func(a, b engine.Sample) int {
		return cmp.Or(strings.Compare(a.Labels[0], b.Labels[0]), strings.Compare(a.Labels[1], b.Labels[1]))
	})
	return s
}

// Additive implements engine.Summer: views are events.
func (*Views) Additive(engine.Unit) bool { return true }

// Sum implements engine.Summer. Per-page series are summed by path and
// traffic, and the paths ranked by their summed total and cut to
// --analytics.max-paths as a direct read would; the paths count is that
// of the paths the days exported (equal to a direct read's while a day's
// paths fit --analytics.max-paths and no path filter is set).
func (v *Views) Sum(u engine.Unit, days []*engine.Result) *engine.Result {
	out := &engine.Result{Samples: make([][]engine.Sample, len(viewsFamilies))}
	out.Samples[viewsSite] = engine.SumSamples(familyOf(days, viewsSite)...)
	if u.Window.Site {
		return out
	}
	page := engine.SumSamples(familyOf(days, viewsPage)...)
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

// Additive implements engine.Summer: assistant queries are events.
func (*Assistant) Additive(engine.Unit) bool { return true }

// Sum implements engine.Summer.
func (*Assistant) Sum(_ engine.Unit, days []*engine.Result) *engine.Result {
	return &engine.Result{Samples: [][]engine.Sample{engine.SumSamples(familyOf(days, 0)...)}}
}

// Additive implements engine.Summer: total searches are events; the top
// terms are a top-N list, so a unit with them is read directly.
func (s *Searches) Additive(u engine.Unit) bool { return s.topTerms == 0 || u.Window.Site }

// Sum implements engine.Summer.
func (*Searches) Sum(_ engine.Unit, days []*engine.Result) *engine.Result {
	out := &engine.Result{Samples: make([][]engine.Sample, len(searchesFamilies))}
	out.Samples[searchesTotal] = engine.SumSamples(familyOf(days, searchesTotal)...)
	return out
}

// Additive implements engine.Summer: conversation turns are events.
func (*Conversations) Additive(engine.Unit) bool { return true }

// Sum implements engine.Summer.
func (*Conversations) Sum(_ engine.Unit, days []*engine.Result) *engine.Result {
	return &engine.Result{Samples: [][]engine.Sample{sumFamily(days, 0)}}
}

var (
	_ engine.Summer = (*Views)(nil)
	_ engine.Summer = (*Assistant)(nil)
	_ engine.Summer = (*Searches)(nil)
	_ engine.Summer = (*Conversations)(nil)
)
