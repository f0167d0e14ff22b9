package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
)

// PathsPage fetches one page of an offset-paged export, ep
// EndpointVisitors or EndpointViews; a PageFunc. Dates and limit are sent
// when set, offset always; a limit outside 1..MaxPageSize or a negative
// offset is refused unsent. A page without valid totals, rows and hasMore
// is a *DecodeError; a malformed row is skipped (Skipped).
func (c *Client) PathsPage(ctx context.Context, ep Endpoint, projectID string, q PathsQuery) (*PathsPage, error) {
	if q.Offset < 0 {
		return nil, fmt.Errorf("%s: negative offset %d", ep, q.Offset)
	}
	return getDecoded(ctx, c, decodePaths, ep, projectID, q.Range, q.Limit, MaxPageSize, "offset", strconv.Itoa(q.Offset))
}

func getDecoded[T any](ctx context.Context, c *Client, decode func(Endpoint, []byte) (*T, error),
	ep Endpoint, projectID string, r DateRange, limit, most int, more ...string) (*T, error) {
	body, err := c.getPage(ctx, ep, projectID, r, limit, most, more...)
	if err != nil {
		return nil, err
	}
	return decode(ep, body)
}

// getPage checks projectID and limit (0 is unsent, else 1..most) and sends
// a GET of ep with r's dates (each when set), the limit and the other
// parameters more, key and value pairs (an empty value is unsent).
func (c *Client) getPage(ctx context.Context, ep Endpoint, projectID string, r DateRange, limit, most int, more ...string) ([]byte, error) {
	if limit < 0 || limit > most {
		return nil, fmt.Errorf("%s: limit %d outside 1..%d", ep, limit, most)
	}
	v := url.Values{}
	if !r.From.IsZero() {
		v.Set("dateFrom", r.From.String())
	}
	if !r.To.IsZero() {
		v.Set("dateTo", r.To.String())
	}
	if limit > 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	for i := 0; i+1 < len(more); i += 2 {
		if more[i+1] != "" {
			v.Set(more[i], more[i+1])
		}
	}
	return c.do(ctx, &call{endpoint: ep, project: projectID, query: v})
}

type countsWire struct {
	Human leaf `json:"human"`
	AI    leaf `json:"ai"`
	Total leaf `json:"total"`
}

type pathRowWire struct {
	Path leaf `json:"path"`
	countsWire
}

// visitorsWire and viewsWire differ only in the name of the row array: a
// *visitorsWire converts to a *viewsWire.
type visitorsWire struct {
	Totals  json.RawMessage    `json:"totals"`
	Rows    []row[pathRowWire] `json:"visitors"`
	HasMore leaf               `json:"hasMore"`
}

type viewsWire struct {
	Totals  json.RawMessage    `json:"totals"`
	Rows    []row[pathRowWire] `json:"views"`
	HasMore leaf               `json:"hasMore"`
}

func decodePaths(ep Endpoint, body []byte) (*PathsPage, error) {
	var w visitorsWire
	var v any = &w
	field := "visitors"
	if ep == EndpointViews {
		v, field = (*viewsWire)(&w), "views"
	}
	f := fields{ep: ep, err: decodePage(ep, body, v)}
	var tw countsWire
	f.object("totals", w.Totals, &tw, false)
	page := &PathsPage{Totals: Counts{Human: f.count("totals.human", &tw.Human), AI: f.count("totals.ai", &tw.AI), Total: f.count("totals.total", &tw.Total)}}
	page.Rows = keepRows(&f, field, w.Rows, &page.Skipped, func(r *pathRowWire) (PathCounts, string) {
		return PathCounts{Path: labelText(r.Path.s), Counts: Counts{Human: r.Human.n, AI: r.AI.n, Total: r.Total.n}}, rowProblem(&r.Path, SkipEmptyPath, &r.Human, &r.AI, &r.Total)
	})
	page.HasMore = f.reqBool("hasMore", &w.HasMore)
	return checked(page, &f)
}
