package stream

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

var jsonSeeds = []string{
	`{}`, ` { "a" : 1 } `, `{"a":"b\"c\\d\/e\u00e9\ud83d\ude00\n"}`, `{"a":[1,-2.5e+3,true,false,null,{"b":[]}]}`,
	`{"a":1,}`, `{"a" 1}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":"\x"}`, `{"a":"\u12"}`,
	`{"a":"` + "\x01" + `"}`, `{"a":tru}`, `{"a":1} x`, `[1]`, `"s"`, `{"a":{"b":{"c":[[[]]]}}}`, `{"a":"\ud800"}`,
	`{"a":"\ud800\u0041"}`, `{"a":"` + "\xff" + `"}`, `{"a":1}{"b":2}`, ``, `{`, `{"a"`, `{"a":`, `{"a":[1,]}`,
	`{"eventType":"docs.content.view","payload":"{\"event_id\":\"x\"}"}`,
}

// scanObject accepts exactly the objects encoding/json accepts, and reads
// the same members and string values.
func FuzzScanObject(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkScanObject(t, b) })
}

func TestScanObjectAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range jsonSeeds {
		checkScanObject(t, []byte(s))
	}
}

func checkScanObject(t *testing.T, b []byte) {
	var want map[string]json.RawMessage
	wantErr := json.Unmarshal(b, &want) != nil || want == nil
	got := map[string][]byte{}
	err := scanObject(b, func(k, v []byte) error {
		ks, ok := jsonString(k)
		if !ok {
			t.Fatalf("%q: key %q is not a string", b, k)
		}
		got[ks] = v
		return nil
	})
	if (err != nil) != wantErr {
		t.Fatalf("%q: scanObject error %v, encoding/json error %v", b, err, wantErr)
	}
	if err != nil || !utf8.Valid(b) { // encoding/json changes invalid bytes in keys
		return
	}
	if len(got) != len(want) {
		t.Fatalf("%q: %d members, encoding/json %d", b, len(got), len(want))
	}
	for k, v := range want {
		if !bytes.Equal(bytes.TrimSpace(got[k]), bytes.TrimSpace(v)) {
			t.Fatalf("%q: member %q = %q, encoding/json %q", b, k, got[k], v)
		}
		var ws string
		if json.Unmarshal(v, &ws) == nil && utf8.Valid(v) {
			if gs, ok := jsonString(got[k]); !ok || gs != ws {
				t.Fatalf("%q: string %q = %q, encoding/json %q", b, k, gs, ws)
			}
		}
	}
}

// No line panics the parser, and every label value it returns is safe:
// valid UTF-8, no control or format characters, bounded.
func FuzzParseLine(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"eventType":"docs.content.view","payload":{"event_id":"e","path":"/a\u0000b?x","referrer":"http://[::1]:80/","user_agent":"GPTBot","properties":"{\"k\":1}"}}`))
	f.Add([]byte(`{"eventType":"docs.mcp.tool_call","payload":"{\"event_id\":\"e\",\"properties\":{\"tool\":\"\\u202e\\ud800x\"}}"}`))
	f.Add([]byte(`{"eventType":"docs.context_menu.action","payload":{"event_id":"e","properties":{"action":"\u200b"}}}`))
	f.Add([]byte(`{"eventType":"docs.search.query","payload":{"event_id":"e","created_at":"2026-13-45T99:00:00Z","properties":{"query":"  Hello   World "}}}`))
	rules, err := loadTrafficRules("")
	if err != nil {
		f.Fatal(err)
	}
	emap, err := loadEventMap("")
	if err != nil {
		f.Fatal(err)
	}
	p := &parser{rules: rules, emap: emap, terms: true, uaCache: map[string]string{}}
	f.Fuzz(func(t *testing.T, line []byte) {
		if len(bytes.TrimSpace(line)) == 0 {
			return
		}
		rec, reason := p.parseLine(bytes.TrimSpace(line))
		if reason != "" {
			return
		}
		for _, v := range []string{rec.sub, rec.event, rec.path, rec.traffic, rec.ref, rec.label} {
			if v != sanitize(v, maxLabelLen) {
				t.Fatalf("%q: label value %q is not sanitized", line, v)
			}
		}
		if rec.event == "" || rec.path == "" || rec.m != nil && (rec.m.Label != "" || rec.m.Property != "") && rec.label == "" {
			t.Fatalf("%q: empty event type or path", line)
		}
	})
}

func TestParseLineSeeds(t *testing.T) {
	for _, s := range []string{`{"eventType":"\u200b","payload":{"event_id":"e","path":"/a\u0000b?x"}}`} {
		rules, _ := loadTrafficRules("")
		emap, _ := loadEventMap("")
		p := &parser{rules: rules, emap: emap, uaCache: map[string]string{}}
		rec, reason := p.parseLine([]byte(s))
		if reason != "" || rec.path != "/ab" || rec.event != "unknown" {
			t.Errorf("%s: path %q (%s), want /ab", s, rec.path, reason)
		}
	}
}
