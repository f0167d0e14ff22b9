package client

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Errors returned (wrapped) by the client; test for them with errors.Is.
var (
	// ErrEmptyPrompt: SendMessage sends nothing for an empty prompt.
	ErrEmptyPrompt = errors.New("empty prompt: the API requires at least one character")
	// ErrTooManyPages ends a walk still having more after MaxPages pages.
	ErrTooManyPages = errors.New("too many pages")
	// ErrBodyTooLarge: a body over its cap; it is never silently cut.
	ErrBodyTooLarge = errors.New("response body too large")
)

// APIError is an HTTP answer other than 2xx.
type APIError struct {
	Endpoint   Endpoint
	StatusCode int
	// Message is the API's "error", an excerpt of the body or status text.
	Message string
	Details []string
	// RetryAfter is the parsed Retry-After, if HasRetryAfter.
	RetryAfter    time.Duration
	HasRetryAfter bool
}

// Error formats the error as `endpoint: HTTP code: message (details)`.
func (e *APIError) Error() string {
	s := fmt.Sprintf("%s: HTTP %d", e.Endpoint, e.StatusCode)
	if e.Message != "" {
		s += ": " + e.Message
	}
	if len(e.Details) > 0 {
		s += " (" + strings.Join(e.Details, "; ") + ")"
	}
	if e.HasRetryAfter {
		s += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	// A 403: the IP is not on the allowlist, or the key lacks the read
	// (GET) or write (POST) scope.
	switch {
	case e.StatusCode != http.StatusForbidden:
	case e.Endpoint.Method() == http.MethodPost:
		s += ": the key needs the write scope, or this IP is not on the organization's allowlist"
	default:
		s += ": this IP is not on the organization's allowlist, or the key lacks the read scope"
	}
	return s
}

// DecodeError is a response without the documented shape.
type DecodeError struct {
	Endpoint Endpoint
	// Field is the offending field's path; "" for the whole body.
	Field  string
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
	if ae, ok := errors.AsType[*APIError](err); ok {
		return ae.StatusCode
	}
	return 0
}

// IsNotFound reports whether err is an HTTP 404 answer.
func IsNotFound(err error) bool { return statusOf(err) == http.StatusNotFound }

// IsUnauthorized reports whether err is an HTTP 401: a wrong or dead key.
func IsUnauthorized(err error) bool { return statusOf(err) == http.StatusUnauthorized }

// IsRefused reports whether err is a 401 or 403 (see APIError.Error):
// every request with the same key from the same place will be refused too.
func IsRefused(err error) bool {
	return IsUnauthorized(err) || statusOf(err) == http.StatusForbidden
}

// IsTransient reports whether the same request may succeed later: err is a
// 429, a 5xx or a failure without an answer. An answer the client refused
// (malformed or too large), an invalid id and a refused certificate are
// not: they recur until the API or the configuration changes.
func IsTransient(err error) bool {
	if ae, ok := errors.AsType[*APIError](err); ok {
		return ae.StatusCode == http.StatusTooManyRequests || ae.StatusCode >= http.StatusInternalServerError
	}
	_, decode := errors.AsType[*DecodeError](err)
	return !decode && !errors.Is(err, ErrBodyTooLarge) && !errors.Is(err, ErrInvalidID) && !IsCertificateError(err)
}

// IsRateLimited reports whether err is an HTTP 429, with its Retry-After.
func IsRateLimited(err error) (retryAfter time.Duration, hasRetryAfter bool, ok bool) {
	if ae, isAPI := errors.AsType[*APIError](err); isAPI && ae.StatusCode == http.StatusTooManyRequests {
		return ae.RetryAfter, ae.HasRetryAfter, true
	}
	return 0, false, false
}
