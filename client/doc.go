// Package client is a strict client of Mintlify's REST API: the analytics
// endpoints (single pages and whole walks), the agent job operations and
// the deprecated v1 job listing. It does not import Prometheus: callers
// account for every attempt through [Hooks].
//
// A malformed page is a [*DecodeError] naming the field; a malformed
// analytics row is skipped and counted in a [Skipped]. Transient failures
// are retried for GETs (a POST only when it never reached the server);
// other 4xx answers, 429 included, come back at once as an [*APIError]. The
// API key is sent only in the Authorization header and never appears in an
// error.
package client
