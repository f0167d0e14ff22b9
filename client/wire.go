package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The one decoding path of every endpoint: typed encoding/json into wire
// structs whose leaves record what they saw instead of failing, then one
// validation function per page or row type: a malformed page is a
// *DecodeError naming the field, a malformed analytics row is skipped and
// counted by reason.
//
// Why the leaves are not plain float64, string and bool (issue 37): with
// those, encoding/json stops at the first wrong type and reports only that
// one, turns null into "unchanged" and so cannot tell a missing field from
// a null one, accepts negative counts, and replaces invalid UTF-8 with
// U+FFFD. The API contract needs each of these told apart: "missing",
// "wrong type: null, want number", "negative count -3", a path kept as
// sent, and a row with one bad leaf skipped while the rows around it are
// kept (plain types would need a json.RawMessage and a second Unmarshal per
// row). A leaf type keeps all of it in one pass of encoding/json.

// wireState says what a leaf found.
type wireState uint8

const (
	wireAbsent    wireState = iota // the field was not in the object
	wireOK                         // a value of the wanted type (and range)
	wireNull                       // null
	wireWrongType                  // a value of another JSON type
	wireBadValue                   // a number that is negative or out of range
)

func kindName(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// wireLeaf is what every leaf records: its state, and the first byte of a
// value of the wrong type.
type wireLeaf struct {
	st   wireState
	kind byte
}

// see records the JSON type of b, a JSON value, and reports whether it is
// the wanted one: want lists the first bytes that value may start with.
func (l *wireLeaf) see(b []byte, want string) bool {
	switch {
	case len(b) == 0:
		l.st = wireWrongType
	case b[0] == 'n':
		l.st = wireNull
	case strings.IndexByte(want, b[0]) >= 0:
		l.st = wireOK
		return true
	default:
		l.st, l.kind = wireWrongType, b[0]
	}
	return false
}

// problem says what is wrong with a leaf that is not wireOK or
// wireBadValue; want names the wanted type.
func (l *wireLeaf) problem(want string) string {
	switch l.st {
	case wireAbsent:
		return "missing"
	case wireNull:
		return "wrong type: null, want " + want
	}
	return "wrong type: " + kindName(l.kind) + ", want " + want
}

// wireNum is a count or rate: a finite non-negative JSON number, written
// any way JSON allows (12, 12.0, 1.2e1).
type wireNum struct {
	wireLeaf
	v float64 // the value; also when negative (st wireBadValue)
}

func (n *wireNum) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*n = wireNum{}
	if !n.see(b, "-0123456789") {
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	switch {
	case err != nil || math.IsInf(v, 0) || math.IsNaN(v):
		n.st, n.v = wireBadValue, math.NaN()
	case v < 0:
		n.st, n.v = wireBadValue, v
	default:
		n.v = v + 0 // +0 turns -0 into 0
	}
	return nil
}

func (n *wireNum) ok() bool { return n.st == wireOK }

func (n *wireNum) problem() string {
	switch {
	case n.st != wireBadValue:
		return n.wireLeaf.problem("number")
	case n.v < 0:
		return "negative count " + strconv.FormatFloat(n.v, 'g', -1, 64)
	}
	return "number out of range"
}

// wireStr is a string that may be absent or null.
type wireStr struct {
	wireLeaf
	s string
}

// UnmarshalJSON keeps invalid UTF-8 as sent (see unquote).
func (s *wireStr) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*s = wireStr{}
	if s.see(b, `"`) {
		s.s = unquote(b)
	}
	return nil
}

// nullable returns the string, nil when absent or null; ok is false for
// another type.
func (s *wireStr) nullable() (v *string, ok bool) {
	switch s.st {
	case wireOK:
		str := s.s
		return &str, true
	case wireAbsent, wireNull:
		return nil, true
	}
	return nil, false
}

func (s *wireStr) problem(wantNull bool) string {
	if wantNull {
		return s.wireLeaf.problem("string or null")
	}
	return s.wireLeaf.problem("string")
}

// wireSeen records only a value's JSON type and whether it is a non-empty
// string.
type wireSeen struct {
	wireLeaf
	nonEmpty bool
}

func (s *wireSeen) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*s = wireSeen{}
	s.nonEmpty = s.see(b, `"`) && len(b) > 2
	return nil
}

type wireBool struct {
	wireLeaf
	v bool
}

func (w *wireBool) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*w = wireBool{}
	w.v = w.see(b, "tf") && b[0] == 't'
	return nil
}

func (w *wireBool) problem() string { return w.wireLeaf.problem("boolean") }

// decodePage unmarshals body into v, a wire struct whose array rows holds
// rowType. A row of the wrong type stays zero, for its validation to skip;
// anything else that stops encoding/json is a *DecodeError.
func decodePage(ep Endpoint, body []byte, v any, rows string, rowType reflect.Type) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if !json.Valid(body) {
			var probe any
			err := json.Unmarshal(body, &probe)
			return &DecodeError{Endpoint: ep, Reason: "malformed JSON: " + errString(err)}
		}
		return &DecodeError{Endpoint: ep, Reason: "wrong type: " + kindName(trimmed[0]) + ", want object"}
	}
	err := json.Unmarshal(body, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if rowType != nil && te.Type == rowType {
			// encoding/json reports only the first type error.
			return checkArray(ep, body, rows)
		}
		return &DecodeError{Endpoint: ep, Field: te.Field, Reason: "wrong type: " + jsonTypeName(te.Value) + ", want " + wantName(te.Type)}
	}
	return &DecodeError{Endpoint: ep, Reason: "malformed JSON: " + err.Error()}
}

// checkArray checks that the field rows of body is an array.
func checkArray(ep Endpoint, body []byte, rows string) error {
	probe := reflect.New(reflect.StructOf([]reflect.StructField{{
		Name: "R", Type: reflect.TypeFor[json.RawMessage](), Tag: reflect.StructTag(`json:"` + rows + `"`),
	}}))
	if err := json.Unmarshal(body, probe.Interface()); err != nil {
		return &DecodeError{Endpoint: ep, Reason: "malformed JSON: " + err.Error()}
	}
	raw := bytes.TrimSpace(probe.Elem().Field(0).Bytes())
	if len(raw) == 0 || raw[0] != '[' {
		k := "null"
		if len(raw) > 0 {
			k = kindName(raw[0])
		}
		return &DecodeError{Endpoint: ep, Field: rows, Reason: "wrong type: " + k + ", want array"}
	}
	return nil
}

func errString(err error) string {
	if err == nil {
		return "not a JSON value"
	}
	return err.Error()
}

// jsonTypeName names UnmarshalTypeError.Value for this package's errors.
func jsonTypeName(v string) string {
	switch v {
	case "bool":
		return "boolean"
	case "":
		return "value"
	}
	if len(v) > 6 && v[:6] == "number" {
		return "number"
	}
	return v
}

func wantName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	}
	return t.Kind().String()
}

// decodeObject reads a required object field held as raw JSON into v.
func decodeObject(ep Endpoint, field string, raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	switch {
	case raw == nil:
		return &DecodeError{Endpoint: ep, Field: field, Reason: "missing"}
	case len(raw) == 0 || raw[0] != '{':
		k := "value"
		if len(raw) > 0 {
			k = kindName(raw[0])
		}
		return &DecodeError{Endpoint: ep, Field: field, Reason: "wrong type: " + k + ", want object"}
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &DecodeError{Endpoint: ep, Field: field + "." + te.Field, Reason: "wrong type: " + jsonTypeName(te.Value)}
		}
		return &DecodeError{Endpoint: ep, Field: field, Reason: "malformed object: " + err.Error()}
	}
	return nil
}

// requireNum returns a page-level number, or a *DecodeError naming field.
func requireNum(ep Endpoint, field string, n *wireNum) (float64, error) {
	if !n.ok() {
		return 0, &DecodeError{Endpoint: ep, Field: field, Reason: n.problem()}
	}
	return n.v, nil
}

// requireBool returns a page-level boolean, or a *DecodeError naming field.
func requireBool(ep Endpoint, field string, b *wireBool) (bool, error) {
	if b.st != wireOK {
		return false, &DecodeError{Endpoint: ep, Field: field, Reason: b.problem()}
	}
	return b.v, nil
}

// requireRows checks that a page's row array was there: encoding/json
// makes [] an empty non-nil slice, absent and null nil.
func requireRows[T any](ep Endpoint, field string, rows []T) error {
	if rows == nil {
		return &DecodeError{Endpoint: ep, Field: field, Reason: "missing or null, want array"}
	}
	return nil
}

func numsOK(ns ...*wireNum) bool {
	return !slices.ContainsFunc(ns, func(n *wireNum) bool { return !n.ok() })
}

// unquote decodes a well-formed JSON string literal, keeping invalid UTF-8
// as sent (unlike encoding/json): cleaning it is the caller's business.
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

// MaxLabelBytes bounds an answer's string that becomes a label value: a
// longer one is cut on a character boundary, ending with "…".
const MaxLabelBytes = 1024

func labelText(s string) string {
	if len(s) <= MaxLabelBytes {
		return s
	}
	const mark = "…"
	cut := MaxLabelBytes - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}
