package client

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"
)

// searchRowWire is the wire form of one searches row.
type searchRowWire struct {
	SearchQuery    wireStr `json:"searchQuery"`
	Hits           wireNum `json:"hits"`
	CTR            wireNum `json:"ctr"`
	TopClickedPage wireStr `json:"topClickedPage"`
	LastSearchedAt wireStr `json:"lastSearchedAt"`
}

// searchesWire is the wire form of searches.
type searchesWire struct {
	Rows          []searchRowWire `json:"searches"`
	TotalSearches wireNum         `json:"totalSearches"`
	NextCursor    wireStr         `json:"nextCursor"`
}

var searchRowType = reflect.TypeFor[searchRowWire]()

// Searches fetches one page of a project's search terms in r, by hits
// descending; limit 0 and cursor "" are not sent. TotalSearches is
// site-wide whatever the limit. A malformed row is skipped (Skipped).
func (c *Client) Searches(ctx context.Context, projectID string, r DateRange, limit int, cursor string) (*SearchesPage, error) {
	ep := EndpointSearches
	p, err := segment("project id", projectID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ep, err)
	}
	if limit < 0 || limit > MaxSearchesLimit {
		return nil, fmt.Errorf("%s: limit %d outside 1..%d", ep, limit, MaxSearchesLimit)
	}
	v := rangeValues(r)
	if limit > 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	if cursor != "" {
		v.Set("cursor", cursor)
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
	return decodeSearches(res.body)
}

// decodeSearches decodes and validates a searches page.
func decodeSearches(body []byte) (*SearchesPage, error) {
	ep := EndpointSearches
	var w searchesWire
	if err := decodePage(ep, body, &w, "searches", searchRowType); err != nil {
		return nil, err
	}
	if err := requireRows(ep, "searches", w.Rows); err != nil {
		return nil, err
	}
	page := &SearchesPage{}
	var err error
	if page.TotalSearches, err = requireNum(ep, "totalSearches", &w.TotalSearches); err != nil {
		return nil, err
	}
	if page.TotalSearches != math.Trunc(page.TotalSearches) { // the schema says integer
		return nil, &DecodeError{Endpoint: ep, Field: "totalSearches", Reason: "not an integer: " + strconv.FormatFloat(page.TotalSearches, 'g', -1, 64)}
	}
	var ok bool
	if page.NextCursor, ok = w.NextCursor.nullable(); !ok {
		return nil, &DecodeError{Endpoint: ep, Field: "nextCursor", Reason: w.NextCursor.problem(true)}
	}
	page.Rows = make([]SearchTerm, 0, len(w.Rows))
	for i := range w.Rows {
		r := &w.Rows[i]
		top, topOK := r.TopClickedPage.nullable()
		switch {
		case r.SearchQuery.st != wireOK || !topOK:
			page.Skipped.add(SkipBadRow)
		case r.SearchQuery.s == "":
			page.Skipped.add(SkipEmptyTerm)
		case !numsOK(&r.Hits, &r.CTR):
			page.Skipped.add(SkipBadCount)
		default:
			page.Rows = append(page.Rows, SearchTerm{
				Query:          labelText(r.SearchQuery.s),
				Hits:           r.Hits.v,
				CTR:            r.CTR.v,
				TopClickedPage: top,
				LastSearchedAt: parseOptionalTime(&r.LastSearchedAt),
			})
		}
	}
	return page, nil
}

// parseOptionalTime reads an RFC 3339 date-time, or nil for anything else.
func parseOptionalTime(s *wireStr) *time.Time {
	if s.st != wireOK {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, s.s)
	if err != nil {
		return nil
	}
	return &t
}
