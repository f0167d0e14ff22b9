package collector

import (
	"fmt"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
)

// Options configures the analytics sources.
type Options struct {
	// PageSize is the limit sent to offset-paged endpoints.
	PageSize int
	MaxPages int
	// PageConcurrency bounds the pages fetched at once within one walk.
	PageConcurrency int
	Filter          PathFilter
	// SearchesTopTerms is --searches.top-terms (0: totals only).
	SearchesTopTerms      int
	ConversationsMaxPages int
}

func (o Options) walkOptions() client.WalkOptions {
	return client.WalkOptions{PageSize: o.PageSize, MaxPages: o.MaxPages, Concurrency: o.PageConcurrency}
}

// Client is what the analytics sources need; *client.Client implements it.
type Client interface {
	VisitorsClient
	ViewsClient
	AssistantClient
	FeedbackClient
	SearchesClient
	ConversationsClient
}

// SourceInfo describes one analytics source for its --collector.<name> flag.
type SourceInfo struct {
	Name    string
	Default bool
	Help    string
	New     func(c Client, o Options) engine.Source
}

// Sources lists every analytics source, in exposition order.
var Sources = []SourceInfo{visitorsSource, viewsSource, assistantSource, feedbackSource, searchesSource, conversationsSource}

// Build returns the named sources, in the order of Sources.
func Build(names []string, c Client, o Options) ([]engine.Source, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []engine.Source
	for _, s := range Sources {
		if want[s.Name] {
			out = append(out, s.New(c, o))
			delete(want, s.Name)
		}
	}
	for n := range want {
		return nil, fmt.Errorf("unknown analytics source %q", n)
	}
	return out, nil
}

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
