package collector

import (
	"context"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
)

// Assistant is the source of assistant queries by caller: one request per
// window.
type Assistant struct {
	base
	client *client.Client
}

var assistantSource = Descriptor{Name: "assistant", Endpoint: client.EndpointCallerStats, Default: true, Derived: "assistant",
	Help: "assistant queries by caller", Cost: "1 request",
	New: func(c *client.Client, o Options) engine.Source {
		return &Assistant{base: base{name: "assistant", families: assistantFamilies, cost: 1, additive: true}, client: c}
	}}

var assistantFamilies = []engine.Family{{
	Name:   "mintlify_assistant_queries",
	Help:   "Queries to the documentation's AI assistant over the window, by caller.",
	Labels: []string{"caller"},
}}

// Fetch implements engine.Source.
func (a *Assistant) Fetch(ctx context.Context, u engine.Unit, r client.DateRange, _ int) (*engine.Result, error) {
	s, err := a.client.CallerStats(ctx, u.Project, r)
	if err != nil {
		return nil, err
	}
	samples := appendKinds(nil, "", []string{"web", "api", "other"}, []float64{s.Web, s.API, s.Other}, s.Total, "unknown")
	return &engine.Result{Samples: [][]engine.Sample{samples}, Cost: 1, Summary: "queries by caller"}, nil
}
