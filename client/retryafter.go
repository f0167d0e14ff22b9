package client

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ParseRetryAfter parses a Retry-After value: delta-seconds or an HTTP-date
// relative to now; the past gives 0. ok is false for an unparsable value.
func ParseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if isDigits(strings.TrimPrefix(v, "-")) {
		secs, _ := strconv.ParseInt(v, 10, 64) // out of range: the bound of its sign
		return time.Duration(min(max(secs, 0), maxRetryAfterSeconds)) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}

// The API's rate limits (../shared/API-NOTES.md).
const (
	// AnalyticsRequestsPerHour is per organization, for every analytics
	// endpoint together.
	AnalyticsRequestsPerHour = 100
	// AgentUsesPerHour is per project, create-job and send-message together.
	AgentUsesPerHour = 100
)

// MaxRateLimitPause caps any pause after a 429: the limits are hourly, so
// a longer Retry-After is an upstream error that could stop a client for
// good.
const MaxRateLimitPause = time.Hour

// maxRetryAfterSeconds keeps the duration from overflowing.
const maxRetryAfterSeconds = 365 * 24 * 60 * 60

func isDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
