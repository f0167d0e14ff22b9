package client

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Every endpoint decodes with typed encoding/json into wire structs whose
// leaves record what they saw instead of failing, then validates each page
// (a *DecodeError naming the field) and row (skipped, counted by reason).
//
// Why not plain float64, string and bool (issue 37): encoding/json would
// stop at the first wrong type, not tell a missing field from a null one,
// accept negative counts and replace invalid UTF-8, where the contract needs
// "missing", "wrong type: null, want number", "negative count -3", a path
// kept as sent, and one bad row skipped among good ones, in one pass.

// leaf is one JSON value of a wire struct, recorded whatever its type:
// kind is its first byte ('"', 't', 'f', 'n', '{', '[', or a number's), 0
// when the field was absent. Its reader says what it wanted.
type leaf struct {
	kind byte
	s    string  // a string, invalid UTF-8 kept as sent (see unquote)
	n    float64 // a number; also when negative, NaN when out of range
}

const numStart = "-0123456789"

var kindNames = map[byte]string{'{': "object", '[': "array", '"': "string", 't': "boolean", 'f': "boolean", 'n': "null"}

func kindName(c byte) string { return cmp.Or(kindNames[c], "number") }

// UnmarshalJSON never fails: a wrong value is told when the leaf is read.
func (l *leaf) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*l = leaf{}
	if len(b) == 0 {
		return nil
	}
	switch l.kind = b[0]; {
	case l.kind == '"':
		l.s = unquote(b)
	case l.is(numStart):
		v, err := strconv.ParseFloat(string(b), 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			v = math.NaN()
		}
		l.n = v + 0 // +0 turns -0 into 0
	}
	return nil
}

func (l *leaf) is(kinds string) bool { return l.kind != 0 && strings.IndexByte(kinds, l.kind) >= 0 }

// count reports whether the leaf is a count or rate: a finite non-negative
// JSON number, written any way JSON allows (12, 12.0, 1.2e1).
func (l *leaf) count() bool { return l.is(numStart) && l.n >= 0 }

// nullable reports whether the leaf is a string, null or absent.
func (l *leaf) nullable() bool { return l.kind == 0 || l.is(`"n`) }

// problem says what is wrong with a leaf that is not the want it names
// ("number" for a count, "string", "string or null", "boolean").
func (l *leaf) problem(want string) string {
	switch {
	case l.kind == 0:
		return "missing"
	case want != "number" || !l.is(numStart):
		return "wrong type: " + kindName(l.kind) + ", want " + want
	case l.n < 0:
		return "negative count " + strconv.FormatFloat(l.n, 'g', -1, 64)
	}
	return "number out of range"
}

// decodePage unmarshals body into v, a wire struct of leaves, rows,
// json.RawMessage, which take any value, and at most one row array, the
// only field that can be of a wrong type; anything else that stops
// encoding/json is a *DecodeError.
func decodePage(ep Endpoint, body []byte, v any) error {
	err := json.Unmarshal(body, v)
	var te *json.UnmarshalTypeError
	switch trimmed := bytes.TrimSpace(body); {
	case err != nil && !errors.As(err, &te):
		return &DecodeError{Endpoint: ep, Reason: "malformed JSON: " + err.Error()}
	case trimmed[0] != '{': // valid JSON, so not empty
		return &DecodeError{Endpoint: ep, Reason: "wrong type: " + kindName(trimmed[0]) + ", want object"}
	case err == nil:
		return nil
	}
	// The row array is of a wrong type: te.Value is "string", "number",
	// "bool" or "object".
	return &DecodeError{Endpoint: ep, Field: te.Field, Reason: "wrong type: " + strings.Replace(te.Value, "bool", "boolean", 1) + ", want array"}
}

// row is one element of a row array. One that is not an object stays
// zero, for its validation to skip, instead of a type error that would
// hide the row array's own (encoding/json reports only the first).
type row[W any] struct{ v W }

// UnmarshalJSON never fails: an object decodes into a struct of leaves and
// json.RawMessage, which take any value.
func (r *row[W]) UnmarshalJSON(b []byte) error {
	if b = bytes.TrimSpace(b); len(b) > 0 && b[0] == '{' {
		return json.Unmarshal(b, &r.v)
	}
	return nil
}

func (f *fields) count(field string, n *leaf) float64 {
	if !n.count() {
		f.fail(field, n.problem("number"))
	}
	return n.n
}

func (f *fields) reqBool(field string, b *leaf) bool {
	if !b.is("tf") {
		f.fail(field, b.problem("boolean"))
	}
	return b.kind == 't'
}

// keepRows checks that a page's row array was there (encoding/json makes
// [] an empty non-nil slice, absent and null nil) and converts each row
// with conv, which returns the reason to skip it, or "". Nothing after a
// problem.
func keepRows[W, R any](f *fields, field string, rows []row[W], skipped *Skipped, conv func(*W) (R, string)) []R {
	if rows == nil {
		f.fail(field, "missing or null, want array")
	}
	if f.err != nil {
		return nil
	}
	out := make([]R, 0, len(rows))
	for i := range rows {
		if r, why := conv(&rows[i].v); why != "" {
			skipped.merge(Skipped{why: 1})
		} else {
			out = append(out, r)
		}
	}
	return out
}

func checked[T any](v *T, f *fields) (*T, error) {
	if f.err != nil {
		return nil, f.err
	}
	return v, nil
}

// rowProblem is why an analytics row keyed by key is skipped, "" if it is
// not: a key that is not a string, an empty one (for the reason empty), or
// a count that is not one.
func rowProblem(key *leaf, empty string, counts ...*leaf) string {
	switch {
	case key.kind != '"':
		return SkipBadRow
	case key.s == "":
		return empty
	case slices.ContainsFunc(counts, func(n *leaf) bool { return !n.count() }):
		return SkipBadCount
	}
	return ""
}

// unquote decodes a well-formed JSON string literal, keeping invalid UTF-8
// as sent (encoding/json replaces it): cleaning it is the caller's
// business. An escape is ASCII, so the runs between invalid bytes are
// well-formed literals encoding/json decodes alone.
func unquote(raw []byte) string {
	s := raw[1 : len(raw)-1]
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s)
	}
	var out []byte
	for len(s) > 0 {
		i := 0
		for r, n := utf8.DecodeRune(s); i < len(s) && (r != utf8.RuneError || n > 1); r, n = utf8.DecodeRune(s[i:]) {
			i += n
		}
		var run string
		_ = json.Unmarshal(append(append([]byte{'"'}, s[:i]...), '"'), &run)
		out = append(out, run...)
		if i < len(s) {
			out, i = append(out, s[i]), i+1
		}
		s = s[i:]
	}
	return string(out)
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
