package mintlifytest

import (
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Server is a fake of Mintlify's REST API. Every method is safe for
// concurrent use.
type Server struct {
	now func() time.Time

	url    string
	srv    *http.Server
	closed chan struct{}
	once   sync.Once

	mu        sync.Mutex
	keys      map[string]bool
	revoked   map[string]bool
	access    access // allowlist and key scopes (keys.go)
	latency   time.Duration
	analytics *slidingWindow // nil when the analytics limiter is off
	// noRetryAfter leaves Retry-After out of the limiter's 429 answers.
	noRetryAfter bool
	// unorderedPaths serves paths rows out of order (WithUnorderedPaths).
	unorderedPaths bool
	projects       map[string]*project
	faults         []*faultState
	faultSeq       int
	log            []Request
	prSeq          int
	jobSeq         int
	// createdRunFor is how long created jobs run (WithCreatedJobsRunning).
	createdRunFor time.Duration
	events        Events

	cache rangeCache
}

// project is one documentation project of the organization.
type project struct {
	data     *Dataset
	jobs     map[string]*job
	messages *slidingWindow // create and send-message, per project
}

// NewServer starts a fake API listening on 127.0.0.1 on a free port. Close
// it when done.
func NewServer(opts ...Option) *Server {
	s := NewUnstartedServer(opts...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("mintlifytest: cannot listen on 127.0.0.1: %v", err))
	}
	s.url = "http://" + ln.Addr().String()
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: time.Minute}
	go func() { _ = s.srv.Serve(ln) }()
	return s
}

// NewUnstartedServer returns a fake API that is not listening: serve
// s.Handler() yourself (the exporter's --demo mode does). URL returns "".
func NewUnstartedServer(opts ...Option) *Server {
	s := &Server{
		now:      time.Now,
		closed:   make(chan struct{}),
		projects: make(map[string]*project),
		revoked:  make(map[string]bool),
	}
	s.setKeys([]string{DefaultKey})
	for _, o := range opts {
		o(s)
	}
	return s
}

// URL is the base address of a started server, without a trailing slash,
// for example http://127.0.0.1:41234.
func (s *Server) URL() string { return s.url }

// Handler returns the fake API as an http.Handler.
func (s *Server) Handler() http.Handler { return s }

// Close stops the server, closes every connection and ends pending delays.
// It is safe to call more than once.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closed)
		if s.srv != nil {
			_ = s.srv.Close()
		}
	})
}

// SetLatency changes the real-time delay added before every answer.
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	s.latency = d
	s.mu.Unlock()
}

// project returns the project, creating it. The caller holds s.mu or is
// still constructing s.
func (s *Server) project(id string) *project {
	p := s.projects[id]
	if p == nil {
		p = &project{jobs: make(map[string]*job), messages: newSlidingWindow(messagesPerHour, time.Hour)}
		s.projects[id] = p
	}
	return p
}

// SetProject registers a project or replaces its analytics data at run time.
// d may be nil for a project without analytics data.
func (s *Server) SetProject(projectID string, d *Dataset) {
	s.mu.Lock()
	s.project(projectID).data = d
	s.mu.Unlock()
	s.cache.forget(projectID)
}

// dataset returns the project's analytics data and whether the project
// exists.
func (s *Server) dataset(projectID string) (*Dataset, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.projects[projectID]
	if !ok {
		return nil, false
	}
	return p.data, true
}

// sleep waits d of real time; it reports false when the request's context
// ended or the server closed first.
func (s *Server) sleep(done <-chan struct{}, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-done:
		return false
	case <-s.closed:
		return false
	}
}
