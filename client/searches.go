package client

import (
	"context"
	"math"
	"strconv"
)

type searchRowWire struct {
	SearchQuery    leaf `json:"searchQuery"`
	Hits           leaf `json:"hits"`
	CTR            leaf `json:"ctr"`
	TopClickedPage leaf `json:"topClickedPage"`
}

// Searches fetches one page of a project's search terms in r, by hits
// descending; limit 0 and cursor "" are not sent. TotalSearches is
// site-wide whatever the limit. A malformed row is skipped (Skipped).
func (c *Client) Searches(ctx context.Context, projectID string, r DateRange, limit int, cursor string) (*SearchesPage, error) {
	return getDecoded(ctx, c, decodeSearches, EndpointSearches, projectID, r, limit, MaxSearchesLimit, "cursor", cursor)
}

func decodeSearches(ep Endpoint, body []byte) (*SearchesPage, error) {
	var w struct {
		Rows          []row[searchRowWire] `json:"searches"`
		TotalSearches leaf                 `json:"totalSearches"`
		NextCursor    leaf                 `json:"nextCursor"`
	}
	f := fields{ep: ep, err: decodePage(ep, body, &w)}
	page := &SearchesPage{}
	page.Rows = keepRows(&f, "searches", w.Rows, &page.Skipped, func(r *searchRowWire) (SearchTerm, string) {
		if !r.TopClickedPage.nullable() {
			return SearchTerm{}, SkipBadRow
		}
		return SearchTerm{Query: labelText(r.SearchQuery.s), Hits: r.Hits.n, CTR: r.CTR.n}, rowProblem(&r.SearchQuery, SkipEmptyTerm, &r.Hits, &r.CTR)
	})
	if page.TotalSearches = f.count("totalSearches", &w.TotalSearches); page.TotalSearches != math.Trunc(page.TotalSearches) { // the schema says integer
		f.fail("totalSearches", "not an integer: "+strconv.FormatFloat(page.TotalSearches, 'g', -1, 64))
	}
	page.NextCursor = f.nullString("nextCursor", &w.NextCursor)
	return checked(page, &f)
}
