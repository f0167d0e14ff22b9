// Package client is a small, strict client of Mintlify's REST API: the
// analytics endpoints (unique visitors and page views, one page or a whole
// walk of every page; assistant caller stats; feedback by page; searches;
// a cursor walk of assistant conversations), the agent job read and
// follow-up message operations, and the deprecated v1 job listing.
//
// The client does not import Prometheus. Callers account for and observe
// every HTTP attempt through [Hooks]: Allow is asked before each attempt
// (retries included) and may refuse it, Observe is told about each attempt
// that was sent.
//
// Analytics answers are decoded by typed encoding/json plus validation, one
// path per endpoint. A malformed page (not JSON, a required field missing
// or of the wrong type, a bad site-wide count) is a [*DecodeError] naming
// the offending field. A malformed row (not an object, an empty path or
// search term, a count that is missing, negative or not a number) is left
// out and counted in a [Skipped] by reason; the rest of the page is kept.
// Counts are JSON numbers: 12, 12.0 and 1.2e1 are read alike. Unknown
// fields are ignored and unknown enum values kept. Job answers are read
// strictly, field by field.
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
