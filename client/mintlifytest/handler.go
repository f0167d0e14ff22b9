package mintlifytest

import (
	"io"
	"net/http"
	"strconv"
)

// maxRequestBody is how much of a request body the fake reads.
const maxRequestBody = 1 << 20

// reply is an answer before faults that change the wire format apply.
type reply struct {
	status int
	body   []byte
	header http.Header
	// abandon means the request's context ended: answer nothing.
	abandon bool
}

// ServeHTTP serves the fake API. To cut a connection (Reset and Truncate
// faults, a request abandoned while waiting, Close) it panics with
// http.ErrAbortHandler, so call it through an http.Server.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := Request{
		Method:     r.Method,
		Path:       r.URL.Path,
		Query:      r.URL.Query(),
		AuthHeader: r.Header.Get("Authorization"),
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxRequestBody))
	if len(body) > 0 {
		rec.Body = body
	}
	rt, routed := parseRoute(r.URL)
	rec.Endpoint, rec.Project = rt.endpoint, rt.project
	if s.events.Arrived != nil {
		s.events.Arrived(rec)
	}
	// The request is logged as soon as its answer's status is decided,
	// before the body is written, so a client that has read its answer
	// always finds its request in the log; a request that gets no answer is
	// logged when it ends.
	logged := false
	logOnce := func() {
		if !logged {
			logged = true
			s.record(rec)
		}
	}
	defer logOnce()

	s.mu.Lock()
	latency := s.latency
	s.mu.Unlock()
	if !s.sleep(r.Context().Done(), latency) {
		panic(http.ErrAbortHandler) // answer nothing: returning would send an empty 200
	}
	rep, f := s.answer(r, rt, routed, body, &rec)
	s.send(w, rep, f, func(status int) {
		rec.Status = status
		logOnce()
	})
}

// answer routes, authenticates, applies a fault's replacement and serves the
// endpoint. It returns the answer and the fault that fired, if any.
func (s *Server) answer(r *http.Request, rt route, routed bool, body []byte, rec *Request) (reply, *Fault) {
	if !routed {
		return reply{status: http.StatusNotFound, body: errorJSON("Not found")}, nil
	}
	if r.Method != rt.method {
		return reply{
			status: http.StatusMethodNotAllowed,
			body:   errorJSON("Method not allowed"),
			header: http.Header{"Allow": {rt.method}},
		}, nil
	}
	if status, msg := s.authorize(r); status != 0 {
		return reply{status: status, body: errorJSON(msg)}, nil
	}
	rec.Authorized = true
	f := s.matchFault(rt, rec.Query)
	if f != nil {
		if !s.sleep(r.Context().Done(), f.Delay) {
			return reply{abandon: true}, f
		}
		if f.Reset {
			return reply{}, f
		}
		if f.replaces() {
			return f.reply(), f
		}
	}
	if analyticsEndpoint(rt.endpoint) {
		return s.serveAnalytics(r, rt, f), f
	}
	switch rt.endpoint {
	case EndpointGetJob:
		return s.serveGetJob(rt), f
	case EndpointSendMessage:
		return s.serveSendMessage(r, rt, body), f
	case EndpointCreateJob:
		return s.serveCreateJob(r, rt, body), f
	default:
		return s.serveListJobs(r, rt), f
	}
}

// send writes the answer, applying the wire-level faults. It calls answered
// with the status before writing the body.
func (s *Server) send(w http.ResponseWriter, rep reply, f *Fault, answered func(status int)) {
	if rep.abandon || f != nil && f.Reset {
		panic(http.ErrAbortHandler)
	}
	body := rep.body
	if f != nil && rep.status == http.StatusOK && (f.BadRow != 0 || f.CountFormat != 0) {
		body = mutate(body, func(m map[string]any) { f.edit(m) })
	}
	if f != nil && f.Mutate != nil {
		body = mutate(body, f.Mutate)
	}
	h := w.Header()
	for k, v := range rep.header {
		h[k] = v
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	answered(rep.status)
	w.WriteHeader(rep.status)
	if f != nil && f.Truncate {
		_, _ = w.Write(body[:len(body)/2])
		_ = http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler)
	}
	_, _ = w.Write(body)
}
