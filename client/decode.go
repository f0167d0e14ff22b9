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

// optString returns a string that may be absent or null ("" then).
func (f *fields) optString(field string, s *leaf) string {
	if v := f.nullString(field, s); v != nil {
		return *v
	}
	return ""
}

// nullString returns a string that may be absent or null (nil then).
func (f *fields) nullString(field string, s *leaf) *string {
	v, ok := s.nullable()
	if !ok {
		f.fail(field, s.problem("string or null"))
	}
	return v
}

// reqString returns a required, non-empty string.
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

// optObject decodes an object that may be absent or null into v, reporting
// whether it was there.
func (f *fields) optObject(field string, raw json.RawMessage, v any) bool {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || raw[0] == 'n':
		return false
	case raw[0] != '{':
		f.fail(field, "wrong type: "+kindName(raw[0])+", want object or null")
		return false
	}
	if err := decodeObject(f.ep, field, raw, v); err != nil && f.err == nil {
		f.err = err
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
