package client

import "context"

// CallerStats fetches a project's assistant queries by caller in r: one
// request whatever the site's size.
func (c *Client) CallerStats(ctx context.Context, projectID string, r DateRange) (*CallerStats, error) {
	body, err := c.getPage(ctx, EndpointCallerStats, projectID, r, 0, 0)
	if err != nil {
		return nil, err
	}
	return decodeCallerStats(body)
}

// decodeCallerStats decodes and validates a caller stats answer.
func decodeCallerStats(body []byte) (*CallerStats, error) {
	ep := EndpointCallerStats
	var w struct {
		Web   leaf `json:"web"`
		API   leaf `json:"api"`
		Other leaf `json:"other"`
		Total leaf `json:"total"`
	}
	if err := decodePage(ep, body, &w, "", nil); err != nil {
		return nil, err
	}
	var s CallerStats
	if err := requireNums(ep, numField{"web", &w.Web, &s.Web}, numField{"api", &w.API, &s.API},
		numField{"other", &w.Other, &s.Other}, numField{"total", &w.Total, &s.Total}); err != nil {
		return nil, err
	}
	return &s, nil
}
