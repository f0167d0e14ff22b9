package client

import (
	"context"
	"fmt"
)

// callerStatsWire is the wire form of caller stats.
type callerStatsWire struct {
	Web   wireNum `json:"web"`
	API   wireNum `json:"api"`
	Other wireNum `json:"other"`
	Total wireNum `json:"total"`
}

// CallerStats fetches a project's assistant queries by caller in r: one
// request whatever the site's size.
func (c *Client) CallerStats(ctx context.Context, projectID string, r DateRange) (*CallerStats, error) {
	p, err := segment("project id", projectID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EndpointCallerStats, err)
	}
	res, err := c.do(ctx, &call{
		endpoint: EndpointCallerStats,
		method:   "GET",
		path:     EndpointCallerStats.at(p),
		query:    rangeValues(r),
	})
	if err != nil {
		return nil, err
	}
	return decodeCallerStats(res.body)
}

// decodeCallerStats decodes and validates a caller stats answer.
func decodeCallerStats(body []byte) (*CallerStats, error) {
	ep := EndpointCallerStats
	var w callerStatsWire
	if err := decodePage(ep, body, &w, "", nil); err != nil {
		return nil, err
	}
	var s CallerStats
	var err error
	for _, f := range []struct {
		name string
		n    *wireNum
		v    *float64
	}{{"web", &w.Web, &s.Web}, {"api", &w.API, &s.API}, {"other", &w.Other, &s.Other}, {"total", &w.Total, &s.Total}} {
		if *f.v, err = requireNum(ep, f.name, f.n); err != nil {
			return nil, err
		}
	}
	return &s, nil
}
