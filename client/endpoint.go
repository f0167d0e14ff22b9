package client

import (
	"context"
	"strconv"
	"time"
)

// DefaultBaseURL is the address of Mintlify's public REST API.
const DefaultBaseURL = "https://api.mintlify.com"

// Endpoint names one upstream operation. The names are fixed and short so
// they can be used as Prometheus label values; they are never URLs.
type Endpoint string

// The upstream operations the client knows. The six analytics endpoints
// share the organization's analytics rate limit.
const (
	// EndpointVisitors is GET /v1/analytics/{projectId}/visitors.
	EndpointVisitors Endpoint = "visitors"
	// EndpointViews is GET /v1/analytics/{projectId}/views.
	EndpointViews Endpoint = "views"
	// EndpointCallerStats is GET /v1/analytics/{projectId}/assistant/caller-stats.
	EndpointCallerStats Endpoint = "caller_stats"
	// EndpointFeedbackByPage is GET /v1/analytics/{projectId}/feedback/by-page.
	EndpointFeedbackByPage Endpoint = "feedback_by_page"
	// EndpointSearches is GET /v1/analytics/{projectId}/searches.
	EndpointSearches Endpoint = "searches"
	// EndpointConversations is GET /v1/analytics/{projectId}/assistant.
	EndpointConversations Endpoint = "conversations"
	// EndpointGetJob is GET /v2/agent/{projectId}/job/{id}.
	EndpointGetJob Endpoint = "get_job"
	// EndpointSendMessage is POST /v2/agent/{projectId}/job/{id}/message.
	EndpointSendMessage Endpoint = "send_message"
	// EndpointListJobs is the deprecated GET /v1/agent/{projectId}/jobs.
	EndpointListJobs Endpoint = "list_jobs"
	// EndpointCreateJob is POST /v2/agent/{projectId}/job.
	EndpointCreateJob Endpoint = "create_job"
)

// Endpoints lists every endpoint, in a stable order: the analytics ones
// first.
var Endpoints = []Endpoint{
	EndpointVisitors, EndpointViews, EndpointCallerStats, EndpointFeedbackByPage, EndpointSearches, EndpointConversations,
	EndpointGetJob, EndpointSendMessage, EndpointListJobs, EndpointCreateJob,
}

// Analytics reports whether the endpoint spends the organization's shared
// analytics rate limit (100 requests per hour upstream).
func (e Endpoint) Analytics() bool {
	switch e {
	case EndpointVisitors, EndpointViews, EndpointCallerStats, EndpointFeedbackByPage, EndpointSearches, EndpointConversations:
		return true
	}
	return false
}

// Attempt describes one HTTP attempt against the upstream API, successful or
// not. Retries are separate attempts.
type Attempt struct {
	Endpoint Endpoint
	// StatusCode is the HTTP status received, or 0 when no response arrived.
	StatusCode int
	// Err is the transport error when no response arrived (StatusCode 0),
	// or the error that cut reading the response body short.
	Err      error
	Duration time.Duration
}

// Code is the attempt's outcome as a label value: the HTTP status code, or
// "error" when no whole response arrived (none at all, or a body cut by a
// timeout or a reset: the status alone is not an answer).
func (a Attempt) Code() string {
	if a.StatusCode == 0 || a.Err != nil {
		return "error"
	}
	return strconv.Itoa(a.StatusCode)
}

// Hooks lets the caller account for and observe every attempt without the
// client depending on Prometheus.
type Hooks struct {
	// Allow, when set, is called before every attempt, retries included,
	// with the call's context. It may wait (for a request budget, say) and
	// should return when ctx ends. A non-nil error stops the call before
	// anything is sent; the client returns that error (wrapped) to its
	// caller.
	Allow func(ctx context.Context, e Endpoint) error
	// Observe, when set, is called after every attempt that was sent.
	Observe func(Attempt)
	// Unsent, when set, is called after an attempt Allow allowed that
	// failed before a connection was made (see IsConnectFailure): it
	// cannot have reached the API, so a request budget may take it back.
	Unsent func(e Endpoint)
}
