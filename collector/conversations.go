package collector

import (
	"context"
	"fmt"
	"slices"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/derived"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/exposition"
)

// Conversations is the source of assistant conversation turns by response
// type and resolution: a cursor walk whose cost grows with traffic, so off
// by default. Only counts are kept. It has no site window.
type Conversations struct {
	base
	client   *client.Client
	maxPages int
}

var conversationsSource = Descriptor{Name: "conversations", Endpoint: client.EndpointConversations, Default: false, Derived: "conversations",
	Help: "assistant conversation turns by response type and resolution", Cost: "1 request per 1,000 turns",
	New: func(c *client.Client, o Options) engine.Source {
		return &Conversations{base: base{name: "conversations", families: conversationsFamilies, siteless: true, additive: true}, client: c, maxPages: o.ConversationsMaxPages}
	}}

var conversationsFamilies = []engine.Family{{
	Name:   "mintlify_assistant_conversations",
	Help:   "Turns of conversations with the documentation's AI assistant over the window, by response type and resolution.",
	Labels: []string{"response_type", "resolution"},
}}

// Fetch implements engine.Source.
func (c *Conversations) Fetch(ctx context.Context, u engine.Unit, r client.DateRange, _ int) (*engine.Result, error) {
	res, err := c.client.WalkConversations(ctx, u.Project, r, c.maxPages)
	if err != nil {
		return nil, err
	}
	counts := map[client.ConversationKey]float64{} // the known keys are exported even when 0, so ratios keep their series
	for _, t := range []string{client.ResponseTypeAnswer, client.ResponseTypeClarifyingQuestion} {
		for _, rs := range []string{client.ResolutionAnswered, client.ResolutionUnanswered} {
			counts[client.ConversationKey{ResponseType: t, Resolution: rs}] = 0
		}
	}
	for k, n := range res.Counts {
		k.ResponseType, k.Resolution = exposition.SanitizeLabel(k.ResponseType), exposition.SanitizeLabel(k.Resolution)
		counts[k] += float64(n)
	}
	samples := make([]engine.Sample, 0, len(counts))
	for k, n := range counts {
		samples = append(samples, engine.Sample{Labels: [2]string{k.ResponseType, k.Resolution}, Value: n})
	}
	slices.SortFunc(samples, byLabels)
	return &engine.Result{Samples: [][]engine.Sample{samples}, Cost: max(1, res.Pages), Skipped: res.Skipped,
		Summary: fmt.Sprintf("%d turns", res.Turns)}, nil
}

// Sum implements derived.Summer.
func (*Conversations) Sum(_ engine.Unit, days []*engine.Result) *engine.Result {
	s := derived.SumFamily(days, 0)
	slices.SortStableFunc(s, byLabels)
	return &engine.Result{Samples: [][]engine.Sample{s}}
}

func byLabels(a, b engine.Sample) int { return slices.Compare(a.Labels[:], b.Labels[:]) }

var _ derived.Summer = (*Conversations)(nil)
