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
	return c.WalkJobsV1(ctx, projectID, ListJobsOptions{})
}

// WalkJobsV1 reads every page of the v1 listing until one is shorter than
// take. A session listed twice (a job created during the walk shifts the
// newest-first listing) is kept once; a malformed one is skipped; a failed
// page fails the walk.
func (c *Client) WalkJobsV1(ctx context.Context, projectID string, opts ListJobsOptions) ([]LegacySession, error) {
	out, _, err := c.ListJobsV1Counting(ctx, projectID, opts)
	return out, err
}
