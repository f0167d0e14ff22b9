package mintlifytest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// AnyOffset makes a Fault match visitors and views requests at every
// offset.
const AnyOffset = -1

// CountFormat says how a fault writes the counts of an answer. The API
// publishes counts as JSON numbers, not integers, so a client must read
// every form alike.
type CountFormat int

// The count formats.
const (
	// CountsAsIntegers is the fake's usual form: 12.
	CountsAsIntegers CountFormat = iota
	// CountsWithFraction writes whole counts with a fraction: 12.0.
	CountsWithFraction
	// CountsWithExponent writes whole counts with an exponent: 1.2e+01.
	CountsWithExponent
)

// BadRowKind is a malformation a fault gives one row of an answer.
type BadRowKind int

// The row malformations.
const (
	// NoBadRow leaves rows alone.
	NoBadRow BadRowKind = iota
	// RowEmptyPath sets the row's path (searchQuery for searches) to "".
	RowEmptyPath
	// RowNegativeCount sets the row's first count (human, thumbsUp or
	// hits) to -1; for caller stats, web.
	RowNegativeCount
	// RowStringCount sets the row's first count to the string "12".
	RowStringCount
	// RowMissingCount removes the row's first count.
	RowMissingCount
	// RowNotObject replaces the row with the string "oops".
	RowNotObject
)

// Fault is a programmed misbehaviour. A request matches when it passed
// authentication and its endpoint, project and (for visitors and views)
// offset match.
// Each matching request counts towards AfterN; the first fault (in the
// order they were added) that is past its AfterN and has firings left
// fires, and only that one counts the firing.
type Fault struct {
	// Endpoint is one of the Endpoint constants (EndpointVisitors,
	// EndpointViews, EndpointCallerStats, EndpointFeedbackByPage,
	// EndpointSearches, EndpointConversations, EndpointGetJob,
	// EndpointSendMessage, EndpointListJobs, EndpointCreateJob); "" matches
	// any.
	Endpoint string
	// Project matches the projectId; "" matches any.
	Project string
	// Offset restricts a fault to visitors and views requests with this
	// offset (an absent offset is 0; an unparsable one matches only
	// AnyOffset). Note that the zero value means offset 0: use AnyOffset for
	// every page. It is ignored for the other endpoints.
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
	// BodyBytes is Body for large answers: sent verbatim, never copied, so
	// one slice of 100 MB can answer many requests.
	BodyBytes []byte
	// ContentEncoding, when set, is sent as the Content-Encoding header:
	// "gzip" with a gzip-compressed BodyBytes (a gzip bomb) makes a client
	// that asked for gzip undo it.
	ContentEncoding string
	// Delay waits this long (real time) before answering; a request whose
	// context ends first gets no answer.
	Delay time.Duration
	// Truncate sends the headers (with the full Content-Length) and the
	// first half of the body, then cuts the connection.
	Truncate bool
	// Reset cuts the connection without answering.
	Reset bool
	// HasMoreForever makes an answer say there is more, whatever the data
	// says: hasMore true (visitors, views, feedback by page,
	// conversations) and, for searches and conversations, a nextCursor
	// (for conversations the last turn's, when there is one).
	HasMoreForever bool
	// EmptyPage makes an answer carry an empty row array (hasMore and
	// nextCursor stay as the data says unless another field changes them).
	EmptyPage bool
	// DuplicateRows prepends the previous page's last row (the row at
	// offset-1) to a visitors or views page, which then has one row more
	// than the limit. No effect at offset 0.
	DuplicateRows bool
	// Totals replaces the site totals of a visitors or views answer, for
	// example with values that break max(human, ai) <= total <= human+ai.
	Totals *Counts
	// NoNextCursor makes a conversations answer say hasMore true with a
	// null nextCursor; a searches answer gets a null nextCursor.
	NoNextCursor bool
	// RepeatCursor makes a conversations or searches answer repeat the
	// cursor it was asked for as its nextCursor (the first page gives its
	// usual one), so that a walk sees the same cursor twice; conversations
	// also say hasMore true.
	RepeatCursor bool
	// CountFormat rewrites every whole number of a 200 answer of any
	// endpoint in another JSON form (12.0, 1.2e+01).
	CountFormat CountFormat
	// BadRow malforms the row at BadRowIndex (0 is the first) of a 200
	// answer of visitors, views, feedback by page, searches or
	// conversations; RowNegativeCount, RowStringCount and RowMissingCount
	// also apply to caller stats (the web count). No effect when the row
	// does not exist.
	BadRow      BadRowKind
	BadRowIndex int
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
	if offsetPaged(rt.endpoint) {
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
		if offsetPaged(rt.endpoint) && fs.Offset != AnyOffset && fs.Offset != offset {
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
func (f *Fault) replaces() bool { return f.Status != 0 || f.Body != "" || f.BodyBytes != nil }

// reply is the fault's own answer.
func (f *Fault) reply() reply {
	st := f.Status
	if st == 0 {
		st = http.StatusOK
	}
	rep := reply{status: st}
	switch {
	case f.BodyBytes != nil:
		rep.body = f.BodyBytes
	case f.Body != "":
		rep.body = []byte(f.Body)
	case st == http.StatusTooManyRequests:
		rep.body = errorJSON("Rate limit exceeded")
	default:
		rep.body = errorJSON(faultMessage(st))
	}
	if f.RetryAfter != "" || f.ContentEncoding != "" {
		rep.header = http.Header{}
	}
	if f.RetryAfter != "" {
		rep.header.Set("Retry-After", f.RetryAfter)
	}
	if f.ContentEncoding != "" {
		rep.header.Set("Content-Encoding", f.ContentEncoding)
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

// firstCounts names the first count of a row of each endpoint.
var firstCounts = map[string]string{
	"visitors": "human", "views": "human", "feedback": "thumbsUp", "searches": "hits",
}

// edit applies CountFormat and BadRow to a decoded 200 answer.
func (f *Fault) edit(m map[string]any) {
	if f.BadRow != NoBadRow {
		f.malform(m)
	}
	if f.CountFormat != CountsAsIntegers {
		rewriteCounts(m, f.CountFormat)
	}
}

// malform applies BadRow.
func (f *Fault) malform(m map[string]any) {
	for _, arr := range []string{"visitors", "views", "feedback", "searches", "conversations"} {
		if rows, ok := m[arr].([]any); ok {
			f.malformRow(rows, arr)
			return
		}
	}
	if _, ok := m["web"]; ok { // caller stats
		f.malformCount(m, "web")
	}
}

// malformRow malforms rows[f.BadRowIndex] of the array named arr.
func (f *Fault) malformRow(rows []any, arr string) {
	i := f.BadRowIndex
	if i < 0 || i >= len(rows) {
		return
	}
	row, ok := rows[i].(map[string]any)
	if !ok {
		return
	}
	switch f.BadRow {
	case RowNotObject:
		rows[i] = "oops"
	case RowEmptyPath:
		switch arr {
		case "searches":
			row["searchQuery"] = ""
		case "conversations":
			row["id"] = ""
		default:
			row["path"] = ""
		}
	default:
		if c, ok := firstCounts[arr]; ok {
			f.malformCount(row, c)
		} else if arr == "conversations" {
			row["responseType"] = json.Number("7")
		}
	}
}

// malformCount applies a count malformation to field name of obj.
func (f *Fault) malformCount(obj map[string]any, name string) {
	switch f.BadRow {
	case RowNegativeCount:
		obj[name] = json.Number("-1")
	case RowStringCount:
		obj[name] = "12"
	case RowMissingCount:
		delete(obj, name)
	}
}

// rewriteCounts writes every whole number in v in the form cf.
func rewriteCounts(v any, cf CountFormat) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if n, ok := e.(json.Number); ok {
				x[k] = reformat(n, cf)
				continue
			}
			rewriteCounts(e, cf)
		}
	case []any:
		for i, e := range x {
			if n, ok := e.(json.Number); ok {
				x[i] = reformat(n, cf)
				continue
			}
			rewriteCounts(e, cf)
		}
	}
}

// reformat rewrites a whole number; other numbers are left as they are.
func reformat(n json.Number, cf CountFormat) json.Number {
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		return n
	}
	switch cf {
	case CountsWithFraction:
		return json.Number(strconv.FormatInt(i, 10) + ".0")
	case CountsWithExponent:
		return json.Number(strconv.FormatFloat(float64(i), 'e', -1, 64))
	}
	return n
}
