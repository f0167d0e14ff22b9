package client

import (
	"context"
	"math"
	"reflect"
	"strconv"
	"time"
)

// searchRowWire is the wire form of one searches row.
type searchRowWire struct {
	SearchQuery    leaf `json:"searchQuery"`
	Hits           leaf `json:"hits"`
	CTR            leaf `json:"ctr"`
	TopClickedPage leaf `json:"topClickedPage"`
	LastSearchedAt leaf `json:"lastSearchedAt"`
}

var searchRowType = reflect.TypeFor[searchRowWire]()

// Searches fetches one page of a project's search terms in r, by hits
// descending; limit 0 and cursor "" are not sent. TotalSearches is
// site-wide whatever the limit. A malformed row is skipped (Skipped).
func (c *Client) Searches(ctx context.Context, projectID string, r DateRange, limit int, cursor string) (*SearchesPage, error) {
	body, err := c.getPage(ctx, EndpointSearches, projectID, r, limit, MaxSearchesLimit, "cursor", cursor)
	if err != nil {
		return nil, err
	}
	return decodeSearches(body)
}

// decodeSearches decodes and validates a searches page.
func decodeSearches(body []byte) (*SearchesPage, error) {
	ep := EndpointSearches
	var w struct {
		Rows          []searchRowWire `json:"searches"`
		TotalSearches leaf            `json:"totalSearches"`
		NextCursor    leaf            `json:"nextCursor"`
	}
	if err := decodePage(ep, body, &w, "searches", searchRowType); err != nil {
		return nil, err
	}
	if err := requireRows(ep, "searches", w.Rows); err != nil {
		return nil, err
	}
	page := &SearchesPage{}
	if err := requireNums(ep, numField{"totalSearches", &w.TotalSearches, &page.TotalSearches}); err != nil {
		return nil, err
	}
	if page.TotalSearches != math.Trunc(page.TotalSearches) { // the schema says integer
		return nil, &DecodeError{Endpoint: ep, Field: "totalSearches", Reason: "not an integer: " + strconv.FormatFloat(page.TotalSearches, 'g', -1, 64)}
	}
	var ok bool
	if page.NextCursor, ok = w.NextCursor.nullable(); !ok {
		return nil, &DecodeError{Endpoint: ep, Field: "nextCursor", Reason: w.NextCursor.problem("string or null")}
	}
	page.Rows = make([]SearchTerm, 0, len(w.Rows))
	for i := range w.Rows {
		r := &w.Rows[i]
		top, topOK := r.TopClickedPage.nullable()
		switch {
		case r.SearchQuery.kind != '"' || !topOK:
			page.Skipped.add(SkipBadRow)
		case r.SearchQuery.s == "":
			page.Skipped.add(SkipEmptyTerm)
		case !countsOK(&r.Hits, &r.CTR):
			page.Skipped.add(SkipBadCount)
		default:
			var last *time.Time // nil unless an RFC 3339 date-time came
			if t, err := time.Parse(time.RFC3339Nano, r.LastSearchedAt.s); err == nil && r.LastSearchedAt.kind == '"' {
				last = &t
			}
			page.Rows = append(page.Rows, SearchTerm{
				Query:          labelText(r.SearchQuery.s),
				Hits:           r.Hits.n,
				CTR:            r.CTR.n,
				TopClickedPage: top,
				LastSearchedAt: last,
			})
		}
	}
	return page, nil
}
