package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Fuzz targets of the client's parsers. Each checks properties against an
// independent reference (encoding/json, net/http, time), not only the
// absence of panics. Seeds are below and in testdata/fuzz/<target>/.

// fuzzMaxError bounds the length of a decode error: an error never echoes
// an arbitrary amount of the body.
const fuzzMaxError = 512

// fuzzDecodeError checks the error of a refused body.
func fuzzDecodeError(t *testing.T, ep Endpoint, err error) {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error %T (%v), want a *DecodeError", err, err)
	}
	if de.Endpoint != ep {
		t.Fatalf("DecodeError.Endpoint = %q, want %q", de.Endpoint, ep)
	}
	if n := len(err.Error()); n > fuzzMaxError {
		t.Fatalf("a %d-byte error message: %.200q…", n, err.Error())
	}
}

// fuzzReference decodes body with encoding/json, numbers kept as written.
func fuzzReference(t *testing.T, body []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("accepted a body encoding/json refuses: %v", err)
	}
	return m
}

// fuzzSameCount checks that a decoded count equals the reference number.
func fuzzSameCount(t *testing.T, field string, got int64, ref any) {
	t.Helper()
	n, ok := ref.(json.Number)
	if !ok {
		t.Fatalf("%s: accepted a %T", field, ref)
	}
	want, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil || want != got || got < 0 {
		t.Fatalf("%s = %d, the body says %s", field, got, n)
	}
}

func fuzzSameCounts(t *testing.T, field string, got Counts, ref any) {
	t.Helper()
	m, ok := ref.(map[string]any)
	if !ok {
		t.Fatalf("%s: accepted a %T", field, ref)
	}
	fuzzSameCount(t, field+".human", got.Human, m["human"])
	fuzzSameCount(t, field+".ai", got.AI, m["ai"])
	fuzzSameCount(t, field+".total", got.Total, m["total"])
}

// FuzzDecodeVisitors: a page is accepted only when it is valid JSON with
// every documented field, each count a non-negative integer as written,
// each path non-empty and (where valid UTF-8) what encoding/json reads;
// an accepted page survives a round trip through encoding/json.
func FuzzDecodeVisitors(f *testing.F) {
	for _, s := range []string{
		`{"totals":{"human":10,"ai":4,"total":12},"visitors":[{"path":"/quickstart","human":10,"ai":4,"total":12}],"hasMore":false}`,
		`{"totals":{"human":0,"ai":0,"total":0},"visitors":[],"hasMore":true}`,
		`{"totals":{"human":1,"ai":1,"total":1},"visitors":[{"path":"/a\"b\\c\u00e9\ud83d\ude00\/x","human":1,"ai":0,"total":1}],"hasMore":false}`,
		`{"totals":{"human":1,"ai":1,"total":1},"visitors":[{"path":"\ud800","human":1,"ai":0,"total":1}],"hasMore":false}`,
		`{"totals":{"human":1,"ai":1,"total":1},"visitors":[{"path":"/bad` + "\xff\xfe" + `","human":1,"ai":0,"total":1}],"hasMore":false}`,
		`{"totals":{"human":-1,"ai":0,"total":0},"visitors":[],"hasMore":false}`,
		`{"totals":{"human":1.5,"ai":0,"total":0},"visitors":[],"hasMore":false}`,
		`{"totals":{"human":1e3,"ai":0,"total":0},"visitors":[],"hasMore":false}`,
		`{"totals":{"human":"1","ai":0,"total":0},"visitors":[],"hasMore":false}`,
		`{"totals":{"human":9223372036854775808,"ai":0,"total":0},"visitors":[],"hasMore":false}`,
		`{"totals":null,"visitors":[],"hasMore":false}`,
		`{"visitors":[],"hasMore":false}`,
		`{"totals":{"human":1,"ai":1,"total":1},"visitors":[{"path":"","human":1,"ai":0,"total":1}],"hasMore":false}`,
		`{"totals":{"human":1,"ai":1,"total":1},"visitors":[],"hasMore":"false"}`,
		`{"Totals":{"human":1,"ai":1,"total":1},"visitors":[],"hasMore":false}`,
		`{"totals":{"human":1,"ai":1,"total":1},"totals":{"human":2,"ai":2,"total":2},"visitors":[],"hasMore":false}`,
		`{"totals":{"human":1,"ai":1,"total":1},"visitors":[],"hasMore":false} trailing`,
		`{"totals": {"human": 1,`,
		`[]`, `null`, ``, ` `, `"x"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		page, err := decodeVisitors(body)
		if err != nil {
			if page != nil {
				t.Fatal("a page returned with an error")
			}
			fuzzDecodeError(t, EndpointVisitors, err)
			return
		}
		ref := fuzzReference(t, body)
		fuzzSameCounts(t, "totals", page.Totals, ref["totals"])
		rows, ok := ref["visitors"].([]any)
		if !ok || len(rows) != len(page.Visitors) {
			t.Fatalf("%d rows decoded, the body has %v", len(page.Visitors), ref["visitors"])
		}
		for i, row := range page.Visitors {
			r := rows[i].(map[string]any)
			fuzzSameCounts(t, fmt.Sprintf("visitors[%d]", i), row.Counts, r)
			if row.Path == "" {
				t.Fatalf("visitors[%d]: an empty path was accepted", i)
			}
			if utf8.ValidString(row.Path) && r["path"] != row.Path {
				t.Fatalf("visitors[%d].path = %q, encoding/json reads %q", i, row.Path, r["path"])
			}
		}
		if hm, ok := ref["hasMore"].(bool); !ok || hm != page.HasMore {
			t.Fatalf("hasMore = %v, the body says %v", page.HasMore, ref["hasMore"])
		}
		for _, row := range page.Visitors {
			if !utf8.ValidString(row.Path) {
				return // JSON cannot carry it back
			}
		}
		again, err := json.Marshal(page)
		if err != nil {
			t.Fatal(err)
		}
		page2, err := decodeVisitors(again)
		if err != nil {
			t.Fatalf("a re-encoded page is refused: %v\n%s", err, again)
		}
		if !reflect.DeepEqual(page, page2) {
			t.Fatalf("round trip changed the page:\n%+v\n%+v", page, page2)
		}
	})
}

// FuzzDecodeJob: every field is optional (an absent id is the id asked
// for, an absent createdAt the zero time); a createdAt that is present is
// RFC 3339; Raw is the body; optional fields are nil exactly when absent or
// null; and decoding Raw again gives the same job.
func FuzzDecodeJob(f *testing.F) {
	for _, s := range []string{
		`{"id":"job_1","status":"active","source":{"repository":"https://github.com/acme/docs","ref":"main"},"model":"claude-sonnet-4","prLink":null,"createdAt":"2025-03-01T12:00:00.000Z","archivedAt":null}`,
		`{"id":"job_2","status":"completed","prLink":"https://github.com/acme/docs/pull/1","createdAt":"2025-03-01T12:00:00Z","archivedAt":"2025-03-02T12:00:00+02:00"}`,
		`{"id":"job_3","status":"paused","createdAt":"2025-03-01T12:00:00Z"}`,
		`{"id":"","status":"active","createdAt":"2025-03-01T12:00:00Z"}`,
		`{"id":"x","status":"active","createdAt":"yesterday"}`,
		`{"id":"x","status":"active","createdAt":"2025-03-01"}`,
		`{"id":"x","status":1,"createdAt":"2025-03-01T12:00:00Z"}`,
		`{"id":"x","status":"active","source":"github","createdAt":"2025-03-01T12:00:00Z"}`,
		`{"id":"x","status":"active","source":{"ref":5},"createdAt":"2025-03-01T12:00:00Z"}`,
		`{"id":"\u00e9\ud800","status":"active","createdAt":"2025-03-01T12:00:00Z"}`,
		`{"error":"Job not found"}`,
		`{"id":"x"`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		job, err := decodeJob(EndpointGetJob, body, "asked")
		if err != nil {
			if job != nil {
				t.Fatal("a job returned with an error")
			}
			fuzzDecodeError(t, EndpointGetJob, err)
			return
		}
		ref := fuzzReference(t, body)
		// Every field is optional: an absent, null or empty id is the id
		// asked for; an absent or null status is "".
		refID, _ := ref["id"].(string)
		if refID == "" && job.ID != "asked" {
			t.Fatalf("id = %q without an id in the body, want the id asked for", job.ID)
		}
		if refID != "" && utf8.ValidString(job.ID) && refID != job.ID {
			t.Fatalf("id = %q, encoding/json reads %q", job.ID, ref["id"])
		}
		refStatus, _ := ref["status"].(string)
		if utf8.ValidString(string(job.Status)) && refStatus != string(job.Status) {
			t.Fatalf("status = %q, encoding/json reads %q", job.Status, ref["status"])
		}
		if created, ok := ref["createdAt"].(string); ok {
			if want, err := time.Parse(time.RFC3339Nano, created); err != nil || !want.Equal(job.CreatedAt) {
				t.Fatalf("createdAt = %s from %q (%v)", job.CreatedAt, created, err)
			}
		} else if !job.CreatedAt.IsZero() {
			t.Fatalf("createdAt = %s without a createdAt in the body", job.CreatedAt)
		}
		if (job.PRLink == nil) != (ref["prLink"] == nil) || (job.ArchivedAt == nil) != (ref["archivedAt"] == nil) {
			t.Fatalf("prLink %v / archivedAt %v disagree with the body's %v / %v", job.PRLink, job.ArchivedAt, ref["prLink"], ref["archivedAt"])
		}
		if !bytes.Equal(job.Raw, bytes.TrimSpace(body)) {
			t.Fatalf("Raw = %q, want the body", job.Raw)
		}
		again, err := decodeJob(EndpointGetJob, job.Raw, "asked")
		if err != nil || !reflect.DeepEqual(job, again) {
			t.Fatalf("decoding Raw again: %v\n%+v\n%+v", err, job, again)
		}
	})
}

// FuzzParseRetryAfter: delta-seconds are exact (capped at a year), an
// HTTP date is its distance from now (0 when past), anything else is
// refused with 0, and the result is never negative.
func FuzzParseRetryAfter(f *testing.F) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC).Unix()
	for _, s := range []string{
		"120", "0", "-5", " 30 ", "1.5", "+5", "0x10", "", "   ", "99999999999999999999",
		"Wed, 21 Oct 2015 07:28:00 GMT", "Tue, 10 Mar 2026 12:20:00 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
		"Sun Nov  6 08:49:37 1994", "Fri, 31 Dec 9999 23:59:59 GMT", "Tue, 10 Mar 2026 12:20:00 UTC",
	} {
		f.Add(s, now, uint32(1200))
	}
	f.Fuzz(func(t *testing.T, v string, nowUnix int64, ahead uint32) {
		now := time.Unix(nowUnix%(1<<35), 0) // years 881..3058
		d, ok := ParseRetryAfter(v, now)
		if d < 0 || (!ok && d != 0) {
			t.Fatalf("ParseRetryAfter(%q) = %s, %v", v, d, ok)
		}
		s := strings.TrimSpace(v)
		switch {
		case isDigits(s):
			secs, err := strconv.ParseInt(s, 10, 64)
			if err != nil || secs > maxRetryAfterSeconds {
				secs = maxRetryAfterSeconds
			}
			if !ok || d != time.Duration(secs)*time.Second {
				t.Fatalf("ParseRetryAfter(%q) = %s, %v; want %ds", v, d, ok, secs)
			}
		case strings.HasPrefix(s, "-") && isDigits(s[1:]):
			if !ok || d != 0 {
				t.Fatalf("ParseRetryAfter(%q) = %s, %v; want 0 (now)", v, d, ok)
			}
		default:
			at, err := http.ParseTime(s)
			if (err == nil) != ok {
				t.Fatalf("ParseRetryAfter(%q) ok = %v, but http.ParseTime says %v", v, ok, err)
			}
			if ok && d != max(0, at.Sub(now)) {
				t.Fatalf("ParseRetryAfter(%q) = %s, want %s", v, d, max(0, at.Sub(now)))
			}
		}
		// A date written by a server ahead seconds from now is read back
		// exactly.
		date := now.Add(time.Duration(ahead) * time.Second).UTC().Format(http.TimeFormat)
		if d, ok := ParseRetryAfter(date, now); !ok || d != time.Duration(ahead)*time.Second {
			t.Fatalf("ParseRetryAfter(%q) at %s = %s, %v; want %ds", date, now, d, ok, ahead)
		}
	})
}

// fuzzDateShape is the only form ParseDate accepts.
var fuzzDateShape = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})$`)

// FuzzParseDate: exactly the valid YYYY-MM-DD calendar dates are accepted,
// and an accepted date formats back to its input and steps through days
// consistently.
func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2026-03-10", "2024-02-29", "2025-02-29", "2025-13-01", "2025-00-10", "0000-01-01",
		"9999-12-31", "2025-1-1", "2025-01-01T00:00:00Z", " 2025-01-01", "+2025-01-01", "2025-01-32", "２０２５-01-01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDate(s)
		m := fuzzDateShape.FindStringSubmatch(s)
		valid := false
		if m != nil {
			y, _ := strconv.Atoi(m[1])
			mo, _ := strconv.Atoi(m[2])
			day, _ := strconv.Atoi(m[3])
			valid = mo >= 1 && mo <= 12 && day >= 1 && day <= time.Date(y, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day()
		}
		if (err == nil) != valid {
			t.Fatalf("ParseDate(%q) = %v, %v; valid calendar date: %v", s, d, err, valid)
		}
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if d.String() != s || DateOf(d.Time()) != d || d.AddDays(1).AddDays(-1) != d {
			t.Fatalf("ParseDate(%q) = %v: does not round trip", s, d)
		}
		if r := LastNDays(d.Time().Add(23*time.Hour), 7); r.To != d.AddDays(1) || r.From != d.AddDays(-6) || r.Days() != 7 {
			t.Fatalf("LastNDays(%s, 7) = %s", s, r)
		}
	})
}

// FuzzDecodeVisitorsFastAgrees checks the one-pass reading of visitors pages
// against the strict one: whatever the fast reading accepts, the strict
// reading accepts with an identical page.
func FuzzDecodeVisitorsFastAgrees(f *testing.F) {
	for _, s := range []string{
		`{"totals":{"human":10,"ai":4,"total":12},"visitors":[{"path":"/quickstart","human":10,"ai":4,"total":12}],"hasMore":false}`,
		`{"hasMore":true,"x":{"y":[1,"]",{"z":null}]},"visitors":[],"totals":{"total":0,"ai":0,"human":0,"path":"ignored"}}`,
		`{"totals":{"human":1,"ai":1,"total":1},"visitors":[{"path":"/a\"b\\c\u00e9\ud83d\ude00\/x","human":1,"ai":0,"total":1,"extra":[{}]}],"hasMore":false}`,
		`{"totals":{"human":1,"ai":1,"total":1},"visitors":[{"path":"/bad` + "\xff\xfe" + `","human":1,"ai":0,"total":1}],"hasMore":false}`,
		`{"totals":{"human":1,"ai":1,"total":1},"visitors":[{"path":"/a","path":"","human":1,"ai":0,"total":1}],"hasMore":false}`,
		`{"totals":{"human":1,"human":-1,"ai":1,"total":1},"visitors":[],"hasMore":false}`,
		`{"totals":{"hum\u0061n":1,"ai":1,"total":1},"visitors":[],"hasMore":false}`,
		`{"Totals":{"human":1,"ai":1,"total":1},"visitors":[],"hasMore":false}`,
		`{"totals":{"human":-0,"ai":0,"total":0},"visitors":[],"hasMore":false}`,
		`{"totals":{"human":1E2,"ai":0,"total":0},"visitors":[],"hasMore":false}`,
		` {"totals" : { "human" : 1 , "ai" : 1 , "total" : 1 } , "visitors" : [ ] , "hasMore" : true } `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fast, ok := decodeVisitorsFast(body)
		if !ok {
			return
		}
		strict, err := decodeVisitorsStrict(body)
		if err != nil {
			t.Fatalf("the fast reading accepted a page the strict one refuses: %v\n%q", err, body)
		}
		if !reflect.DeepEqual(fast, strict) {
			t.Fatalf("readings differ:\nfast   %+v\nstrict %+v\nbody %q", fast, strict, body)
		}
	})
}
