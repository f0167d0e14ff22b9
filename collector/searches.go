package collector

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/exposition"
)

// MaxTermRunes caps a search term used as a label value.
const MaxTermRunes = 100

// Searches is the source of search volume (one row: totalSearches is
// site-wide) and, with --searches.top-terms, the top terms, which are
// typed by the public: cut, made valid UTF-8, never logged.
type Searches struct {
	base
	client   *client.Client
	topTerms int
}

var searchesSource = Descriptor{Name: "searches", Endpoint: client.EndpointSearches, Default: true, Derived: "searches without top terms",
	Help: "search volume, and the top terms with --searches.top-terms", Cost: "1 request",
	New: func(c *client.Client, o Options) engine.Source {
		return &Searches{base: base{name: "searches", families: searchesFamilies, cost: 1}, client: c, topTerms: min(max(o.SearchesTopTerms, 0), client.MaxSearchesLimit)}
	}}

// The searches families, in exposition order.
const (
	searchesTotal = iota
	searchesTermHits
	searchesTermCTR
	searchesWithoutClicks
	searchesTermCTRDeprecated
)

var searchesFamilies = []engine.Family{
	searchesTotal: {Name: "mintlify_searches",
		Help: "Search events on the documentation site over the window."},
	searchesTermHits: {Name: "mintlify_search_term_hits",
		Help:   "Searches for one of the most searched terms over the window.",
		Labels: []string{"term"}},
	searchesTermCTR: {Name: "mintlify_search_term_click_through_ratio",
		Help:   "Click-through ratio (the API's ctr, 0 to 1) of one of the most searched terms over the window.",
		Labels: []string{"term"}},
	searchesWithoutClicks: {Name: "mintlify_search_terms_without_clicks",
		Help: "Top search terms over the window with no click on any result (ctr 0)."},
	// The previous name, kept one release with the same values.
	searchesTermCTRDeprecated: {Name: "mintlify_search_term_click_through_rate",
		Help:   "Deprecated: use mintlify_search_term_click_through_ratio (same values).",
		Labels: []string{"term"}},
}

// Fetch implements engine.Source.
func (s *Searches) Fetch(ctx context.Context, u engine.Unit, r client.DateRange, _ int) (*engine.Result, error) {
	top := s.topTerms
	if u.Window.Site {
		top = 0
	}
	page, err := s.client.Searches(ctx, u.Project, r, max(1, top), "")
	if err != nil {
		return nil, err
	}
	out := &engine.Result{Samples: make([][]engine.Sample, len(searchesFamilies)), Cost: 1, Skipped: page.Skipped,
		Summary: "total searches"}
	out.Samples[searchesTotal] = []engine.Sample{{Value: page.TotalSearches}}
	if top == 0 {
		return out, nil
	}
	seen := map[string]bool{}
	withoutClicks := 0
	for _, row := range page.Rows {
		if len(seen) == top {
			break
		}
		term := TermLabel(row.Query)
		if seen[term] {
			continue // equal once cut: the first, most searched, is kept
		}
		seen[term] = true
		for f, v := range map[int]float64{searchesTermHits: row.Hits, searchesTermCTR: row.CTR, searchesTermCTRDeprecated: row.CTR} {
			out.Samples[f] = append(out.Samples[f], engine.Sample{Labels: [2]string{term}, Value: v})
		}
		if row.CTR == 0 {
			withoutClicks++
		}
	}
	out.Samples[searchesWithoutClicks] = []engine.Sample{{Value: float64(withoutClicks)}}
	out.Summary = fmt.Sprintf("total searches and the top %d terms", len(seen))
	return out, nil
}

// TermLabel returns a search term fit for a label value.
func TermLabel(q string) string {
	q = exposition.SanitizeLabel(q)
	if utf8.RuneCountInString(q) <= MaxTermRunes {
		return q
	}
	return string([]rune(q)[:MaxTermRunes-1]) + "…"
}

// Additive implements derived.Summer: top terms do not add up over days.
func (s *Searches) Additive(u engine.Unit) bool { return s.topTerms == 0 || u.Window.Site }
