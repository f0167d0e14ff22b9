package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
)

// Visitors fetches one page of the unique visitors export (see Views).
func (c *Client) Visitors(ctx context.Context, projectID string, q PathsQuery) (*PathsPage, error) {
	return c.PathsPage(ctx, EndpointVisitors, projectID, q)
}

// Views fetches one page of the page views export. Dates and limit are
// sent when set, offset always; a limit outside 1..MaxPageSize or a
// negative offset is refused unsent. A page without valid totals, rows and
// hasMore is a *DecodeError; a malformed row is skipped (Skipped).
func (c *Client) Views(ctx context.Context, projectID string, q PathsQuery) (*PathsPage, error) {
	return c.PathsPage(ctx, EndpointViews, projectID, q)
}

// PathsPage fetches one page of an offset-paged export, ep
// EndpointVisitors or EndpointViews (see Views); a PageFunc.
func (c *Client) PathsPage(ctx context.Context, ep Endpoint, projectID string, q PathsQuery) (*PathsPage, error) {
	if ep != EndpointVisitors && ep != EndpointViews {
		return nil, fmt.Errorf("%s is not an offset-paged export", ep)
	}
	p, err := segment("project id", projectID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ep, err)
	}
	if q.Limit < 0 || q.Limit > MaxPageSize {
		return nil, fmt.Errorf("%s: limit %d outside 1..%d", ep, q.Limit, MaxPageSize)
	}
	if q.Offset < 0 {
		return nil, fmt.Errorf("%s: negative offset %d", ep, q.Offset)
	}
	v := rangeValues(q.Range)
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	v.Set("offset", strconv.Itoa(q.Offset))
	res, err := c.do(ctx, &call{
		endpoint: ep,
		method:   "GET",
		path:     ep.at(p),
		query:    v,
	})
	if err != nil {
		return nil, err
	}
	return decodePaths(ep, res.body)
}

// rangeValues returns dateFrom and dateTo, each only when set.
func rangeValues(r DateRange) url.Values {
	v := url.Values{}
	if !r.From.IsZero() {
		v.Set("dateFrom", r.From.String())
	}
	if !r.To.IsZero() {
		v.Set("dateTo", r.To.String())
	}
	return v
}

// countsWire is the wire form of {human, ai, total}.
type countsWire struct {
	Human wireNum `json:"human"`
	AI    wireNum `json:"ai"`
	Total wireNum `json:"total"`
}

// pathRowWire is the wire form of one visitors or views row.
type pathRowWire struct {
	Path wireStr `json:"path"`
	countsWire
}

// visitorsWire and viewsWire differ only in the name of the row array.
type visitorsWire struct {
	Totals  json.RawMessage `json:"totals"`
	Rows    []pathRowWire   `json:"visitors"`
	HasMore wireBool        `json:"hasMore"`
}

type viewsWire struct {
	Totals  json.RawMessage `json:"totals"`
	Rows    []pathRowWire   `json:"views"`
	HasMore wireBool        `json:"hasMore"`
}

var pathRowType = reflect.TypeFor[pathRowWire]()

// decodePaths decodes and validates a visitors or views page.
func decodePaths(ep Endpoint, body []byte) (*PathsPage, error) {
	var (
		totals  json.RawMessage
		rows    []pathRowWire
		hasMore *wireBool
		field   string
	)
	if ep == EndpointViews {
		var w viewsWire
		if err := decodePage(ep, body, &w, "views", pathRowType); err != nil {
			return nil, err
		}
		totals, rows, hasMore, field = w.Totals, w.Rows, &w.HasMore, "views"
	} else {
		var w visitorsWire
		if err := decodePage(ep, body, &w, "visitors", pathRowType); err != nil {
			return nil, err
		}
		totals, rows, hasMore, field = w.Totals, w.Rows, &w.HasMore, "visitors"
	}
	page := &PathsPage{}
	var tw countsWire
	if err := decodeObject(ep, "totals", totals, &tw); err != nil {
		return nil, err
	}
	var err error
	if page.Totals, err = tw.counts(ep, "totals"); err != nil {
		return nil, err
	}
	if err := requireRows(ep, field, rows); err != nil {
		return nil, err
	}
	if page.HasMore, err = requireBool(ep, "hasMore", hasMore); err != nil {
		return nil, err
	}
	page.Rows = make([]PathCounts, 0, len(rows))
	for i := range rows {
		r := &rows[i]
		switch {
		case r.Path.st != wireOK:
			page.Skipped.add(SkipBadRow)
		case r.Path.s == "":
			page.Skipped.add(SkipEmptyPath)
		case !numsOK(&r.Human, &r.AI, &r.Total):
			page.Skipped.add(SkipBadCount)
		default:
			page.Rows = append(page.Rows, PathCounts{Path: labelText(r.Path.s), Counts: Counts{Human: r.Human.v, AI: r.AI.v, Total: r.Total.v}})
		}
	}
	return page, nil
}

// counts validates page-level counts; field names the object.
func (w *countsWire) counts(ep Endpoint, field string) (Counts, error) {
	var c Counts
	var err error
	if c.Human, err = requireNum(ep, field+".human", &w.Human); err != nil {
		return c, err
	}
	if c.AI, err = requireNum(ep, field+".ai", &w.AI); err != nil {
		return c, err
	}
	if c.Total, err = requireNum(ep, field+".total", &w.Total); err != nil {
		return c, err
	}
	return c, nil
}
