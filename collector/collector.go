package collector

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/derived"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
)

// Options configures the analytics sources.
type Options struct {
	// PageSize is the limit sent to offset-paged endpoints.
	PageSize int
	MaxPages int
	Filter   PathFilter
	// SearchesTopTerms is --searches.top-terms (0: totals only).
	SearchesTopTerms      int
	ConversationsMaxPages int
}

// Descriptor is all the rest of the exporter knows of a source: its
// --collector.<name> flag, the help and landing-page lists, the README's
// cost table (checked by a test) and the endpoint the fake API serves.
type Descriptor struct {
	Name     string
	Endpoint client.Endpoint
	Default  bool
	// Help says what the source exports; Cost what a window costs
	// ("1 request", "1 request per 250 paths").
	Help, Cost string
	// Paged: the endpoint pages with offset (--analytics.page-size).
	Paged bool
	// Derived names what of the source --analytics.derived-windows
	// derives from days ("" nothing: its counts do not add up).
	Derived string
	New     func(c *client.Client, o Options) engine.Source
}

// Sources lists every analytics source, in exposition order.
var Sources = []Descriptor{visitorsSource, viewsSource, assistantSource, feedbackSource, searchesSource, conversationsSource}

// List joins what pick returns of every source, skipping "": the lists
// of sources in help and page texts.
func List(pick func(Descriptor) string) string {
	var out []string
	for _, s := range Sources {
		if v := pick(s); v != "" {
			out = append(out, v)
		}
	}
	return strings.Join(out, ", ")
}

// DefaultNames lists the sources on by default, for help and page texts.
func DefaultNames() string {
	return List(func(d Descriptor) string {
		if d.Default {
			return d.Name
		}
		return ""
	})
}

// Build returns the named sources, in the order of Sources.
func Build(names []string, c *client.Client, o Options) ([]engine.Source, error) {
	for _, n := range names {
		if !slices.ContainsFunc(Sources, func(d Descriptor) bool { return d.Name == n }) {
			return nil, fmt.Errorf("unknown analytics source %q", n)
		}
	}
	var out []engine.Source
	for _, s := range Sources {
		if slices.Contains(names, s.Name) {
			out = append(out, s.New(c, o))
		}
	}
	return out, nil
}

// base implements the engine.Source and engine.CostEstimator methods that
// only say what a source is.
type base struct {
	name     string
	families []engine.Family
	// siteless: the source has no site window.
	siteless bool
	// cost is a full window's requests before its first fetch (0:
	// unknown); a site window is one request.
	cost int
	// additive: the source's counts add up over days (derived.Summer).
	additive bool
}

// Name implements engine.Source.
func (b *base) Name() string { return b.name }

// Families implements engine.Source.
func (b *base) Families() []engine.Family { return b.families }

// Additive implements derived.Summer for the sources that Sum.
func (b *base) Additive(engine.Unit) bool { return b.additive }

// Sum implements derived.Summer: each family summed over the days, for the
// units Additive says add up.
func (b *base) Sum(_ engine.Unit, days []*engine.Result) *engine.Result {
	out := &engine.Result{Samples: make([][]engine.Sample, len(b.families))}
	for i := range out.Samples {
		out.Samples[i] = derived.SumFamily(days, i)
	}
	return out
}

// Supports implements engine.Source.
func (b *base) Supports(w engine.Window) bool { return !w.Site || !b.siteless }

// EstimateCost implements engine.CostEstimator.
func (b *base) EstimateCost(u engine.Unit) int {
	if u.Window.Site {
		return 1
	}
	return b.cost
}

// appendKinds appends a series per kind with its value, labelled path (but
// "") and the kind, then what the values leave of total as kind rest when
// positive.
func appendKinds(s []engine.Sample, path string, kinds []string, values []float64, total float64, rest string) []engine.Sample {
	add := func(kind string, v float64) {
		l := [2]string{path, kind}
		if path == "" {
			l = [2]string{kind}
		}
		s = append(s, engine.Sample{Labels: l, Value: v})
	}
	for i, kind := range kinds {
		add(kind, values[i])
		total -= values[i]
	}
	if total > 0 {
		add(rest, total)
	}
	return s
}
