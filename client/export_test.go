package client

import "context"

// ErrUndefinedEndpoint exposes errUndefinedEndpoint to the package's
// external tests.
var ErrUndefinedEndpoint = errUndefinedEndpoint

// Do sends a request of endpoint e for project p (and job j), for the
// external tests.
func (c *Client) Do(ctx context.Context, e Endpoint) error {
	_, err := c.do(ctx, &call{endpoint: e, project: "p", job: "j"})
	return err
}

// ListJobsV1 lists every agent session of a project through the deprecated
// v1 listing, the only way to discover jobs without their ids.
func (c *Client) ListJobsV1(ctx context.Context, projectID string) ([]LegacySession, error) {
	out, _, err := c.ListJobsV1Counting(ctx, projectID)
	return out, err
}
