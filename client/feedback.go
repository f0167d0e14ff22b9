package client

import (
	"context"
)

type feedbackRowWire struct {
	Path       leaf `json:"path"`
	ThumbsUp   leaf `json:"thumbsUp"`
	ThumbsDown leaf `json:"thumbsDown"`
	Code       leaf `json:"code"`
	Total      leaf `json:"total"`
}

// FeedbackByPage fetches a project's feedback per page in r. There is no
// offset or cursor: HasMore says more pages had feedback than limit let
// through. A malformed row is skipped (Skipped).
func (c *Client) FeedbackByPage(ctx context.Context, projectID string, r DateRange, limit int) (*FeedbackPage, error) {
	return getDecoded(ctx, c, decodeFeedback, EndpointFeedbackByPage, projectID, r, limit, MaxFeedbackLimit)
}

func decodeFeedback(ep Endpoint, body []byte) (*FeedbackPage, error) {
	var w struct {
		Rows    []row[feedbackRowWire] `json:"feedback"`
		HasMore leaf                   `json:"hasMore"`
	}
	f := fields{ep: ep, err: decodePage(ep, body, &w)}
	page := &FeedbackPage{}
	page.Rows = keepRows(&f, "feedback", w.Rows, &page.Skipped, func(r *feedbackRowWire) (PageFeedback, string) {
		return PageFeedback{Path: labelText(r.Path.s), ThumbsUp: r.ThumbsUp.n, ThumbsDown: r.ThumbsDown.n, Code: r.Code.n, Total: r.Total.n},
			rowProblem(&r.Path, SkipEmptyPath, &r.ThumbsUp, &r.ThumbsDown, &r.Code, &r.Total)
	})
	page.HasMore = f.reqBool("hasMore", &w.HasMore)
	return checked(page, &f)
}
