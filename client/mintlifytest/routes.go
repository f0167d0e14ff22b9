package mintlifytest

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// Endpoint names as used in Fault.Endpoint, Request.Endpoint and
// CountRequests: the client's endpoint label values, from its table.
var (
	EndpointVisitors       = client.EndpointVisitors.String()
	EndpointViews          = client.EndpointViews.String()
	EndpointCallerStats    = client.EndpointCallerStats.String()
	EndpointFeedbackByPage = client.EndpointFeedbackByPage.String()
	EndpointSearches       = client.EndpointSearches.String()
	EndpointConversations  = client.EndpointConversations.String()
	EndpointGetJob         = client.EndpointGetJob.String()
	EndpointSendMessage    = client.EndpointSendMessage.String()
	EndpointListJobs       = client.EndpointListJobs.String()
	EndpointCreateJob      = client.EndpointCreateJob.String()
)

// analyticsEndpoint reports whether the endpoint spends the organization's
// shared analytics limit.
func analyticsEndpoint(ep string) bool {
	e, ok := client.EndpointNamed(ep)
	return ok && e.Analytics()
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

// parseRoute matches the request path against the routes of the client's
// endpoint table (client.Endpoints). Path segments are unescaped one by
// one, so an escaped "/" inside a project or job id stays part of the id.
// An empty segment matches nothing.
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
	for _, e := range client.Endpoints {
		if rt, ok := matchRoute(e, seg); ok {
			return rt, true
		}
	}
	return route{}, false
}

// matchRoute matches the unescaped segments against e's path.
func matchRoute(e client.Endpoint, seg []string) (route, bool) {
	tmpl := strings.Split(strings.TrimPrefix(e.Path(), "/"), "/")
	if len(tmpl) != len(seg) {
		return route{}, false
	}
	rt := route{endpoint: e.String(), method: e.Method()}
	for i, t := range tmpl {
		switch t {
		case "{projectId}":
			rt.project = seg[i]
		case "{id}":
			rt.job = seg[i]
		default:
			if t != seg[i] {
				return route{}, false
			}
		}
	}
	return rt, true
}

// analyticsHandler answers one analytics endpoint for a project's dataset;
// f is the fault that fired, if any.
type analyticsHandler func(s *Server, r *http.Request, rt route, ds *Dataset, f *Fault) reply

// analyticsHandlers are the fake's analytics endpoints, by name.
var analyticsHandlers = map[string]analyticsHandler{}

// handleAnalytics registers the handler of the analytics endpoint named
// name (client.Endpoint.String()), from an init function of its file.
func handleAnalytics(name string, h analyticsHandler) {
	if _, dup := analyticsHandlers[name]; dup {
		panic("mintlifytest: analytics endpoint " + name + " handled twice")
	}
	analyticsHandlers[name] = h
}

func init() {
	handleAnalytics(EndpointVisitors, (*Server).servePaths)
	handleAnalytics(EndpointViews, (*Server).servePaths)
	handleAnalytics(EndpointCallerStats, func(s *Server, r *http.Request, _ route, ds *Dataset, _ *Fault) reply {
		return s.serveCallerStats(r, ds)
	})
	handleAnalytics(EndpointFeedbackByPage, func(s *Server, r *http.Request, _ route, ds *Dataset, f *Fault) reply {
		return s.serveFeedbackByPage(r, ds, f)
	})
	handleAnalytics(EndpointSearches, func(s *Server, r *http.Request, _ route, ds *Dataset, f *Fault) reply {
		return s.serveSearches(r, ds, f)
	})
	handleAnalytics(EndpointConversations, func(s *Server, r *http.Request, _ route, ds *Dataset, f *Fault) reply {
		return s.serveConversations(r, ds, f)
	})
}
