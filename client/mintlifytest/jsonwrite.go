package mintlifytest

import (
	"strconv"
	"unicode/utf8"
)

// The fake writes its JSON by hand rather than through encoding/json: the
// bytes on the wire are then exactly what this file says, independent of
// how any client decodes them, and a 250-row page costs one buffer.

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD, as
// any JSON encoder must; HTML characters are not escaped (the API does not).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendInt appends a JSON integer.
func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// appendCounts appends `"human":h,"ai":a,"total":t` (no braces).
func appendCounts(b []byte, c Counts) []byte {
	b = append(b, `"human":`...)
	b = appendInt(b, c.Human)
	b = append(b, `,"ai":`...)
	b = appendInt(b, c.AI)
	b = append(b, `,"total":`...)
	return appendInt(b, c.Total)
}

// appendNullableString appends s as a JSON string, or null when s is nil.
func appendNullableString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

// errorJSON is the API's error body {"error": msg}.
func errorJSON(msg string) []byte {
	b := append([]byte(`{"error":`), appendString(nil, msg)...)
	return append(b, '}')
}

// analyticsErrorJSON is the analytics error body {"error": msg, "details":
// [{"message": ...}]}; details is left out when empty.
func analyticsErrorJSON(msg string, details []string) []byte {
	b := append([]byte(`{"error":`), appendString(nil, msg)...)
	if len(details) > 0 {
		b = append(b, `,"details":[`...)
		for i, d := range details {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"message":`...)
			b = appendString(b, d)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}
