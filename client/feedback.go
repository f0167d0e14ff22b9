package client

import (
	"context"
	"reflect"
)

// feedbackRowWire is the wire form of one feedback by page row.
type feedbackRowWire struct {
	Path       leaf `json:"path"`
	ThumbsUp   leaf `json:"thumbsUp"`
	ThumbsDown leaf `json:"thumbsDown"`
	Code       leaf `json:"code"`
	Total      leaf `json:"total"`
}

var feedbackRowType = reflect.TypeFor[feedbackRowWire]()

// FeedbackByPage fetches a project's feedback per page in r. There is no
// offset or cursor: HasMore says more pages had feedback than limit let
// through. A malformed row is skipped (Skipped).
func (c *Client) FeedbackByPage(ctx context.Context, projectID string, r DateRange, limit int) (*FeedbackPage, error) {
	body, err := c.getPage(ctx, EndpointFeedbackByPage, projectID, r, limit, MaxFeedbackLimit)
	if err != nil {
		return nil, err
	}
	return decodeFeedback(body)
}

// decodeFeedback decodes and validates a feedback by page answer.
func decodeFeedback(body []byte) (*FeedbackPage, error) {
	ep := EndpointFeedbackByPage
	var w struct {
		Rows    []feedbackRowWire `json:"feedback"`
		HasMore leaf              `json:"hasMore"`
	}
	if err := decodePage(ep, body, &w, "feedback", feedbackRowType); err != nil {
		return nil, err
	}
	if err := requireRows(ep, "feedback", w.Rows); err != nil {
		return nil, err
	}
	page := &FeedbackPage{}
	var err error
	if page.HasMore, err = requireBool(ep, "hasMore", &w.HasMore); err != nil {
		return nil, err
	}
	page.Rows = make([]PageFeedback, 0, len(w.Rows))
	for i := range w.Rows {
		r := &w.Rows[i]
		switch {
		case r.Path.kind != '"':
			page.Skipped.add(SkipBadRow)
		case r.Path.s == "":
			page.Skipped.add(SkipEmptyPath)
		case !countsOK(&r.ThumbsUp, &r.ThumbsDown, &r.Code, &r.Total):
			page.Skipped.add(SkipBadCount)
		default:
			page.Rows = append(page.Rows, PageFeedback{
				Path: labelText(r.Path.s), ThumbsUp: r.ThumbsUp.n, ThumbsDown: r.ThumbsDown.n, Code: r.Code.n, Total: r.Total.n,
			})
		}
	}
	return page, nil
}
