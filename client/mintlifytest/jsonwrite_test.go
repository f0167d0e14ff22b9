package mintlifytest

import (
	"encoding/json"
	"testing"
)

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "/plain", `q"uote`, `back\slash`, "\x00\x1f\t\n\r", "é页😀", "bad\xff\xfe", "\xe2\x82", "<>&", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc := appendString(nil, s)
		if !json.Valid(enc) {
			t.Fatalf("invalid JSON %q for %q", enc, s)
		}
		var got string
		if err := json.Unmarshal(enc, &got); err != nil {
			t.Fatal(err)
		}
		ref, _ := json.Marshal(s)
		var want string
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("%q decodes to %q, encoding/json gives %q", s, got, want)
		}
	})
}

func TestAnalyticsErrorJSON(t *testing.T) {
	if got := string(analyticsErrorJSON("x", nil)); got != `{"error":"x"}` {
		t.Errorf("no details: %s", got)
	}
	if got := string(analyticsErrorJSON("x", []string{"a", `b"`})); got != `{"error":"x","details":[{"message":"a"},{"message":"b\""}]}` {
		t.Errorf("details: %s", got)
	}
}
