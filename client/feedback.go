package client

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
)

// feedbackRowWire is the wire form of one feedback by page row.
type feedbackRowWire struct {
	Path       wireStr `json:"path"`
	ThumbsUp   wireNum `json:"thumbsUp"`
	ThumbsDown wireNum `json:"thumbsDown"`
	Code       wireNum `json:"code"`
	Total      wireNum `json:"total"`
}

// feedbackWire is the wire form of feedback by page.
type feedbackWire struct {
	Rows    []feedbackRowWire `json:"feedback"`
	HasMore wireBool          `json:"hasMore"`
}

var feedbackRowType = reflect.TypeFor[feedbackRowWire]()

// FeedbackByPage fetches a project's feedback per page in r. There is no
// offset or cursor: HasMore says more pages had feedback than limit let
// through. A malformed row is skipped (Skipped).
func (c *Client) FeedbackByPage(ctx context.Context, projectID string, r DateRange, limit int) (*FeedbackPage, error) {
	ep := EndpointFeedbackByPage
	p, err := segment("project id", projectID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ep, err)
	}
	if limit < 0 || limit > MaxFeedbackLimit {
		return nil, fmt.Errorf("%s: limit %d outside 1..%d", ep, limit, MaxFeedbackLimit)
	}
	v := rangeValues(r)
	if limit > 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	res, err := c.do(ctx, &call{
		endpoint: ep,
		method:   "GET",
		path:     ep.at(p),
		query:    v,
	})
	if err != nil {
		return nil, err
	}
	return decodeFeedback(res.body)
}

// decodeFeedback decodes and validates a feedback by page answer.
func decodeFeedback(body []byte) (*FeedbackPage, error) {
	ep := EndpointFeedbackByPage
	var w feedbackWire
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
		case r.Path.st != wireOK:
			page.Skipped.add(SkipBadRow)
		case r.Path.s == "":
			page.Skipped.add(SkipEmptyPath)
		case !numsOK(&r.ThumbsUp, &r.ThumbsDown, &r.Code, &r.Total):
			page.Skipped.add(SkipBadCount)
		default:
			page.Rows = append(page.Rows, PageFeedback{
				Path: labelText(r.Path.s), ThumbsUp: r.ThumbsUp.v, ThumbsDown: r.ThumbsDown.v, Code: r.Code.v, Total: r.Total.v,
			})
		}
	}
	return page, nil
}
