package client

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ParseRetryAfter parses a Retry-After header value: either delta-seconds
// ("120") or an HTTP-date ("Wed, 21 Oct 2015 07:28:00 GMT"), the latter
// relative to now. A date in the past, or negative seconds, give 0. ok is false for an empty or
// unparsable value.
func ParseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if len(v) > 1 && v[0] == '-' && isDigits(v[1:]) {
		// A negative delay means "now".
		return 0, true
	}
	if isDigits(v) {
		secs, err := strconv.ParseInt(v, 10, 64)
		if err != nil || secs > maxRetryAfterSeconds {
			// Absurdly long, or beyond int64: cap it.
			secs = maxRetryAfterSeconds
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d = t.Sub(now)
	if d < 0 {
		d = 0
	}
	return d, true
}

// The API's rate limits (../shared/API-NOTES.md), defined once.
const (
	// AnalyticsRequestsPerHour is the analytics limit: per organization,
	// shared by every analytics endpoint.
	AnalyticsRequestsPerHour = 100
	// AgentUsesPerHour is the limit of create-job and send-message
	// together, per project.
	AgentUsesPerHour = 100
)

// MaxRateLimitPause caps any pause after a 429, Retry-After included: the
// API's limits are per hour, so a longer pause would be an error (an
// upstream bug, a far-future date) that could stop a client for good.
const MaxRateLimitPause = time.Hour

// maxRetryAfterSeconds caps delta-seconds so the duration cannot overflow
// (one year is already far beyond anything meaningful).
const maxRetryAfterSeconds = 365 * 24 * 60 * 60

// isDigits reports whether s is a non-empty string of ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
