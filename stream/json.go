package stream

import (
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// A small JSON reader for the stream's lines: one pass over an object's
// members, validating as encoding/json does (FuzzScanObject compares the
// two), without reflection. encoding/json scanned each line four times
// (validate, decode, and again for a payload string) and capped the
// throughput at a third of the target.

var errJSON = errors.New("invalid JSON")

// scanObject calls fn for each member of the object b holds (whitespace
// around it allowed), with the key's raw string (quotes included) and the
// raw value. It returns errJSON unless b is exactly one valid object.
func scanObject(b []byte, fn func(key, val []byte) error) error {
	i := skipWS(b, 0)
	end, err := scanObjectAt(b, i, fn)
	if err != nil {
		return err
	}
	if skipWS(b, end) != len(b) {
		return errJSON
	}
	return nil
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanObjectAt reads the object at b[i]; fn may be nil (validate only).
func scanObjectAt(b []byte, i int, fn func(key, val []byte) error) (int, error) {
	if i >= len(b) || b[i] != '{' {
		return 0, errJSON
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		ks := i
		ke, err := scanString(b, i)
		if err != nil {
			return 0, err
		}
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return 0, errJSON
		}
		vs := skipWS(b, i+1)
		ve, err := scanValue(b, vs)
		if err != nil {
			return 0, err
		}
		if fn != nil {
			if err := fn(b[ks:ke], b[vs:ve]); err != nil {
				return 0, err
			}
		}
		i = skipWS(b, ve)
		if i >= len(b) {
			return 0, errJSON
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, errJSON
		}
	}
}

func scanValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errJSON
	}
	switch c := b[i]; {
	case c == '"':
		return scanString(b, i)
	case c == '{':
		return scanObjectAt(b, i, nil)
	case c == '[':
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, nil
		}
		for {
			e, err := scanValue(b, i)
			if err != nil {
				return 0, err
			}
			i = skipWS(b, e)
			if i >= len(b) {
				return 0, errJSON
			}
			switch b[i] {
			case ',':
				i = skipWS(b, i+1)
			case ']':
				return i + 1, nil
			default:
				return 0, errJSON
			}
		}
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return scanNumber(b, i)
	}
	return 0, errJSON
}

func literal(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, errJSON
	}
	return i + len(lit), nil
}

func scanNumber(b []byte, i int) (int, error) {
	if b[i] == '-' {
		i++
	}
	digits := func() bool {
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > s
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return 0, errJSON
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return 0, errJSON
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return 0, errJSON
		}
	}
	return i, nil
}

// scanString returns the end of the string starting at b[i] (after its
// closing quote).
func scanString(b []byte, i int) (int, error) {
	if i >= len(b) || b[i] != '"' {
		return 0, errJSON
	}
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, nil
		case c < 0x20:
			return 0, errJSON
		case c == '\\':
			i++
			if i >= len(b) {
				return 0, errJSON
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i < 5 || !isHex4(b[i+1:i+5]) {
					return 0, errJSON
				}
				i += 4
			default:
				return 0, errJSON
			}
		}
	}
	return 0, errJSON
}

func isHex4(b []byte) bool {
	for _, c := range b[:4] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// unquote decodes a raw JSON string scanned by scanString (quotes
// included), appending to buf; invalid UTF-8 and lone surrogates become
// U+FFFD, as encoding/json does.
func unquote(raw []byte, buf []byte) []byte {
	s := raw[1 : len(raw)-1]
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			j := i
			for j < len(s) && s[j] != '\\' {
				j++
			}
			buf = append(buf, s[i:j]...)
			i = j
			continue
		}
		i++
		switch s[i] {
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r := hex4(s[i+1:])
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
					if d := utf16.DecodeRune(r, hex4(s[i+3:])); d != utf8.RuneError {
						r2 = d
						i += 6
					}
				}
				r = r2
			}
			buf = utf8.AppendRune(buf, r)
		default: // '"', '\\', '/'
			buf = append(buf, s[i])
		}
		i++
	}
	return buf
}

// jsonString returns the string value of raw, or ok false when raw is not
// a string (null gives "", true).
func jsonString(raw []byte) (string, bool) {
	switch {
	case len(raw) == 4 && string(raw) == "null":
		return "", true
	case len(raw) < 2 || raw[0] != '"':
		return "", false
	}
	s := raw[1 : len(raw)-1]
	for _, c := range s {
		if c == '\\' {
			return string(unquote(raw, nil)), true
		}
	}
	return string(s), true
}
