package client

import "context"

// ErrUndefinedEndpoint exposes errUndefinedEndpoint to the package's
// external tests.
var ErrUndefinedEndpoint = errUndefinedEndpoint

// DoGet sends a GET of path as endpoint e, for the external tests.
func (c *Client) DoGet(ctx context.Context, e Endpoint, path string) error {
	_, err := c.do(ctx, &call{endpoint: e, method: "GET", path: path})
	return err
}
