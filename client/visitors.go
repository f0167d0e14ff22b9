package client

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
)

// MaxPageSize is the largest limit the visitors export accepts.
const MaxPageSize = 250

// Visitors fetches one page of the unique visitors export of a project:
// GET /v1/analytics/{projectId}/visitors. dateFrom and dateTo are sent as
// YYYY-MM-DD when the Range's From and To are not zero (the API's defaults
// are the beginning of the data and today, included), limit when q.Limit is
// not zero, and offset always (offset=0 included), so every request states
// its page.
// A limit outside 1..250 or a negative offset is refused without a request.
func (c *Client) Visitors(ctx context.Context, projectID string, q VisitorsQuery) (*VisitorsPage, error) {
	p, err := segment("project id", projectID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EndpointVisitors, err)
	}
	if q.Limit < 0 || q.Limit > MaxPageSize {
		return nil, fmt.Errorf("%s: limit %d outside 1..%d", EndpointVisitors, q.Limit, MaxPageSize)
	}
	if q.Offset < 0 {
		return nil, fmt.Errorf("%s: negative offset %d", EndpointVisitors, q.Offset)
	}
	v := url.Values{}
	if !q.Range.From.IsZero() {
		v.Set("dateFrom", q.Range.From.String())
	}
	if !q.Range.To.IsZero() {
		v.Set("dateTo", q.Range.To.String())
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	v.Set("offset", strconv.Itoa(q.Offset))
	res, err := c.do(ctx, &call{
		endpoint: EndpointVisitors,
		method:   "GET",
		path:     "/v1/analytics/" + p + "/visitors",
		query:    v,
	})
	if err != nil {
		return nil, err
	}
	page, err := decodeVisitors(res.body)
	return page, err
}

// decodeVisitors decodes and validates a visitors page: totals, visitors
// and hasMore are required, every count is a non-negative integer and every
// path is non-empty. A well-formed page takes the one-pass reading; any
// other body is read strictly, which names what is wrong.
func decodeVisitors(body []byte) (*VisitorsPage, error) {
	if page, ok := decodeVisitorsFast(body); ok {
		return page, nil
	}
	return decodeVisitorsStrict(body)
}

// decodeVisitorsStrict is decodeVisitors without the fast path: every value
// is looked at as raw JSON so a missing field, a null and a wrong type are
// told apart and reported with the field's path.
func decodeVisitorsStrict(body []byte) (*VisitorsPage, error) {
	root, err := parseBody(EndpointVisitors, body)
	if err != nil {
		return nil, err
	}
	page := &VisitorsPage{}
	totals, err := root.object("totals")
	if err != nil {
		return nil, err
	}
	if page.Totals, err = totals.counts(); err != nil {
		return nil, err
	}
	rows, err := root.array("visitors")
	if err != nil {
		return nil, err
	}
	page.Visitors = make([]PathVisitors, 0, len(rows))
	for i, raw := range rows {
		row, err := asObject(EndpointVisitors, fmt.Sprintf("visitors[%d]", i), raw)
		if err != nil {
			return nil, err
		}
		var pv PathVisitors
		if pv.Path, err = row.requiredString("path", true); err != nil {
			return nil, err
		}
		if pv.Counts, err = row.counts(); err != nil {
			return nil, err
		}
		page.Visitors = append(page.Visitors, pv)
	}
	if page.HasMore, err = root.requiredBool("hasMore"); err != nil {
		return nil, err
	}
	return page, nil
}
