package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// This file holds the strict JSON reading of the job endpoints. Values are
// looked at as raw JSON so that a missing field, a null and a wrong type are
// told apart and reported with the field's path. The analytics endpoints
// use the typed decoding of wire.go instead.

// jsonObject is one decoded JSON object and where it sits in the body.
type jsonObject struct {
	ep     Endpoint
	path   string // "" for the body itself
	fields map[string]json.RawMessage
}

// parseBody checks that body is one well-formed JSON object.
func parseBody(ep Endpoint, body []byte) (jsonObject, error) {
	var raw json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return jsonObject{}, &DecodeError{Endpoint: ep, Reason: "malformed JSON: " + err.Error()}
	}
	return asObject(ep, "", raw)
}

// asObject decodes raw, found at path, as an object.
func asObject(ep Endpoint, path string, raw json.RawMessage) (jsonObject, error) {
	o := jsonObject{ep: ep, path: path}
	if k := kindOf(raw); k != "object" {
		return o, o.fail("", "wrong type: %s, want object", k)
	}
	if err := json.Unmarshal(raw, &o.fields); err != nil {
		return o, o.fail("", "malformed object: %v", err)
	}
	return o, nil
}

// kindOf names the JSON type of a raw value, which is not empty (as
// json.Unmarshal leaves a RawMessage).
func kindOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	return kindName(raw[0])
}

// at returns the path of a field of o.
func (o jsonObject) at(name string) string {
	if o.path == "" {
		return name
	}
	return o.path + "." + name
}

// fail returns a DecodeError for field name of o ("" for o itself).
func (o jsonObject) fail(name, format string, args ...any) *DecodeError {
	field := o.path
	if name != "" {
		field = o.at(name)
	}
	return &DecodeError{Endpoint: o.ep, Field: field, Reason: fmt.Sprintf(format, args...)}
}

// get returns a field's raw value; ok is false when it is absent or null.
func (o jsonObject) get(name string) (raw json.RawMessage, ok bool) {
	raw, present := o.fields[name]
	if !present || kindOf(raw) == "null" {
		return nil, false
	}
	return bytes.TrimSpace(raw), true
}

// required returns a field's raw value of the wanted JSON kind; absent,
// null and other kinds are errors.
func (o jsonObject) required(name, kind string) (json.RawMessage, error) {
	raw, present := o.fields[name]
	if !present {
		return nil, o.fail(name, "missing")
	}
	if k := kindOf(raw); k != kind {
		return nil, o.fail(name, "wrong type: %s, want %s", k, kind)
	}
	return bytes.TrimSpace(raw), nil
}

// optional returns a field's raw value of the wanted kind, or ok false when
// it is absent or null.
func (o jsonObject) optional(name, kind string) (raw json.RawMessage, ok bool, err error) {
	raw, ok = o.get(name)
	if !ok {
		return nil, false, nil
	}
	if k := kindOf(raw); k != kind {
		return nil, false, o.fail(name, "wrong type: %s, want %s or null", k, kind)
	}
	return raw, true, nil
}

// requiredString reads a required string; nonEmpty refuses "".
func (o jsonObject) requiredString(name string, nonEmpty bool) (string, error) {
	raw, err := o.required(name, "string")
	if err != nil {
		return "", err
	}
	s := unquote(raw)
	if nonEmpty && s == "" {
		return "", o.fail(name, "empty")
	}
	return s, nil
}

// optionalString reads a string that may be absent or null ("" then).
func (o jsonObject) optionalString(name string) (string, error) {
	raw, ok, err := o.optional(name, "string")
	if !ok {
		return "", err
	}
	return unquote(raw), nil
}

// nullableString reads a string that may be absent or null (nil then).
func (o jsonObject) nullableString(name string) (*string, error) {
	raw, ok, err := o.optional(name, "string")
	if !ok {
		return nil, err
	}
	s := unquote(raw)
	return &s, nil
}

// requiredBool reads a required boolean.
func (o jsonObject) requiredBool(name string) (bool, error) {
	raw, err := o.required(name, "boolean")
	if err != nil {
		return false, err
	}
	return raw[0] == 't', nil
}

// nullableTime reads an RFC 3339 date-time that may be absent or null.
func (o jsonObject) nullableTime(name string) (*time.Time, error) {
	s, err := o.nullableString(name)
	if s == nil {
		return nil, err
	}
	t, err := o.parseTime(name, *s)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// parseTime parses an RFC 3339 date-time, the API's ISO 8601 form.
func (o jsonObject) parseTime(name, s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, o.fail(name, "invalid date-time %s: want RFC 3339", quoteShort(s))
	}
	return t, nil
}

// array reads a required array and returns its elements.
func (o jsonObject) array(name string) ([]json.RawMessage, error) {
	raw, err := o.required(name, "array")
	if err != nil {
		return nil, err
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, o.fail(name, "malformed array: %v", err)
	}
	return elems, nil
}

// quoteShort quotes a value from the body for an error message, bounded.
func quoteShort(s string) string {
	const max = 40
	if len(s) > max {
		return strconv.Quote(s[:max]) + "…"
	}
	return strconv.Quote(s)
}

// unquote decodes a JSON string literal that json.Unmarshal already found
// well-formed. Unlike encoding/json it keeps bytes that are not valid UTF-8
// exactly as sent: cleaning them is the caller's business.
func unquote(raw json.RawMessage) string {
	s := raw[1 : len(raw)-1]
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s)
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			out = append(out, s[i])
			continue
		}
		i++
		switch s[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(s[i+1 : i+5])
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
					r2 = hex4(s[i+3 : i+7])
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default: // '"', '\\', '/'
			out = append(out, s[i])
		}
	}
	return string(out)
}

// hex4 decodes four hexadecimal digits.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
