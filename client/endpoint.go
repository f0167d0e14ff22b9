package client

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultBaseURL is the address of Mintlify's public REST API.
const DefaultBaseURL = "https://api.mintlify.com"

// Endpoint names one upstream operation: a label value, never a URL. An
// Endpoint is made only by Analytics or free, so its budget class is part
// of it; the zero Endpoint is refused unsent.
type Endpoint struct {
	name    string
	free    bool  // outside the analytics rate limit; the zero value is counted
	maxBody int64 // see MaxBody
	method  string
	path    string // see Path
}

// Endpoints lists every endpoint, in the order they are defined: the
// table the fake API (client/mintlifytest) routes by.
var Endpoints []Endpoint

// Analytics defines a GET endpoint that Hooks.Allow counts against the
// organization's analytics rate limit (100 requests an hour): name is its
// label value, path its route with {projectId}, maxBody its MaxBody. An
// analytics source defines its endpoint in its descriptor, at package
// initialization; a name or path defined twice panics there.
func Analytics(name, path string, maxBody int64) Endpoint {
	return define(Endpoint{name: name, maxBody: maxBody, method: http.MethodGet, path: path})
}

// free defines an endpoint outside the analytics rate limit.
func free(name, method, path string, maxBody int64) Endpoint {
	return define(Endpoint{name: name, free: true, maxBody: maxBody, method: method, path: path})
}

func define(d Endpoint) Endpoint {
	if slices.ContainsFunc(Endpoints, func(e Endpoint) bool { return e.name == d.name || e.method == d.method && e.path == d.path }) {
		panic("client: endpoint " + d.name + " or " + d.method + " " + d.path + " defined twice")
	}
	Endpoints = append(Endpoints, d)
	return d
}

// The upstream operations (a 250-row visitors page is about 30 KB: 8 MiB
// allows 32 KiB a row; a conversations page holds up to 1,000 turns).
var (
	EndpointVisitors       = Analytics("visitors", "/v1/analytics/{projectId}/visitors", 8<<20)
	EndpointViews          = Analytics("views", "/v1/analytics/{projectId}/views", 8<<20)
	EndpointCallerStats    = Analytics("caller_stats", "/v1/analytics/{projectId}/assistant/caller-stats", 1<<20)
	EndpointFeedbackByPage = Analytics("feedback_by_page", "/v1/analytics/{projectId}/feedback/by-page", 4<<20)
	EndpointSearches       = Analytics("searches", "/v1/analytics/{projectId}/searches", 4<<20)
	EndpointConversations  = Analytics("conversations", "/v1/analytics/{projectId}/assistant", 32<<20)
	EndpointGetJob         = free("get_job", http.MethodGet, "/v2/agent/{projectId}/job/{id}", 1<<20)
	EndpointSendMessage    = free("send_message", http.MethodPost, "/v2/agent/{projectId}/job/{id}/message", 1<<20)
	EndpointListJobs       = free("list_jobs", http.MethodGet, "/v1/agent/{projectId}/jobs", 8<<20) // deprecated
	EndpointCreateJob      = free("create_job", http.MethodPost, "/v2/agent/{projectId}/job", 1<<20)
)

// EndpointNamed returns the endpoint defined with name.
func EndpointNamed(name string) (Endpoint, bool) {
	for _, e := range Endpoints {
		if e.name == name {
			return e, true
		}
	}
	return Endpoint{}, false
}

// Method is the endpoint's HTTP method; "" for the zero Endpoint.
func (e Endpoint) Method() string { return e.method }

// Path is the endpoint's route, its parameters in braces ({projectId},
// {id}); "" for the zero Endpoint.
func (e Endpoint) Path() string { return e.path }

// route returns the endpoint's escaped path for project (and job, for the
// routes with {id}); an empty or dot id is refused unsent.
func (e Endpoint) route(project, job string) (string, error) {
	project, err := segment("project id", project)
	if err == nil && strings.Contains(e.path, "{id}") {
		job, err = segment("job id", job)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", e, err)
	}
	return strings.NewReplacer("{projectId}", project, "{id}", job).Replace(e.path), nil
}

// String is the endpoint's name, its "endpoint" label value.
func (e Endpoint) String() string { return e.name }

// Analytics reports whether the endpoint spends the analytics rate limit;
// the zero Endpoint does.
func (e Endpoint) Analytics() bool { return !e.free }

// MaxBody is the largest answer of the endpoint the client reads (larger is
// ErrBodyTooLarge); DefaultMaxBodyBytes for the zero Endpoint.
func (e Endpoint) MaxBody() int64 { return cmp.Or(e.maxBody, DefaultMaxBodyBytes) }

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
