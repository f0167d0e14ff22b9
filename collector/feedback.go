package collector

import (
	"context"
	"fmt"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
)

// Feedback is the source of feedback per page: one request of the API's
// largest page (100 pages, no offset or cursor); mintlify_feedback_pages_truncated
// says when there were more. It has no site window.
type Feedback struct {
	base
	client *client.Client
	filter PathFilter
}

var feedbackSource = Descriptor{Name: "feedback", Endpoint: client.EndpointFeedbackByPage, Default: true,
	Help: "feedback per page, the 100 pages with the most", Cost: "1 request",
	New: func(c *client.Client, o Options) engine.Source {
		return &Feedback{base: base{name: "feedback", families: feedbackFamilies, siteless: true, cost: 1}, client: c, filter: o.Filter}
	}}

var feedbackFamilies = []engine.Family{
	{Name: "mintlify_page_feedback",
		Help:   "Feedback entries on one page over the window, by kind.",
		Labels: []string{"path", "kind"}},
	{Name: "mintlify_feedback_pages_truncated",
		Help: "1 when more pages had feedback over the window than the API returns (100), else 0."},
}

// Fetch implements engine.Source.
func (f *Feedback) Fetch(ctx context.Context, u engine.Unit, r client.DateRange, _ int) (*engine.Result, error) {
	page, err := f.client.FeedbackByPage(ctx, u.Project, r, client.MaxFeedbackLimit)
	if err != nil {
		return nil, err
	}
	rows, distinct := selectPaths(page.Rows, func(r *client.PageFeedback) *string { return &r.Path },
		func(r *client.PageFeedback) float64 { return r.Total }, f.filter, false)
	samples := make([]engine.Sample, 0, 4*len(rows))
	for _, r := range rows {
		samples = appendKinds(samples, r.Path, []string{"thumbs_up", "thumbs_down", "code"}, []float64{r.ThumbsUp, r.ThumbsDown, r.Code}, r.Total, "other")
	}
	truncated := 0.0
	summary := fmt.Sprintf("%d pages, %d exported", distinct, len(rows))
	if page.HasMore {
		truncated = 1
		summary += " (the API shows 100 at most: more had feedback)"
	}
	return &engine.Result{
		Samples: [][]engine.Sample{samples, {{Value: truncated}}},
		Cost:    1, Skipped: page.Skipped, Summary: summary,
	}, nil
}
