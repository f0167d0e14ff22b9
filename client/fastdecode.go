package client

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// decodeVisitorsFast reads a well-formed visitors page in one pass over the
// body, after one validation pass (json.Valid), without the per-row maps of
// the strict reading. It gives up (ok false) on anything unusual: malformed
// JSON, a missing, null or mistyped field, a count that is not a
// non-negative integer, an empty path. decodeVisitors then reads the body
// strictly, which names the problem. Whatever it accepts, the strict reading
// accepts too, with the same result (FuzzDecodeVisitorsFastAgrees).
func decodeVisitorsFast(body []byte) (page *VisitorsPage, ok bool) {
	if !json.Valid(body) {
		return nil, false
	}
	s := scan{b: body}
	page = &VisitorsPage{}
	var totals, visitors, hasMore bool
	ok = s.object(func(key []byte) bool {
		switch s.keyName(key) {
		case "totals":
			page.Totals, totals = s.counts(nil)
			return totals
		case "visitors":
			page.Visitors, visitors = s.rows()
			return visitors
		case "hasMore":
			page.HasMore, hasMore = s.boolean()
			return hasMore
		}
		s.skip()
		return true
	})
	if !ok || !totals || !visitors || !hasMore {
		return nil, false
	}
	return page, true
}

// scan walks a body that json.Valid accepted. Its methods report false
// when the value found is not of the wanted shape.
type scan struct {
	b []byte
	i int
}

func (s *scan) ws() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// peek skips white space and returns the next byte (0 at the end).
func (s *scan) peek() byte {
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// object reads an object, calling field for each member with the scanner
// at the member's value; field must consume the value.
func (s *scan) object(field func(key []byte) bool) bool {
	if s.peek() != '{' {
		return false
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		key := s.str()
		if s.peek() != ':' {
			return false
		}
		s.i++
		s.ws()
		if !field(key) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// str reads a string literal and returns it raw, quotes included.
func (s *scan) str() []byte {
	if s.peek() != '"' {
		return nil
	}
	start := s.i
	for s.i++; s.i < len(s.b); s.i++ {
		switch s.b[s.i] {
		case '\\':
			s.i++
		case '"':
			s.i++
			return s.b[start:s.i]
		}
	}
	return nil
}

// keyName decodes an object key as encoding/json does for map keys.
func (s *scan) keyName(raw []byte) string {
	if len(raw) < 2 {
		return ""
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1])
	}
	var k string
	_ = json.Unmarshal(raw, &k) // valid: json.Valid accepted the body
	return k
}

// skip skips one value.
func (s *scan) skip() {
	depth := 0
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case '"':
			s.str()
			if depth == 0 {
				return
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return
			}
			depth--
			if depth == 0 {
				s.i++
				return
			}
		case ',':
			if depth == 0 {
				return
			}
		}
		s.i++
	}
}

// count reads a non-negative integer written without fraction or exponent.
func (s *scan) count() (int64, bool) {
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if (c < '0' || c > '9') && c != '-' {
			break
		}
		s.i++
	}
	if s.i == start || s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return 0, false
	}
	n, err := strconv.ParseInt(string(s.b[start:s.i]), 10, 64)
	return n, err == nil && n >= 0
}

// counts reads an object with human, ai and total counts. When path is not
// nil the object is a row and its path member is read into *path.
func (s *scan) counts(path *string) (Counts, bool) {
	var c Counts
	var h, a, t, p bool
	ok := s.object(func(key []byte) bool {
		var good bool
		switch s.keyName(key) {
		case "human":
			c.Human, good = s.count()
			h = good
		case "ai":
			c.AI, good = s.count()
			a = good
		case "total":
			c.Total, good = s.count()
			t = good
		case "path":
			if path == nil {
				s.skip()
				return true
			}
			raw := s.str()
			if raw == nil {
				return false
			}
			*path = unquote(raw)
			p, good = *path != "", *path != ""
		default:
			s.skip()
			return true
		}
		return good
	})
	return c, ok && h && a && t && (path == nil || p)
}

// rows reads the visitors array.
func (s *scan) rows() ([]PathVisitors, bool) {
	if s.peek() != '[' {
		return nil, false
	}
	s.i++
	out := make([]PathVisitors, 0, 250)
	if s.peek() == ']' {
		s.i++
		return out, true
	}
	for {
		var r PathVisitors
		var ok bool
		if r.Counts, ok = s.counts(&r.Path); !ok {
			return nil, false
		}
		out = append(out, r)
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return out, true
		default:
			return nil, false
		}
	}
}

// boolean reads true or false.
func (s *scan) boolean() (bool, bool) {
	switch {
	case bytes.HasPrefix(s.b[s.i:], []byte("true")):
		s.i += 4
		return true, true
	case bytes.HasPrefix(s.b[s.i:], []byte("false")):
		s.i += 5
		return false, true
	}
	return false, false
}
