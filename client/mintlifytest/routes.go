package mintlifytest

import (
	"net/http"
	"net/url"
	"strings"
)

// Endpoint names as used in Fault.Endpoint, Request.Endpoint and
// CountRequests. They match the exporter's endpoint label values.
const (
	EndpointVisitors       = "visitors"         // GET /v1/analytics/{projectId}/visitors
	EndpointViews          = "views"            // GET /v1/analytics/{projectId}/views
	EndpointCallerStats    = "caller_stats"     // GET /v1/analytics/{projectId}/assistant/caller-stats
	EndpointFeedbackByPage = "feedback_by_page" // GET /v1/analytics/{projectId}/feedback/by-page
	EndpointSearches       = "searches"         // GET /v1/analytics/{projectId}/searches
	EndpointConversations  = "conversations"    // GET /v1/analytics/{projectId}/assistant
	EndpointGetJob         = "get_job"          // GET /v2/agent/{projectId}/job/{id}
	EndpointSendMessage    = "send_message"     // POST /v2/agent/{projectId}/job/{id}/message
	EndpointListJobs       = "list_jobs"        // GET /v1/agent/{projectId}/jobs (deprecated)
	EndpointCreateJob      = "create_job"       // POST /v2/agent/{projectId}/job
)

// analyticsEndpoint reports whether the endpoint spends the organization's
// shared analytics limit.
func analyticsEndpoint(ep string) bool {
	switch ep {
	case EndpointVisitors, EndpointViews, EndpointCallerStats, EndpointFeedbackByPage, EndpointSearches, EndpointConversations:
		return true
	}
	return false
}

// offsetPaged reports whether the endpoint pages with offset.
func offsetPaged(ep string) bool { return ep == EndpointVisitors || ep == EndpointViews }

// route is a request matched to an endpoint.
type route struct {
	endpoint string
	method   string
	project  string
	job      string
}

// parseRoute matches the request path against the API's routes. Path
// segments are unescaped one by one, so an escaped "/" inside a project or
// job id stays part of the id. An empty segment matches nothing.
func parseRoute(u *url.URL) (route, bool) {
	raw := strings.Split(strings.TrimPrefix(u.EscapedPath(), "/"), "/")
	seg := make([]string, len(raw))
	for i, r := range raw {
		v, err := url.PathUnescape(r)
		if err != nil || v == "" {
			return route{}, false
		}
		seg[i] = v
	}
	if len(seg) >= 4 && seg[0] == "v1" && seg[1] == "analytics" {
		ep := ""
		switch rest := strings.Join(seg[3:], "/"); rest {
		case "visitors":
			ep = EndpointVisitors
		case "views":
			ep = EndpointViews
		case "assistant/caller-stats":
			ep = EndpointCallerStats
		case "feedback/by-page":
			ep = EndpointFeedbackByPage
		case "searches":
			ep = EndpointSearches
		case "assistant":
			ep = EndpointConversations
		}
		if ep == "" {
			return route{}, false
		}
		return route{endpoint: ep, method: http.MethodGet, project: seg[2]}, true
	}
	switch {
	case len(seg) == 4 && seg[0] == "v1" && seg[1] == "agent" && seg[3] == "jobs":
		return route{endpoint: EndpointListJobs, method: http.MethodGet, project: seg[2]}, true
	case len(seg) == 4 && seg[0] == "v2" && seg[1] == "agent" && seg[3] == "job":
		return route{endpoint: EndpointCreateJob, method: http.MethodPost, project: seg[2]}, true
	case len(seg) == 5 && seg[0] == "v2" && seg[1] == "agent" && seg[3] == "job":
		return route{endpoint: EndpointGetJob, method: http.MethodGet, project: seg[2], job: seg[4]}, true
	case len(seg) == 6 && seg[0] == "v2" && seg[1] == "agent" && seg[3] == "job" && seg[5] == "message":
		return route{endpoint: EndpointSendMessage, method: http.MethodPost, project: seg[2], job: seg[4]}, true
	}
	return route{}, false
}
