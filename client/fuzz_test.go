package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"regexp"
	"slices"
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

// fuzzFields returns the values of the named fields of body, found as
// encoding/json finds struct fields (case-insensitively, the last match
// counting), as the typed decoding does; an absent field is nil.
func fuzzFields(t *testing.T, body []byte, names ...string) map[string]any {
	t.Helper()
	var sf []reflect.StructField
	for i, n := range names {
		sf = append(sf, reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: reflect.TypeFor[any](), Tag: reflect.StructTag(`json:"` + n + `"`)})
	}
	probe := reflect.New(reflect.StructOf(sf))
	if err := json.Unmarshal(body, probe.Interface()); err != nil {
		t.Fatalf("accepted a body encoding/json refuses: %v", err)
	}
	out := map[string]any{}
	for i, n := range names {
		out[n] = probe.Elem().Field(i).Interface()
	}
	return out
}

// fuzzRows returns the elements of the array named arr in body, found as
// encoding/json finds struct fields (the typed decoding does the same).
func fuzzRows(t *testing.T, body []byte, arr string) []json.RawMessage {
	t.Helper()
	probe := reflect.New(reflect.StructOf([]reflect.StructField{{
		Name: "R", Type: reflect.TypeFor[[]json.RawMessage](), Tag: reflect.StructTag(`json:"` + arr + `"`),
	}}))
	if err := json.Unmarshal(body, probe.Interface()); err != nil {
		t.Fatalf("accepted a body whose %s array encoding/json cannot read: %v", arr, err)
	}
	return probe.Elem().Field(0).Interface().([]json.RawMessage)
}

// fuzzCount checks that a kept count is finite and not negative.
func fuzzCount(t *testing.T, what string, v float64) {
	t.Helper()
	if v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || math.Signbit(v) {
		t.Fatalf("%s = %v kept", what, v)
	}
}

// fuzzKeptAndSkipped checks that every row is either kept or skipped for a
// known reason.
func fuzzKeptAndSkipped(t *testing.T, kept int, skipped Skipped, rows int) {
	t.Helper()
	for k, n := range skipped {
		if !slices.Contains(SkipReasons, k) || n <= 0 {
			t.Fatalf("Skipped %v: unknown reason or empty count", skipped)
		}
	}
	if kept+skipped.Total() != rows {
		t.Fatalf("%d kept + %d skipped, the body has %d rows", kept, skipped.Total(), rows)
	}
}

// fuzzPathsSeeds are visitors pages; views seeds use the same with the
// array renamed.
var fuzzPathsSeeds = []string{
	`{"totals":{"human":10,"ai":4,"total":12},"visitors":[{"path":"/quickstart","human":10,"ai":4,"total":12}],"hasMore":false}`,
	`{"totals":{"human":0,"ai":0,"total":0},"visitors":[],"hasMore":true}`,
	`{"totals":{"human":1,"ai":1,"total":1},"visitors":[{"path":"/a\"b\\c\u00e9\ud83d\ude00\/x","human":1,"ai":0,"total":1}],"hasMore":false}`,
	`{"totals":{"human":1,"ai":1,"total":1},"visitors":[{"path":"\ud800","human":1,"ai":0,"total":1}],"hasMore":false}`,
	`{"totals":{"human":1,"ai":1,"total":1},"visitors":[{"path":"/bad` + "\xff\xfe" + `","human":1,"ai":0,"total":1}],"hasMore":false}`,
	`{"totals":{"human":-1,"ai":0,"total":0},"visitors":[],"hasMore":false}`,
	`{"totals":{"human":1.5,"ai":12.0,"total":1e3},"visitors":[{"path":"/x","human":-0,"ai":1E2,"total":0.5}],"hasMore":false}`,
	`{"totals":{"human":"1","ai":0,"total":0},"visitors":[],"hasMore":false}`,
	`{"totals":{"human":1e999,"ai":0,"total":0},"visitors":[],"hasMore":false}`,
	`{"totals":null,"visitors":[],"hasMore":false}`,
	`{"visitors":[],"hasMore":false}`,
	`{"totals":{"human":1,"ai":1,"total":1},"visitors":[{"path":"","human":1,"ai":0,"total":1},"x",null,{"path":"/n","human":-1,"ai":0,"total":1},{"path":"/m"}],"hasMore":false}`,
	`{"totals":{"human":1,"ai":1,"total":1},"visitors":[1,{"path":"/a","human":1,"ai":1,"total":1}],"visitors":{},"hasMore":false}`,
	`{"totals":{"human":1,"ai":1,"total":1},"visitors":[],"hasMore":"false"}`,
	`{"Totals":{"human":1,"ai":1,"total":1},"VISITORS":[],"hasMore":false}`,
	`{"totals":{"human":1,"ai":1,"total":1},"visitors":[],"hasMore":false} trailing`,
	`{"totals": {"human": 1,`,
	`[]`, `null`, ``, ` `, `"x"`,
}

// FuzzDecodePaths: a visitors or views page is accepted only when it is a
// JSON object encoding/json reads; every kept row has a non-empty path and
// finite non-negative counts; kept and skipped rows add up to the body's
// rows; and an accepted page, encoded again, decodes to the same rows with
// nothing skipped.
func FuzzDecodePaths(f *testing.F) {
	for _, s := range fuzzPathsSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(strings.ReplaceAll(s, `"visitors"`, `"views"`)), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, views bool) {
		ep, arr := EndpointVisitors, "visitors"
		if views {
			ep, arr = EndpointViews, "views"
		}
		page, err := decodePaths(ep, body)
		if err != nil {
			if page != nil {
				t.Fatal("a page returned with an error")
			}
			fuzzDecodeError(t, ep, err)
			return
		}
		if !json.Valid(body) {
			t.Fatalf("accepted invalid JSON %q", body)
		}
		fuzzCount(t, "totals.human", page.Totals.Human)
		fuzzCount(t, "totals.ai", page.Totals.AI)
		fuzzCount(t, "totals.total", page.Totals.Total)
		for i, r := range page.Rows {
			if r.Path == "" {
				t.Fatalf("row %d: empty path kept", i)
			}
			if len(r.Path) > MaxLabelBytes {
				t.Fatalf("row %d: a path of %d bytes, over MaxLabelBytes", i, len(r.Path))
			}
			fuzzCount(t, "human", r.Human)
			fuzzCount(t, "ai", r.AI)
			fuzzCount(t, "total", r.Total)
		}
		fuzzKeptAndSkipped(t, len(page.Rows), page.Skipped, len(fuzzRows(t, body, arr)))
		for _, r := range page.Rows {
			if !utf8.ValidString(r.Path) {
				return // JSON cannot carry it back
			}
		}
		again, err := json.Marshal(map[string]any{"totals": page.Totals, arr: page.Rows, "hasMore": page.HasMore})
		if err != nil {
			t.Fatal(err)
		}
		page2, err := decodePaths(ep, again)
		if err != nil {
			t.Fatalf("a re-encoded page is refused: %v\n%s", err, again)
		}
		if page2.Skipped != nil {
			page2.Skipped = nil
		}
		page.Skipped = nil
		if !reflect.DeepEqual(page, page2) {
			t.Fatalf("round trip changed the page:\n%+v\n%+v", page, page2)
		}
	})
}

// FuzzDecodeCallerStats: accepted only with four finite non-negative
// numbers, equal to what encoding/json reads.
func FuzzDecodeCallerStats(f *testing.F) {
	for _, s := range []string{
		`{"web":10,"api":2,"other":1,"total":14}`, `{"web":1.5e2,"api":0,"other":0.0,"total":150,"mcp":3}`,
		`{"web":-1,"api":2,"other":1,"total":14}`, `{"web":"1","api":2,"other":1,"total":14}`, `{"api":2,"other":1,"total":14}`,
		`{"web":null,"api":2,"other":1,"total":14}`, `[]`, `{`, `{"Web":1,"API":2,"OTHER":3,"total":6}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		s, err := decodeCallerStats(EndpointCallerStats, body)
		if err != nil {
			if s != nil {
				t.Fatal("stats returned with an error")
			}
			fuzzDecodeError(t, EndpointCallerStats, err)
			return
		}
		var ref struct{ Web, API, Other, Total float64 }
		if err := json.Unmarshal(body, &ref); err != nil {
			t.Fatalf("accepted a body encoding/json refuses: %v", err)
		}
		if *s != (CallerStats{ref.Web, ref.API, ref.Other, ref.Total}) {
			t.Fatalf("%+v, encoding/json reads %+v", s, ref)
		}
		for _, v := range []float64{s.Web, s.API, s.Other, s.Total} {
			fuzzCount(t, "count", v)
		}
	})
}

// FuzzDecodeFeedback: kept rows are valid; kept and skipped rows add up.
func FuzzDecodeFeedback(f *testing.F) {
	for _, s := range []string{
		`{"feedback":[{"path":"/a","thumbsUp":3,"thumbsDown":1,"code":0,"total":4}],"hasMore":true}`,
		`{"feedback":[{"path":"","thumbsUp":3,"thumbsDown":1,"code":0,"total":4},{"path":"/b","thumbsUp":-3,"thumbsDown":1,"code":0,"total":4},"x",{"path":"/c","thumbsUp":1,"thumbsDown":1,"total":2}],"hasMore":false}`,
		`{"feedback":null,"hasMore":false}`, `{"feedback":[],"hasMore":null}`, `{"feedback":[],"hasMore":false,"nextCursor":"x"}`, `7`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		page, err := decodeFeedback(EndpointFeedbackByPage, body)
		if err != nil {
			if page != nil {
				t.Fatal("a page returned with an error")
			}
			fuzzDecodeError(t, EndpointFeedbackByPage, err)
			return
		}
		for _, r := range page.Rows {
			if r.Path == "" {
				t.Fatal("empty path kept")
			}
			for _, v := range []float64{r.ThumbsUp, r.ThumbsDown, r.Code, r.Total} {
				fuzzCount(t, "count", v)
			}
		}
		fuzzKeptAndSkipped(t, len(page.Rows), page.Skipped, len(fuzzRows(t, body, "feedback")))
	})
}

// FuzzDecodeSearches: kept rows are valid; kept and skipped rows add up;
// totalSearches is a valid count.
func FuzzDecodeSearches(f *testing.F) {
	for _, s := range []string{
		`{"searches":[{"searchQuery":"api key","hits":12,"ctr":0.25,"topClickedPage":"/auth","lastSearchedAt":"2025-06-30T10:00:00.000Z"}],"totalSearches":40,"nextCursor":"abc"}`,
		`{"searches":[{"searchQuery":"","hits":1,"ctr":0,"topClickedPage":null,"lastSearchedAt":null},{"searchQuery":"x","hits":"1","ctr":0},{"searchQuery":"y","hits":1,"ctr":0,"topClickedPage":5},3],"totalSearches":2.0,"nextCursor":null}`,
		`{"searches":[],"totalSearches":-1}`, `{"searches":[],"nextCursor":null}`, `{"searches":{},"totalSearches":0}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		page, err := decodeSearches(EndpointSearches, body)
		if err != nil {
			if page != nil {
				t.Fatal("a page returned with an error")
			}
			fuzzDecodeError(t, EndpointSearches, err)
			return
		}
		fuzzCount(t, "totalSearches", page.TotalSearches)
		for _, r := range page.Rows {
			if r.Query == "" {
				t.Fatal("empty term kept")
			}
			fuzzCount(t, "hits", r.Hits)
			fuzzCount(t, "ctr", r.CTR)
		}
		fuzzKeptAndSkipped(t, len(page.Rows), page.Skipped, len(fuzzRows(t, body, "searches")))
	})
}

// FuzzDecodeConversations: every turn is counted once or skipped; no key
// has an empty part.
func FuzzDecodeConversations(f *testing.F) {
	for _, s := range []string{
		`{"conversations":[{"id":"01J0000000000000000000000A","timestamp":"2025-06-30T10:00:00Z","query":"q","response":"r","responseType":"answer","sources":[],"resolutionStatus":"answered","queryCategory":null,"pageUrl":null}],"nextCursor":null,"hasMore":false}`,
		`{"conversations":[{"id":"a"},{"id":"b","responseType":null,"resolutionStatus":null},{"id":"c","responseType":"handoff","resolutionStatus":"escalated"},{"id":""},{"id":"d","responseType":""},{"id":"e","responseType":3},"x"],"nextCursor":"01J0000000000000000000000A","hasMore":true}`,
		`{"conversations":[],"hasMore":"no"}`, `{"conversations":[],"nextCursor":5,"hasMore":false}`, `{"hasMore":false}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		page := &ConversationsResult{Counts: make(map[ConversationKey]int)}
		_, _, _, err := decodeConversations(body, page)
		if err != nil {
			if page.Turns != 0 || len(page.Counts) != 0 || page.Skipped != nil {
				t.Fatal("a page merged with an error")
			}
			fuzzDecodeError(t, EndpointConversations, err)
			return
		}
		n := 0
		for k, c := range page.Counts {
			if k.ResponseType == "" || k.Resolution == "" || c <= 0 {
				t.Fatalf("key %+v counted %d", k, c)
			}
			n += c
		}
		if n != page.Turns {
			t.Fatalf("counts add up to %d, turns %d", n, page.Turns)
		}
		fuzzKeptAndSkipped(t, page.Turns, page.Skipped, len(fuzzRows(t, body, "conversations")))
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
		ref := fuzzFields(t, body, "id", "status", "createdAt", "prLink", "archivedAt")
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
