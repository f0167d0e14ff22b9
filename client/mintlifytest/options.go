package mintlifytest

import "time"

// Option configures a Server at construction.
type Option func(*Server)

// WithClock sets the clock that decides "today", drives the job state
// machine and the rate limiters. The default is time.Now. Latency and fault
// delays are real time and do not use this clock.
func WithClock(now func() time.Time) Option {
	return func(s *Server) {
		if now != nil {
			s.now = now
		}
	}
}

// WithKeys replaces the set of accepted admin keys (default {DefaultKey}).
// An accepted key that has the prefix of an assistant key (mint_dsc_) or an
// index key (mint_us_) is answered 403: those kinds cannot use these
// endpoints.
func WithKeys(keys ...string) Option {
	return func(s *Server) { s.setKeys(keys) }
}

// WithRateLimit enables the organization-wide analytics rate limiter:
// perHour authorized requests to any of the analytics endpoints together
// (visitors, views, caller stats, feedback by page, searches,
// conversations) in any sliding hour of the clock.
// 0 turns it off (the default).
func WithRateLimit(perHour int) Option {
	return func(s *Server) { s.enableRateLimit(perHour) }
}

// WithoutRetryAfter makes the analytics limiter answer 429 without a
// Retry-After header, which the API does not promise.
func WithoutRetryAfter() Option {
	return func(s *Server) { s.noRetryAfter = true }
}

// WithLatency adds d of real time before every request is answered. A
// request whose context ends first is abandoned without an answer.
func WithLatency(d time.Duration) Option {
	return func(s *Server) { s.latency = d }
}

// WithProject registers a project and its analytics data. d may be nil for a
// project without analytics data (every range is then empty).
func WithProject(projectID string, d *Dataset) Option {
	return func(s *Server) { s.project(projectID).data = d }
}

// WithCreatedJobsRunning makes every job created through the API (POST
// /v2/agent/{projectId}/job) run for d of the clock, then complete with a
// pull request, as JobSpec.RunFor does for added jobs. By default (0) a
// created job stays active until the test changes it.
func WithCreatedJobsRunning(d time.Duration) Option {
	return func(s *Server) { s.createdRunFor = d }
}

// Events are called from the handler serving a request, so a test can wait
// for one instead of sleeping. They must not block for long.
type Events struct {
	// Arrived is called as a request enters the handler, before latency,
	// faults and the answer (its Status is 0).
	Arrived func(Request)
	// Logged is called once the request is in the log (see Request).
	Logged func(Request)
}

// WithEvents sets the functions called as requests arrive and are logged.
func WithEvents(e Events) Option {
	return func(s *Server) { s.events = e }
}
