package client

import "context"

// CallerStats fetches a project's assistant queries by caller in r: one
// request whatever the site's size.
func (c *Client) CallerStats(ctx context.Context, projectID string, r DateRange) (*CallerStats, error) {
	return getDecoded(ctx, c, decodeCallerStats, EndpointCallerStats, projectID, r, 0, 0)
}

func decodeCallerStats(ep Endpoint, body []byte) (*CallerStats, error) {
	var w struct {
		Web   leaf `json:"web"`
		API   leaf `json:"api"`
		Other leaf `json:"other"`
		Total leaf `json:"total"`
	}
	f := fields{ep: ep, err: decodePage(ep, body, &w)}
	return checked(&CallerStats{Web: f.count("web", &w.Web), API: f.count("api", &w.API), Other: f.count("other", &w.Other), Total: f.count("total", &w.Total)}, &f)
}
