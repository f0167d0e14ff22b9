package mintlifytest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// AnyOffset makes a Fault match visitors requests at every offset.
const AnyOffset = -1

// Fault is a programmed misbehaviour. A request matches when it passed
// authentication and its endpoint, project and (for visitors) offset match.
// Each matching request counts towards AfterN; the first fault (in the
// order they were added) that is past its AfterN and has firings left
// fires, and only that one counts the firing.
type Fault struct {
	// Endpoint is EndpointVisitors, EndpointGetJob, EndpointSendMessage,
	// EndpointListJobs or EndpointCreateJob; "" matches any.
	Endpoint string
	// Project matches the projectId; "" matches any.
	Project string
	// Offset restricts a fault to visitors requests with this offset (an
	// absent offset is 0; an unparsable one matches only AnyOffset). Note
	// that the zero value means offset 0: use AnyOffset for every page. It
	// is ignored for the other endpoints.
	Offset int
	// AfterN skips the first AfterN matching requests.
	AfterN int
	// Times is how many times the fault fires; 0 is forever.
	Times int

	// Status answers with this status and an API-shaped error body
	// ({"error": "..."}) instead of the real answer; nothing real happens
	// (no rate limit is spent, no message is delivered).
	Status int
	// RetryAfter is sent verbatim as the Retry-After header (meant for
	// Status 429); "" sends none.
	RetryAfter string
	// Body is sent verbatim instead of the real answer, with Status (200
	// when Status is 0).
	Body string
	// Delay waits this long (real time) before answering; a request whose
	// context ends first gets no answer.
	Delay time.Duration
	// Truncate sends the headers (with the full Content-Length) and the
	// first half of the body, then cuts the connection.
	Truncate bool
	// Reset cuts the connection without answering.
	Reset bool
	// HasMoreForever makes a visitors answer say hasMore:true, whatever the
	// data says.
	HasMoreForever bool
	// EmptyPage makes a visitors answer carry visitors:[] (hasMore stays as
	// the data says unless HasMoreForever).
	EmptyPage bool
	// DuplicateRows prepends the previous page's last row (the row at
	// offset-1) to a visitors page, which then has one row more than the
	// limit. No effect at offset 0.
	DuplicateRows bool
	// Mutate edits the real answer's JSON object, decoded with UseNumber,
	// before it is re-encoded and sent (after Status/Body when set). It is
	// not called when the body is not a JSON object. Values of type
	// json.RawMessage are written verbatim, which can inject invalid UTF-8
	// or any other bytes. Keys are re-encoded in sorted order.
	Mutate func(body map[string]any)
}

// faultState is an added Fault with its counters.
type faultState struct {
	Fault
	id    int
	seen  int
	fired int
}

// AddFault programs a fault and returns a function that removes it (safe to
// call more than once).
func (s *Server) AddFault(f Fault) (remove func()) {
	s.mu.Lock()
	s.faultSeq++
	id := s.faultSeq
	s.faults = append(s.faults, &faultState{Fault: f, id: id})
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, fs := range s.faults {
			if fs.id == id {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
				return
			}
		}
	}
}

// ClearFaults removes every fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	s.faults = nil
	s.mu.Unlock()
}

// matchFault counts the request against every matching fault and returns a
// copy of the one that fires, or nil.
func (s *Server) matchFault(rt route, q url.Values) *Fault {
	offset := AnyOffset
	if rt.endpoint == EndpointVisitors {
		offset = 0
		if v, ok := q["offset"]; ok {
			n, err := strconv.Atoi(v[0])
			if err != nil || n < 0 {
				offset = -2 // matches only AnyOffset
			} else {
				offset = n
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var fire *Fault
	for _, fs := range s.faults {
		if fs.Endpoint != "" && fs.Endpoint != rt.endpoint {
			continue
		}
		if fs.Project != "" && fs.Project != rt.project {
			continue
		}
		if rt.endpoint == EndpointVisitors && fs.Offset != AnyOffset && fs.Offset != offset {
			continue
		}
		fs.seen++
		if fire == nil && fs.seen > fs.AfterN && (fs.Times == 0 || fs.fired < fs.Times) {
			fs.fired++
			f := fs.Fault
			fire = &f
		}
	}
	return fire
}

// replaces reports whether the fault answers instead of the real endpoint.
func (f *Fault) replaces() bool { return f.Status != 0 || f.Body != "" }

// reply is the fault's own answer.
func (f *Fault) reply() reply {
	st := f.Status
	if st == 0 {
		st = http.StatusOK
	}
	rep := reply{status: st}
	switch {
	case f.Body != "":
		rep.body = []byte(f.Body)
	case st == http.StatusTooManyRequests:
		rep.body = errorJSON("Rate limit exceeded")
	default:
		rep.body = errorJSON(faultMessage(st))
	}
	if f.RetryAfter != "" {
		rep.header = http.Header{"Retry-After": {f.RetryAfter}}
	}
	return rep
}

// faultMessage is the error message of a synthesized error body.
func faultMessage(status int) string {
	if t := http.StatusText(status); t != "" {
		return t
	}
	return "Error " + strconv.Itoa(status)
}

// mutate decodes body, lets fn edit it and encodes it again. A body that is
// not a JSON object is returned unchanged.
func mutate(body []byte, fn func(map[string]any)) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return body
	}
	fn(m)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		// The test put something unencodable in the body; send what it
		// can see is broken rather than the unmodified answer.
		return errorJSON("mintlifytest: Mutate produced an unencodable body: " + err.Error())
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
