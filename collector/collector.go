package collector

import (
	"fmt"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
)

// Options configures the analytics sources.
type Options struct {
	// PageSize is the limit sent to offset-paged endpoints (1..250).
	PageSize int
	// MaxPages guards against an upstream that never stops paging.
	MaxPages int
	// PageConcurrency bounds the pages fetched at once within one walk.
	PageConcurrency int
	// Filter selects and caps the paths of per-page sources.
	Filter PathFilter
	// SearchesTopTerms is --searches.top-terms (0: totals only).
	SearchesTopTerms int
	// ConversationsMaxPages is --conversations.max-pages.
	ConversationsMaxPages int
}

func (o Options) walkOptions() client.WalkOptions {
	return client.WalkOptions{PageSize: o.PageSize, MaxPages: o.MaxPages, Concurrency: o.PageConcurrency}
}

// Client is what the analytics sources need of the API client;
// *client.Client implements it.
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
	Name string
	// Default tells whether the source is on without its flag.
	Default bool
	Help    string
	New     func(c Client, o Options) engine.Source
}

// Sources lists every analytics source, in exposition order.
var Sources = []SourceInfo{
	{Name: "visitors", Default: true, Help: "unique visitors, site-wide and per page (1 request per 250 paths per window)",
		New: func(c Client, o Options) engine.Source { return NewVisitors(c, o) }},
	{Name: "views", Default: true, Help: "page view events, site-wide and per page (1 request per 250 paths per window)",
		New: func(c Client, o Options) engine.Source { return NewViews(c, o) }},
	{Name: "assistant", Default: true, Help: "assistant queries by caller (1 request per window)",
		New: func(c Client, o Options) engine.Source { return NewAssistant(c, o) }},
	{Name: "feedback", Default: true, Help: "feedback per page, the 100 pages with the most (1 request per window)",
		New: func(c Client, o Options) engine.Source { return NewFeedback(c, o) }},
	{Name: "searches", Default: true, Help: "search volume, and the top terms with --searches.top-terms (1 request per window)",
		New: func(c Client, o Options) engine.Source { return NewSearches(c, o) }},
	{Name: "conversations", Default: false, Help: "assistant conversation turns by response type and resolution (1 request per 1,000 turns per window)",
		New: func(c Client, o Options) engine.Source { return NewConversations(c, o) }},
}

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
