// Package client is a small, strict client of Mintlify's REST API: the
// unique visitors export (one page or a whole walk of every page), the agent
// job read and follow-up message operations, and the deprecated v1 job
// listing.
//
// The client does not import Prometheus. Callers account for and observe
// every HTTP attempt through [Hooks]: Allow is asked before each attempt
// (retries included) and may refuse it, Observe is told about each attempt
// that was sent.
//
// Responses are decoded strictly: required fields must be present and of
// the right JSON type, counts must be non-negative integers written as
// integers (1.5, 12.0, 1e3, -1 and "12" are all refused), paths must be
// non-empty. Any violation, and malformed or truncated JSON, is returned as
// a [*DecodeError] naming the offending field.
//
// Transient failures (connection errors, per-attempt timeouts, unreadable
// response bodies, HTTP 500, 502, 503 and 504) are retried with capped
// exponential backoff and jitter, for the read-only GET operations. The
// POST of [Client.SendMessage] is retried only when the request certainly
// never reached the server (the connection could not be made). Other 4xx
// answers, 429 included, are never retried: they come back at once as an
// [*APIError] so the caller decides.
//
// The API key is sent only in the Authorization header. It never appears in
// an error returned by this package.
package client
