package mintlifytest

import (
	"math"
	"time"
)

// messagesPerHour is the upstream limit on create and send-message, per
// project per hour. The fake always enforces it.
const messagesPerHour = 100

// slidingWindow admits at most limit events in any window of time ending
// now. An event at time t stops counting at t+window.
type slidingWindow struct {
	limit  int
	window time.Duration
	times  []time.Time // admitted events, oldest first
}

func newSlidingWindow(limit int, window time.Duration) *slidingWindow {
	return &slidingWindow{limit: limit, window: window}
}

// take admits one event at now, or reports how long until the oldest
// counted event leaves the window.
func (w *slidingWindow) take(now time.Time) (retryAfter time.Duration, ok bool) {
	retryAfter, ok = w.check(now)
	if ok {
		w.times = append(w.times, now)
	}
	return retryAfter, ok
}

// check is take without admitting the event.
func (w *slidingWindow) check(now time.Time) (retryAfter time.Duration, ok bool) {
	cut := now.Add(-w.window)
	i := 0
	for i < len(w.times) && !w.times[i].After(cut) {
		i++
	}
	if i > 0 {
		w.times = append(w.times[:0], w.times[i:]...)
	}
	if len(w.times) < w.limit {
		return 0, true
	}
	return w.times[0].Add(w.window).Sub(now), false
}

// retryAfterSeconds formats a wait as whole seconds, rounded up, at least 1.
func retryAfterSeconds(d time.Duration) int64 {
	return max(1, int64(math.Ceil(d.Seconds())))
}

// EnableRateLimit turns the organization-wide analytics limiter on with
// perHour requests per sliding hour, or off with 0. It starts with an empty
// window: earlier requests do not count.
func (s *Server) EnableRateLimit(perHour int) {
	s.mu.Lock()
	s.enableRateLimit(perHour)
	s.mu.Unlock()
}

func (s *Server) enableRateLimit(perHour int) {
	if perHour <= 0 {
		s.analytics = nil
		return
	}
	s.analytics = newSlidingWindow(perHour, time.Hour)
}

// SetRetryAfter says whether the analytics limiter's 429 answers carry a
// Retry-After header (they do unless WithoutRetryAfter or SetRetryAfter
// false): the API does not promise one.
func (s *Server) SetRetryAfter(send bool) {
	s.mu.Lock()
	s.noRetryAfter = !send
	s.mu.Unlock()
}

// retryAfter reports whether 429 answers of the limiter carry Retry-After.
func (s *Server) retryAfter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.noRetryAfter
}

// takeAnalytics spends one analytics request, or reports the wait.
func (s *Server) takeAnalytics(now time.Time) (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.analytics == nil {
		return 0, true
	}
	return s.analytics.take(now)
}
