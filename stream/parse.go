package stream

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash/fnv"
	"io"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// MaxLineBytes is the longest line read; a longer one is refused
// (reason oversized_line) and skipped without being held in memory.
const MaxLineBytes = 1 << 20

// Label value bounds.
const (
	maxLabelLen = 256 // paths, event types, tools, actions
	maxTermLen  = 100 // search terms
)

// The reasons of mintlify_stream_lines_refused_total.
const (
	reasonMalformed     = "malformed_line"        // not a JSON object with a string eventType and an object or string payload
	reasonPayload       = "payload_not_json"      // a payload string that is not a JSON object
	reasonNoID          = "missing_event_id"      // no event_id: it could not be deduplicated
	reasonNoType        = "missing_event_type"    // neither eventType nor payload.event
	reasonOversized     = "oversized_line"        // longer than MaxLineBytes
	reasonTruncated     = "truncated_last_line"   // a last line without newline that is not whole JSON
	reasonProperties    = "properties_not_object" // properties neither an object, a string of one, nor null
	reasonBadFieldTypes = "malformed_payload"     // a payload field of the wrong type
)

// The reasons of mintlify_stream_objects_skipped_total.
const (
	skipNotFound  = "not_found"  // vanished between List and Open
	skipBadGzip   = "bad_gzip"   // gzip magic but not a valid gzip stream
	skipReadError = "read_error" // a read failed maxReadAttempts polls in a row
)

// record is one parsed event, holding no personal data: the visitor id
// is kept only as a hash for the sketches, the user agent only as its class.
type record struct {
	id       [16]byte
	sub      string // subdomain, sanitized
	event    string // eventType, sanitized
	m        *eventMapping
	path     string // sanitized, no query or fragment
	traffic  string // page views only
	ref      string // referrer host, page views only
	label    string // feedback kind, tool, action or search term
	visitor  uint64 // hash of user_id or anon_id
	hasVisit bool
	created  time.Time // zero when absent or unreadable
}

// objectResult is what reading one object yields: counted only when the
// object was read whole.
type objectResult struct {
	recs    []record
	lines   int64
	refused map[string]int64
}

type envelope struct {
	EventType string          `json:"eventType"`
	Payload   json.RawMessage `json:"payload"`
}

// payload holds the fields that are counted; ip, session_id and every
// other field are never decoded.
type payload struct {
	EventID    string          `json:"event_id"`
	Subdomain  string          `json:"subdomain"`
	UserID     string          `json:"user_id"`
	AnonID     string          `json:"anon_id"`
	CreatedAt  string          `json:"created_at"`
	Event      string          `json:"event"`
	Path       string          `json:"path"`
	Referrer   string          `json:"referrer"`
	UserAgent  string          `json:"user_agent"`
	Properties json.RawMessage `json:"properties"`
}

// parser turns lines into records; it caches user-agent classes (bounded).
type parser struct {
	rules   *trafficRules
	emap    *eventMap
	terms   bool
	uaCache map[string]string
	// Readers reused from object to object (one poll at a time).
	br, lr *bufio.Reader
}

const uaCacheMax = 4096

var errBadGzip = errors.New("bad gzip stream")

// readObject reads body (gzip when it starts with the gzip magic) line by
// line. A read error is returned as is (the object is read again later);
// a corrupt gzip stream returns errBadGzip.
func (p *parser) readObject(body io.Reader) (*objectResult, error) {
	if p.br == nil {
		p.br, p.lr = bufio.NewReaderSize(nil, 64<<10), bufio.NewReaderSize(nil, MaxLineBytes)
	}
	br := p.br
	br.Reset(body)
	defer br.Reset(nil)
	var r io.Reader = br
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, errBadGzip
		}
		defer zr.Close()
		r = zr
	}
	// An object that says it is gzip but has no gzip magic was decoded on
	// the way (some clients do): it is read as is.
	res := &objectResult{refused: map[string]int64{}}
	lr := p.lr
	lr.Reset(r)
	defer lr.Reset(nil)
	for {
		line, err := lr.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// Oversized: skip to the end of the line without keeping it.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = lr.ReadSlice('\n')
			}
			res.lines++
			res.refused[reasonOversized]++
			if err == io.EOF {
				return res, nil
			}
			if err != nil {
				return nil, readErr(err)
			}
			continue
		}
		last := false
		switch {
		case err == io.EOF:
			last = true
		case err != nil:
			return nil, readErr(err)
		}
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			res.lines++
			rec, reason := p.parseLine(line)
			switch {
			case reason == "":
				res.recs = append(res.recs, rec)
			case last && reason == reasonMalformed:
				res.refused[reasonTruncated]++
			default:
				res.refused[reason]++
			}
		}
		if last {
			return res, nil
		}
	}
}

// readErr tells a corrupt gzip stream (skipped for good) from a failed
// read (the object is read again at a later poll).
func readErr(err error) error {
	var corrupt flate.CorruptInputError
	if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.As(err, &corrupt) {
		return errBadGzip
	}
	return err
}

// parseLine parses one envelope; reason is "" when rec is an event.
func (p *parser) parseLine(line []byte) (rec record, reason string) {
	var env envelope
	if line[0] != '{' || json.Unmarshal(line, &env) != nil {
		return rec, reasonMalformed
	}
	raw := env.Payload
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return rec, reasonMalformed
		}
		raw = []byte(s)
		if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
			return rec, reasonPayload
		}
	} else if len(raw) == 0 || raw[0] != '{' {
		return rec, reasonMalformed
	}
	var pl payload
	if json.Unmarshal(raw, &pl) != nil {
		return rec, reasonBadFieldTypes
	}
	if pl.EventID == "" {
		return rec, reasonNoID
	}
	etype := env.EventType
	if etype == "" {
		etype = pl.Event
	}
	if etype == "" {
		return rec, reasonNoType
	}
	props, ok := properties(pl.Properties)
	if !ok {
		return rec, reasonProperties
	}
	rec.id = eventID(pl.EventID)
	rec.sub = sanitize(pl.Subdomain, maxLabelLen)
	rec.event = sanitize(etype, maxLabelLen)
	rec.path = cleanPath(pl.Path)
	if pl.CreatedAt != "" {
		if t, err := time.Parse(time.RFC3339Nano, pl.CreatedAt); err == nil {
			rec.created = t
		}
	}
	visitor := pl.UserID
	if visitor == "" {
		visitor = pl.AnonID
	}
	if visitor != "" {
		rec.visitor, rec.hasVisit = hash64(visitor), true
	}
	m := p.emap.byType[etype]
	rec.m = m
	if m == nil {
		return rec, ""
	}
	switch {
	case m.Family == famPageViews:
		markdown := m.Markdown || strings.HasSuffix(rec.path, ".md")
		rec.traffic = p.classify(pl.UserAgent, markdown)
		rec.ref = referrerHost(pl.Referrer)
	case m.Label != "":
		rec.label = m.Label
	case m.Property != "":
		if m.Family == famSearches && !p.terms {
			break
		}
		rec.label = unknown
		if v, ok := props[m.Property]; ok {
			var s string
			if json.Unmarshal(v, &s) == nil && strings.TrimSpace(s) != "" {
				if m.Family == famSearches {
					rec.label = sanitize(strings.ToLower(strings.Join(strings.Fields(s), " ")), maxTermLen)
				} else {
					rec.label = sanitize(s, maxLabelLen)
				}
			}
		}
	}
	return rec, ""
}

const unknown = "unknown"

// properties decodes an object, a JSON string holding one, or null/absent.
func properties(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		raw = []byte(s)
	}
	var m map[string]json.RawMessage
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &m) != nil {
		return nil, false
	}
	return m, true
}

func (p *parser) classify(ua string, markdown bool) string {
	key := ua
	if markdown {
		key = "\x00md" + ua
	}
	if c, ok := p.uaCache[key]; ok {
		return c
	}
	c := p.rules.classify(strings.ToLower(ua), markdown)
	if len(p.uaCache) >= uaCacheMax {
		clear(p.uaCache)
	}
	p.uaCache[strings.Clone(key)] = c
	return c
}

// eventID is the dedup key: the UUID's bytes, or a 128-bit FNV-1a hash of
// any other form (a collision is as unlikely as between two random UUIDs).
func eventID(s string) (id [16]byte) {
	if len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-' {
		var b [32]byte
		n := copy(b[:8], s[:8])
		n += copy(b[n:], s[9:13])
		n += copy(b[n:], s[14:18])
		n += copy(b[n:], s[19:23])
		copy(b[n:], s[24:])
		if _, err := hex.Decode(id[:], []byte(strings.ToLower(string(b[:])))); err == nil {
			return id
		}
	}
	h := fnv.New128a()
	h.Write([]byte(s))
	h.Sum(id[:0])
	return id
}

// hash64 hashes a visitor id for the sketches: FNV-1a then a finalizer
// that spreads its bits (stable across restarts: sketches are persisted).
func hash64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// cleanPath drops a query and fragment (they may carry personal data) and
// sanitizes the rest; an empty path is unknown.
func cleanPath(p string) string {
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	p = sanitize(p, maxLabelLen)
	if p == "" {
		return unknown
	}
	return p
}

// referrerHost is a referrer URL's host, lower case without port: none
// when absent, unknown when it has none.
func referrerHost(ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "none"
	}
	u, err := url.Parse(ref)
	if err == nil && u.Host == "" && u.Scheme == "" {
		u, err = url.Parse("//" + ref)
	}
	if err != nil || u.Hostname() == "" {
		return unknown
	}
	h := sanitize(strings.ToLower(u.Hostname()), maxLabelLen)
	if h == "" {
		return unknown
	}
	return h
}

// sanitize makes s a safe label value: valid UTF-8, no control or format
// characters, trimmed, at most max bytes (cut on a rune boundary).
func sanitize(s string, max int) string {
	clean := len(s) <= max
	if clean {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c >= 0x7f {
				clean = false
				break
			}
		}
	}
	if clean {
		return strings.TrimSpace(s)
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > max {
			break
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}
