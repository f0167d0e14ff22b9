package client

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Errors returned (wrapped) by the client; test for them with errors.Is.
var (
	// ErrEmptyPrompt is returned by SendMessage for an empty prompt; nothing
	// is sent.
	ErrEmptyPrompt = errors.New("empty prompt: the API requires at least one character")
	// ErrTooManyPages ends a walk that still had more pages after its
	// MaxPages pages (WalkOptions, CursorWalkOptions, ListJobsOptions).
	ErrTooManyPages = errors.New("too many pages")
	// ErrBodyTooLarge is returned when a response body exceeds
	// Config.MaxBodyBytes. The body is never silently cut.
	ErrBodyTooLarge = errors.New("response body too large")
)

// APIError is an HTTP answer other than 2xx.
type APIError struct {
	Endpoint   Endpoint
	StatusCode int
	// Message is the API's "error" field, or a short excerpt of a body that
	// is not the API's JSON error shape, or the HTTP status text when the
	// body is empty.
	Message string
	// Details holds the messages of the API's "details" array, if any.
	Details []string
	// RetryAfter is the parsed Retry-After header (delta-seconds or
	// HTTP-date), 0 when absent or unparsable; HasRetryAfter tells which.
	RetryAfter    time.Duration
	HasRetryAfter bool
}

// Error formats the error as `endpoint: HTTP code: message (details)`,
// followed for a 403 by what the status means for this endpoint (see
// Advice).
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: HTTP %d", e.Endpoint, e.StatusCode)
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if len(e.Details) > 0 {
		b.WriteString(" (")
		b.WriteString(strings.Join(e.Details, "; "))
		b.WriteString(")")
	}
	if e.HasRetryAfter {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	if a := e.Advice(); a != "" {
		b.WriteString(": ")
		b.WriteString(a)
	}
	return b.String()
}

// Advice says, for a 403, what the answer means for this endpoint and so
// what to do; "" for any other status. A 403 is not about the key being
// valid (that is a 401): the caller's IP is not on the organization's
// allowlist, or the key lacks the scope the call needs, read for the GET
// endpoints and write for send-message and create-job (POSTs).
func (e *APIError) Advice() string {
	switch e.StatusCode {
	case http.StatusForbidden:
		if e.Endpoint == EndpointSendMessage || e.Endpoint == EndpointCreateJob {
			return "the key needs the write scope, or this IP is not on the organization's allowlist"
		}
		return "this IP is not on the organization's allowlist, or the key lacks the read scope"
	}
	return ""
}

// DecodeError is a response that does not have the documented shape:
// malformed or truncated JSON, a missing required field, a wrong type or an
// invalid value.
type DecodeError struct {
	Endpoint Endpoint
	// Field is the offending field as a path, for example
	// "visitors[3].human" or "source.ref"; "" means the body as a whole.
	Field string
	// Reason says what is wrong, for example "negative count -1".
	Reason string
}

// Error formats the error as `endpoint: invalid response: field: reason`.
func (e *DecodeError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: invalid response body: %s", e.Endpoint, e.Reason)
	}
	return fmt.Sprintf("%s: invalid response: %s: %s", e.Endpoint, e.Field, e.Reason)
}

// statusOf returns the StatusCode of the APIError in err's chain, or 0.
func statusOf(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.StatusCode
	}
	return 0
}

// IsNotFound reports whether err is an HTTP 404 answer, for example an
// unknown job or project.
func IsNotFound(err error) bool { return statusOf(err) == http.StatusNotFound }

// IsUnauthorized reports whether err is an HTTP 401 answer: a missing,
// wrong, revoked or expired key. A 403 is not one: see IsForbidden, and
// IsRefused for either.
func IsUnauthorized(err error) bool { return statusOf(err) == http.StatusUnauthorized }

// IsForbidden reports whether err is an HTTP 403 answer: the caller's IP is
// not on the organization's allowlist, or the key lacks the scope the call
// needs (read for GET, write for send-message). APIError.Advice says which
// applies to the endpoint.
func IsForbidden(err error) bool { return statusOf(err) == http.StatusForbidden }

// IsRefused reports whether err is an HTTP 401 or 403 answer: the API
// refused the caller as a whole rather than one request, so further
// requests with the same key from the same place will be refused too.
func IsRefused(err error) bool { return IsUnauthorized(err) || IsForbidden(err) }

// IsRateLimited reports whether err is an HTTP 429 answer (ok) and, if so,
// the Retry-After it carried.
func IsRateLimited(err error) (retryAfter time.Duration, hasRetryAfter bool, ok bool) {
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusTooManyRequests {
		return 0, false, false
	}
	return ae.RetryAfter, ae.HasRetryAfter, true
}

// Advice returns what a person should do about err when the API refused
// the caller or the project: for a 401, the key; for a 404, the project
// id; "" otherwise (a 403's advice is part of its Error, see
// APIError.Advice).
func Advice(err error) string {
	switch {
	case IsUnauthorized(err):
		return "the admin API key was refused: check that it is an admin key of this organization and has not expired or been revoked"
	case IsNotFound(err):
		return "check --mintlify.project-id against the dashboard's API keys page"
	}
	return ""
}

// errorBodyOverread is how many bytes past its limit an answer's body is
// read: for an error answer, the length of the key, so that a key that
// starts before the cut is read whole and redacted (cutErrorBody) rather
// than cut into a fragment no redaction recognises.
func errorBodyOverread(ok bool, key string) int64 {
	if ok {
		return 0
	}
	return int64(len(key))
}

// cutErrorBody redacts key from an error answer's body, then cuts it to
// limit bytes: redacting first means a key across the cut never leaves a
// fragment.
func cutErrorBody(b []byte, limit int64, key string) []byte {
	if key != "" {
		b = bytes.ReplaceAll(b, []byte(key), []byte("[redacted]"))
	}
	if int64(len(b)) > limit {
		b = b[:limit]
	}
	return b
}

// maxDetails bounds the details an APIError keeps (each an excerpt), so
// that an answer of thousands of details gives a message of one line.
const maxDetails = 5

// boundDetails keeps the first maxDetails details and says how many more
// there were.
func boundDetails(d []string) []string {
	if len(d) <= maxDetails {
		return d
	}
	return append(d[:maxDetails:maxDetails], fmt.Sprintf("and %d more", len(d)-maxDetails))
}
