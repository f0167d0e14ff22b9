package client

import "time"

// SetNow replaces the clock a Client uses to read HTTP-date Retry-After
// values, for tests.
func SetNow(c *Client, now func() time.Time) { c.now = now }
