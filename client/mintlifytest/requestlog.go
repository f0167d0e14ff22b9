package mintlifytest

import (
	"net/url"
	"time"
)

// Request is one request the server received. It is logged when the status
// of its answer is decided, before the body is sent (or, when no answer is
// sent, when the request ends), so a client that has read an answer always
// finds its request in the log.
type Request struct {
	Method string
	// Path is the unescaped URL path.
	Path string
	// Endpoint is the endpoint name (EndpointVisitors, ...), "" when the
	// path matched no route.
	Endpoint string
	// Project is the projectId path segment, "" when no route matched.
	Project string
	Query   url.Values
	// Authorized reports whether the request passed authentication.
	Authorized bool
	// AuthHeader is the Authorization header exactly as received. It holds
	// the key: never print it.
	AuthHeader string
	// Body is the request body (at most 1 MiB of it).
	Body []byte
	// Status is the status sent, 0 when none was (connection reset, request
	// abandoned during latency).
	Status int
	// At is the server's clock (WithClock) when the request was logged.
	At time.Time
}

// record appends a request to the log.
func (s *Server) record(r Request) {
	r.At = s.now()
	s.mu.Lock()
	s.log = append(s.log, r)
	s.mu.Unlock()
	if s.events.Logged != nil {
		s.events.Logged(r)
	}
}

// Requests returns a copy of the log of every request received so far, in
// the order they were logged.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.log))
	copy(out, s.log)
	return out
}

// ResetRequests empties the request log.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	s.log = nil
	s.mu.Unlock()
}

// CountRequests returns how many logged requests went to the endpoint;
// endpoint "" counts every request.
func (s *Server) CountRequests(endpoint string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if endpoint == "" {
		return len(s.log)
	}
	n := 0
	for _, r := range s.log {
		if r.Endpoint == endpoint {
			n++
		}
	}
	return n
}
