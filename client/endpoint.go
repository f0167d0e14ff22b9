package client

import (
	"context"
	"strconv"
	"time"
)

// DefaultBaseURL is the address of Mintlify's public REST API.
const DefaultBaseURL = "https://api.mintlify.com"

// Endpoint names one upstream operation; the name is a Prometheus label
// value, never a URL. Every endpoint is defined below by analytics or free,
// so its budget class is part of its definition.
type Endpoint string

// endpointDef is what an endpoint's definition fixes besides its name.
type endpointDef struct {
	analytics bool  // spends the organization's shared analytics limit
	maxBody   int64 // see MaxBody
}

var defs = map[Endpoint]endpointDef{}

// Endpoints lists every endpoint, in the order they are defined.
var Endpoints []Endpoint

// analytics defines an endpoint that spends the organization's analytics
// rate limit (100 requests per hour upstream): Hooks.Allow counts it.
func analytics(name string, maxBody int64) Endpoint {
	return define(name, endpointDef{analytics: true, maxBody: maxBody})
}

// free defines an endpoint outside the analytics rate limit.
func free(name string, maxBody int64) Endpoint {
	return define(name, endpointDef{maxBody: maxBody})
}

func define(name string, d endpointDef) Endpoint {
	e := Endpoint(name)
	if _, dup := defs[e]; dup {
		panic("client: endpoint " + name + " defined twice")
	}
	defs[e] = d
	Endpoints = append(Endpoints, e)
	return e
}

// The upstream operations, analytics first. Sizes: a 250-row visitors page
// is about 30 KB, so 8 MiB allows 32 KiB a row.
var (
	// EndpointVisitors is GET /v1/analytics/{projectId}/visitors.
	EndpointVisitors = analytics("visitors", 8<<20)
	// EndpointViews is GET /v1/analytics/{projectId}/views.
	EndpointViews = analytics("views", 8<<20)
	// EndpointCallerStats is GET /v1/analytics/{projectId}/assistant/caller-stats.
	EndpointCallerStats = analytics("caller_stats", 1<<20)
	// EndpointFeedbackByPage is GET /v1/analytics/{projectId}/feedback/by-page.
	EndpointFeedbackByPage = analytics("feedback_by_page", 4<<20)
	// EndpointSearches is GET /v1/analytics/{projectId}/searches.
	EndpointSearches = analytics("searches", 4<<20)
	// EndpointConversations is GET /v1/analytics/{projectId}/assistant
	// (up to 1,000 turns of text a page).
	EndpointConversations = analytics("conversations", 32<<20)
	// EndpointGetJob is GET /v2/agent/{projectId}/job/{id}.
	EndpointGetJob = free("get_job", 1<<20)
	// EndpointSendMessage is POST /v2/agent/{projectId}/job/{id}/message.
	EndpointSendMessage = free("send_message", 1<<20)
	// EndpointListJobs is the deprecated GET /v1/agent/{projectId}/jobs.
	EndpointListJobs = free("list_jobs", 8<<20)
	// EndpointCreateJob is POST /v2/agent/{projectId}/job.
	EndpointCreateJob = free("create_job", 1<<20)
)

// Analytics reports whether the endpoint spends the organization's shared
// analytics rate limit. A name defined by neither analytics nor free is
// counted: a missing definition can over-count, never bypass the budget.
func (e Endpoint) Analytics() bool {
	d, ok := defs[e]
	return !ok || d.analytics
}

// MaxBody is the largest answer of the endpoint the client reads (a larger
// one is ErrBodyTooLarge); with the walk's page concurrency it bounds what a
// walk holds in memory. Config.MaxBodyBytes lowers it further.
func (e Endpoint) MaxBody() int64 {
	if d, ok := defs[e]; ok {
		return d.maxBody
	}
	return DefaultMaxBodyBytes
}

// defined reports whether e was defined by analytics or free.
func (e Endpoint) defined() bool {
	_, ok := defs[e]
	return ok
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
