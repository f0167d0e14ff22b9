package client

import (
	"context"
	"strconv"
	"time"
)

// DefaultBaseURL is the address of Mintlify's public REST API.
const DefaultBaseURL = "https://api.mintlify.com"

// Endpoint names one upstream operation: a label value, never a URL. An
// Endpoint is made only by analytics or free, in this file, so its budget
// class is part of it; the zero Endpoint is refused unsent.
type Endpoint struct{ def *endpointDef }

type endpointDef struct {
	name    string
	free    bool  // outside the analytics rate limit; the zero value is counted
	maxBody int64 // see MaxBody
}

// Endpoints lists every endpoint, in the order they are defined.
var Endpoints []Endpoint

// analytics defines an endpoint Hooks.Allow counts against the
// organization's analytics rate limit (100 requests an hour).
func analytics(name string, maxBody int64) Endpoint {
	return define(endpointDef{name: name, maxBody: maxBody})
}

// free defines an endpoint outside the analytics rate limit.
func free(name string, maxBody int64) Endpoint {
	return define(endpointDef{name: name, free: true, maxBody: maxBody})
}

func define(d endpointDef) Endpoint {
	for _, e := range Endpoints {
		if e.def.name == d.name {
			panic("client: endpoint " + d.name + " defined twice")
		}
	}
	e := Endpoint{def: &d}
	Endpoints = append(Endpoints, e)
	return e
}

// The upstream operations (a 250-row visitors page is about 30 KB: 8 MiB
// allows 32 KiB a row; a conversations page holds up to 1,000 turns).
var (
	EndpointVisitors       = analytics("visitors", 8<<20)         // GET /v1/analytics/{projectId}/visitors
	EndpointViews          = analytics("views", 8<<20)            // GET /v1/analytics/{projectId}/views
	EndpointCallerStats    = analytics("caller_stats", 1<<20)     // GET /v1/analytics/{projectId}/assistant/caller-stats
	EndpointFeedbackByPage = analytics("feedback_by_page", 4<<20) // GET /v1/analytics/{projectId}/feedback/by-page
	EndpointSearches       = analytics("searches", 4<<20)         // GET /v1/analytics/{projectId}/searches
	EndpointConversations  = analytics("conversations", 32<<20)   // GET /v1/analytics/{projectId}/assistant
	EndpointGetJob         = free("get_job", 1<<20)               // GET /v2/agent/{projectId}/job/{id}
	EndpointSendMessage    = free("send_message", 1<<20)          // POST /v2/agent/{projectId}/job/{id}/message
	EndpointListJobs       = free("list_jobs", 8<<20)             // deprecated GET /v1/agent/{projectId}/jobs
	EndpointCreateJob      = free("create_job", 1<<20)            // POST /v2/agent/{projectId}/job
)

// String is the endpoint's name, its "endpoint" label value.
func (e Endpoint) String() string {
	if e.def == nil {
		return ""
	}
	return e.def.name
}

// Analytics reports whether the endpoint spends the analytics rate limit;
// the zero Endpoint does.
func (e Endpoint) Analytics() bool { return e.def == nil || !e.def.free }

// MaxBody is the largest answer of the endpoint the client reads (larger is
// ErrBodyTooLarge), lowered by Config.MaxBodyBytes.
func (e Endpoint) MaxBody() int64 {
	if e.def == nil {
		return DefaultMaxBodyBytes
	}
	return e.def.maxBody
}

func (e Endpoint) defined() bool { return e.def != nil }

// Attempt describes one HTTP attempt; retries are separate attempts.
type Attempt struct {
	Endpoint Endpoint
	// StatusCode is 0 when no response arrived; Err is then the transport
	// error, else the error that cut reading the body short.
	StatusCode int
	Err        error
	Duration   time.Duration
}

// Code is the attempt's outcome as a label value: the status code, or
// "error" when no whole response arrived.
func (a Attempt) Code() string {
	if a.StatusCode == 0 || a.Err != nil {
		return "error"
	}
	return strconv.Itoa(a.StatusCode)
}

// Hooks lets the caller account for and observe every attempt.
type Hooks struct {
	// Allow is called before every attempt, retries included; it may wait
	// (for a budget) until ctx ends. An error stops the call unsent.
	Allow func(ctx context.Context, e Endpoint) error
	// Observe is called after every attempt sent.
	Observe func(Attempt)
	// Unsent is called after an allowed attempt that never reached the API
	// (IsConnectFailure): a budget may take it back.
	Unsent func(e Endpoint)
}
