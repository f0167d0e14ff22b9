package client

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// fields checks the fields of one answer, keeping the first problem: in
// the job endpoints a field may be absent or null, a present one must have
// its type.
type fields struct {
	ep  Endpoint
	err error
}

func (f *fields) fail(field, reason string) {
	if f.err == nil {
		f.err = &DecodeError{Endpoint: f.ep, Field: field, Reason: reason}
	}
}

// optString returns a string that may be absent or null ("" then: a leaf
// holds a string only when it is one).
func (f *fields) optString(field string, s *leaf) string {
	f.nullString(field, s)
	return s.s
}

// nullString returns a string that may be absent or null (nil then).
func (f *fields) nullString(field string, s *leaf) *string {
	if !s.nullable() {
		f.fail(field, s.problem("string or null"))
	}
	if s.kind != '"' {
		return nil
	}
	v := s.s
	return &v
}

func (f *fields) reqString(field string, s *leaf) string {
	switch {
	case s.kind != '"':
		f.fail(field, s.problem("string"))
	case s.s == "":
		f.fail(field, "empty")
	}
	return s.s
}

// nullTime returns an RFC 3339 date-time that may be absent or null.
func (f *fields) nullTime(field string, s *leaf) *time.Time {
	v := f.nullString(field, s)
	if v == nil {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, *v)
	if err != nil {
		f.fail(field, "invalid date-time "+quoteShort(*v)+": want RFC 3339")
		return nil
	}
	return &t
}

// object decodes an object field held as raw JSON into v, reporting
// whether it was there; an optional one may be absent or null. raw is
// valid JSON (encoding/json read the body) and v a struct of leaves, which
// take any value.
func (f *fields) object(field string, raw json.RawMessage, v any, optional bool) bool {
	want := "object"
	switch raw = bytes.TrimSpace(raw); {
	case optional && (len(raw) == 0 || raw[0] == 'n'):
		return false
	case len(raw) == 0:
		f.fail(field, "missing")
	case optional && raw[0] != '{':
		want += " or null"
		fallthrough
	case raw[0] != '{':
		f.fail(field, "wrong type: "+kindName(raw[0])+", want "+want)
	default:
		if err := json.Unmarshal(raw, v); err != nil {
			f.fail(field, "malformed object: "+err.Error())
		}
	}
	return f.err == nil
}

// quoteShort quotes a value from the body for an error message, bounded.
func quoteShort(s string) string {
	const max = 40
	if len(s) > max {
		return strconv.Quote(s[:max]) + "…"
	}
	return strconv.Quote(s)
}
