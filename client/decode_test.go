package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// row returns visitors[i] of a visitors body being mutated.
func row(b map[string]any, i int) map[string]any { return b["visitors"].([]any)[i].(map[string]any) }

// num is a JSON number written exactly as given.
func num(s string) json.Number { return json.Number(s) }

// decodeCase is a mutation of a real answer and the DecodeError it causes
// ("" field and reason: no error).
type decodeCase struct {
	name   string
	mutate func(b map[string]any)
	body   string // raw body instead of a mutation
	field  string
	reason string
}

// checkDecode runs one decodeCase against an endpoint.
func checkDecode(t *testing.T, endpoint string, run func(h *harness) error, tc decodeCase) {
	t.Helper()
	h := jobHarness(t, nil)
	h.srv.AddFault(mintlifytest.Fault{Endpoint: endpoint, Offset: mintlifytest.AnyOffset, Mutate: tc.mutate, Body: tc.body})
	err := run(h)
	if tc.reason == "" {
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		return
	}
	var de *client.DecodeError
	if !errors.As(err, &de) {
		t.Errorf("%s: error %v, want a DecodeError", tc.name, err)
		return
	}
	if de.Endpoint.String() != endpoint || de.Field != tc.field || !strings.Contains(de.Reason, tc.reason) {
		t.Errorf("%s: DecodeError{%q, %q, %q}, want field %q and reason containing %q", tc.name, de.Endpoint, de.Field, de.Reason, tc.field, tc.reason)
	}
	if want := ": " + tc.field + ": "; tc.field != "" && !strings.Contains(err.Error(), want) {
		t.Errorf("%s: Error() %q does not name the field", tc.name, err)
	}
	if got := h.codes(); !slices.Equal(got, []string{"200"}) {
		t.Errorf("%s: attempts %v: a malformed answer must not be retried", tc.name, got)
	}
}

// pageCases are malformed pages of visitors and views: each fails the
// page with a DecodeError naming the field. arr is the row array's name.
func pageCases(arr string) []decodeCase {
	rowOf := func(b map[string]any, i int) map[string]any { return b[arr].([]any)[i].(map[string]any) }
	_ = rowOf
	return []decodeCase{
		{name: "totals string", mutate: func(b map[string]any) { b["totals"].(map[string]any)["human"] = "12" }, field: "totals.human", reason: "wrong type: string, want number"},
		{name: "totals negative", mutate: func(b map[string]any) { b["totals"].(map[string]any)["total"] = num("-3") }, field: "totals.total", reason: "negative count -3"},
		{name: "totals huge", mutate: func(b map[string]any) { b["totals"].(map[string]any)["ai"] = num("1e999") }, field: "totals.ai", reason: "out of range"},
		{name: "totals missing", mutate: func(b map[string]any) { delete(b, "totals") }, field: "totals", reason: "missing"},
		{name: "totals null", mutate: func(b map[string]any) { b["totals"] = nil }, field: "totals", reason: "wrong type: null, want object"},
		{name: "totals array", mutate: func(b map[string]any) { b["totals"] = []any{} }, field: "totals", reason: "wrong type: array, want object"},
		{name: "totals.ai missing", mutate: func(b map[string]any) { delete(b["totals"].(map[string]any), "ai") }, field: "totals.ai", reason: "missing"},
		{name: "totals.ai null", mutate: func(b map[string]any) { b["totals"].(map[string]any)["ai"] = nil }, field: "totals.ai", reason: "wrong type: null"},
		{name: "rows missing", mutate: func(b map[string]any) { delete(b, arr) }, field: arr, reason: "missing"},
		{name: "rows null", mutate: func(b map[string]any) { b[arr] = nil }, field: arr, reason: "null"},
		{name: "rows object", mutate: func(b map[string]any) { b[arr] = map[string]any{} }, field: arr, reason: "wrong type: object, want array"},
		{name: "rows string", mutate: func(b map[string]any) { b[arr] = "x" }, field: arr, reason: "wrong type: string, want array"},
		{name: "hasMore missing", mutate: func(b map[string]any) { delete(b, "hasMore") }, field: "hasMore", reason: "missing"},
		{name: "hasMore string", mutate: func(b map[string]any) { b["hasMore"] = "true" }, field: "hasMore", reason: "wrong type: string, want boolean"},
		{name: "hasMore null", mutate: func(b map[string]any) { b["hasMore"] = nil }, field: "hasMore", reason: "wrong type: null, want boolean"},
		{name: "body array", body: `[]`, field: "", reason: "wrong type: array, want object"},
		{name: "body null", body: `null`, field: "", reason: "wrong type: null, want object"},
		{name: "malformed", body: `{"totals":`, field: "", reason: "malformed JSON"},
		{name: "trailing data", body: `{"totals":{"human":1,"ai":1,"total":1},"` + arr + `":[],"hasMore":false}{}`, field: "", reason: "malformed JSON"},
		{name: "empty body", body: ` `, field: "", reason: "malformed JSON"},
		{name: "unknown fields ignored", mutate: func(b map[string]any) { b["extra"] = 1; rowOf(b, 0)["views"] = "x" }},
		{name: "minus zero", mutate: func(b map[string]any) { rowOf(b, 0)["ai"] = num("-0") }},
	}
}

func TestDecodePathsPageErrors(t *testing.T) {
	for _, ep := range []struct {
		endpoint, arr string
		run           func(*harness) error
	}{
		{mintlifytest.EndpointVisitors, "visitors", func(h *harness) error {
			_, err := h.c.PathsPage(context.Background(), client.EndpointVisitors, testProject, client.PathsQuery{Limit: 10})
			return err
		}},
		{mintlifytest.EndpointViews, "views", func(h *harness) error {
			_, err := h.c.PathsPage(context.Background(), client.EndpointViews, testProject, client.PathsQuery{Limit: 10})
			return err
		}},
	} {
		for _, tc := range pageCases(ep.arr) {
			checkDecode(t, ep.endpoint, ep.run, tc)
		}
	}
}

// rowCase is a malformation of one row and the reason it is skipped for
// ("" kept).
type rowCase struct {
	name   string
	mutate func(row map[string]any)
	reason string
}

var pathRowCases = []rowCase{
	{"negative", func(r map[string]any) { r["human"] = num("-1") }, client.SkipBadCount},
	{"string count", func(r map[string]any) { r["total"] = "7" }, client.SkipBadCount},
	{"bool count", func(r map[string]any) { r["total"] = true }, client.SkipBadCount},
	{"null count", func(r map[string]any) { r["ai"] = nil }, client.SkipBadCount},
	{"missing count", func(r map[string]any) { delete(r, "human") }, client.SkipBadCount},
	{"huge count", func(r map[string]any) { r["ai"] = num("1e400") }, client.SkipBadCount},
	{"empty path", func(r map[string]any) { r["path"] = "" }, client.SkipEmptyPath},
	{"missing path", func(r map[string]any) { delete(r, "path") }, client.SkipBadRow},
	{"null path", func(r map[string]any) { r["path"] = nil }, client.SkipBadRow},
	{"number path", func(r map[string]any) { r["path"] = num("5") }, client.SkipBadRow},
	{"fraction", func(r map[string]any) { r["total"] = num("1.5") }, ""},
	{"whole with fraction", func(r map[string]any) { r["ai"] = num("12.0") }, ""},
	{"exponent", func(r map[string]any) { r["ai"] = num("1e3") }, ""},
}

// TestDecodePathsSkipsBadRows: a malformed row is left out and counted by
// reason; the other rows of the page are kept, in order.
func TestDecodePathsSkipsBadRows(t *testing.T) {
	ds, r := generated(20)
	for _, ep := range []string{mintlifytest.EndpointVisitors, mintlifytest.EndpointViews} {
		for _, tc := range append(pathRowCases, rowCase{"row not an object", nil, client.SkipBadRow}) {
			h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
			var want []client.PathCounts
			if ep == mintlifytest.EndpointViews {
				_, want = clientRows(h.srv.Views(testProject, r.From.Time(), r.To.Time()))
			} else {
				_, want = expected(h.srv, testProject, r)
			}
			want = want[:10]
			h.srv.AddFault(mintlifytest.Fault{Endpoint: ep, Offset: mintlifytest.AnyOffset, Mutate: func(b map[string]any) {
				rows := b[ep].([]any)
				if tc.mutate == nil {
					rows[3] = "oops"
					return
				}
				tc.mutate(rows[3].(map[string]any))
			}})
			q := client.PathsQuery{Range: r, Limit: 10}
			var page *client.PathsPage
			var err error
			if ep == mintlifytest.EndpointViews {
				page, err = h.c.PathsPage(context.Background(), client.EndpointViews, testProject, q)
			} else {
				page, err = h.c.PathsPage(context.Background(), client.EndpointVisitors, testProject, q)
			}
			if err != nil {
				t.Errorf("%s %s: %v", ep, tc.name, err)
				continue
			}
			if tc.reason == "" {
				if len(page.Rows) != 10 || page.Skipped.Total() != 0 {
					t.Errorf("%s %s: %d rows, skipped %v: want the row kept", ep, tc.name, len(page.Rows), page.Skipped)
				}
				continue
			}
			want = append(slices.Clone(want[:3]), want[4:]...)
			if !slices.Equal(page.Rows, want) {
				t.Errorf("%s %s: rows\n%v\nwant\n%v", ep, tc.name, page.Rows, want)
			}
			if len(page.Skipped) != 1 || page.Skipped[tc.reason] != 1 {
				t.Errorf("%s %s: Skipped %v, want {%s: 1}", ep, tc.name, page.Skipped, tc.reason)
			}
		}
	}
}

// TestDecodeCountsAsNumbers: counts written 12.0 or 1.2e+01 read as 12, on
// every endpoint, through the fake's CountFormat fault.
func TestDecodeCountsAsNumbers(t *testing.T) {
	ds, r := generated(30)
	for _, cf := range []mintlifytest.CountFormat{mintlifytest.CountsWithFraction, mintlifytest.CountsWithExponent} {
		h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
		plain := readAll(t, h, r)
		h.srv.AddFault(mintlifytest.Fault{Offset: mintlifytest.AnyOffset, CountFormat: cf})
		h.reset()
		got := readAll(t, h, r)
		if !reflect.DeepEqual(got, plain) {
			t.Errorf("count format %d: answers differ:\n%+v\n%+v", cf, got, plain)
		}
		// The fault did rewrite the bodies: check one raw answer.
		raw := rawAnswer(t, h, "/v1/analytics/"+testProject+"/assistant/caller-stats")
		if !strings.Contains(raw, ".0") && !strings.Contains(raw, "e+") {
			t.Errorf("count format %d: body %s not rewritten", cf, raw)
		}
	}
}

// allAnswers is one answer of every analytics endpoint.
type allAnswers struct {
	Visitors, Views *client.PathsPage
	Callers         *client.CallerStats
	Feedback        *client.FeedbackPage
	Searches        *client.SearchesPage
	Conversations   *client.ConversationsResult
}

// readAll reads one answer of every analytics endpoint for r.
func readAll(t *testing.T, h *harness, r client.DateRange) allAnswers {
	t.Helper()
	ctx := context.Background()
	var a allAnswers
	var err error
	if a.Visitors, err = h.c.PathsPage(ctx, client.EndpointVisitors, testProject, client.PathsQuery{Range: r, Limit: 50}); err != nil {
		t.Fatal(err)
	}
	if a.Views, err = h.c.PathsPage(ctx, client.EndpointViews, testProject, client.PathsQuery{Range: r, Limit: 50}); err != nil {
		t.Fatal(err)
	}
	if a.Callers, err = h.c.CallerStats(ctx, testProject, r); err != nil {
		t.Fatal(err)
	}
	if a.Feedback, err = h.c.FeedbackByPage(ctx, testProject, r, 100); err != nil {
		t.Fatal(err)
	}
	if a.Searches, err = h.c.Searches(ctx, testProject, r, 100, ""); err != nil {
		t.Fatal(err)
	}
	if a.Conversations, err = h.c.WalkConversations(ctx, testProject, r, 0); err != nil {
		t.Fatal(err)
	}
	return a
}

// rawAnswer GETs path from the fake and returns the body.
func rawAnswer(t *testing.T, h *harness, path string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, h.srv.URL()+path, nil)
	req.Header.Set("Authorization", "Bearer "+mintlifytest.DefaultKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

func TestDecodeKeepsPathBytes(t *testing.T) {
	h := jobHarness(t, nil)
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, Mutate: func(b map[string]any) {
		row(b, 0)["path"] = json.RawMessage("\"/caf\xe9\"")                              // invalid UTF-8, kept
		row(b, 1)["path"] = json.RawMessage(`"/a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00"`) // every escape
		row(b, 2)["path"] = json.RawMessage(`"/lone\ud800x\udc00y\ud83dz"`)              // broken surrogates
		row(b, 3)["path"] = json.RawMessage(`"/\u0041\u00E9\u20aC"`)                     // hex case
	}})
	page, err := h.c.PathsPage(context.Background(), client.EndpointVisitors, testProject, client.PathsQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/caf\xe9", "/a\"b\\c/d\b\f\n\r\té😀", "/lone\uFFFDx\uFFFDy\uFFFDz", "/Aé€"}
	for i, w := range want {
		if got := page.Rows[i].Path; got != w {
			t.Errorf("path %d = %q, want %q", i, got, w)
		}
	}
}

func TestDecodeJob(t *testing.T) {
	cases := []decodeCase{
		{name: "id number", mutate: func(b map[string]any) { b["id"] = num("7") }, field: "id", reason: "wrong type: number, want string or null"},
		{name: "status number", mutate: func(b map[string]any) { b["status"] = num("1") }, field: "status", reason: "wrong type: number, want string or null"},
		{name: "createdAt bad", mutate: func(b map[string]any) { b["createdAt"] = "yesterday" }, field: "createdAt", reason: `invalid date-time "yesterday"`},
		{name: "createdAt number", mutate: func(b map[string]any) { b["createdAt"] = num("1700000000") }, field: "createdAt", reason: "wrong type: number"},
		{name: "archivedAt bad", mutate: func(b map[string]any) { b["archivedAt"] = "2025-13-01T00:00:00Z" }, field: "archivedAt", reason: "invalid date-time"},
		{name: "archivedAt number", mutate: func(b map[string]any) { b["archivedAt"] = num("1") }, field: "archivedAt", reason: "wrong type: number, want string or null"},
		{name: "prLink number", mutate: func(b map[string]any) { b["prLink"] = num("1") }, field: "prLink", reason: "wrong type: number, want string or null"},
		{name: "source string", mutate: func(b map[string]any) { b["source"] = "github" }, field: "source", reason: "wrong type: string, want object or null"},
		{name: "source.ref number", mutate: func(b map[string]any) { b["source"].(map[string]any)["ref"] = num("3") }, field: "source.ref", reason: "wrong type: number"},
		{name: "source.repository bool", mutate: func(b map[string]any) { b["source"].(map[string]any)["repository"] = false }, field: "source.repository", reason: "wrong type: boolean"},
		{name: "model number", mutate: func(b map[string]any) { b["model"] = num("4") }, field: "model", reason: "wrong type: number"},
		{name: "body string", body: `"job"`, field: "", reason: "wrong type: string, want object"},
		{name: "malformed", body: `{"id":"job-1",`, field: "", reason: "malformed JSON"},
	}
	for _, tc := range cases {
		checkDecode(t, mintlifytest.EndpointGetJob, func(h *harness) error { return opGetJob.run(h, context.Background()) }, tc)
		checkDecode(t, mintlifytest.EndpointSendMessage, func(h *harness) error { return opSendMessage.run(h, context.Background()) }, tc)
	}
}

func TestDecodeJobOptionalFields(t *testing.T) {
	created := time.Date(2025, 6, 1, 8, 30, 0, 0, time.UTC)
	h := jobHarness(t, nil)
	h.srv.AddJob(testProject, mintlifytest.JobSpec{ID: "j", Repository: "acme/site", Ref: "main", Model: "m-1", CreatedAt: created})

	get := func(mutate func(map[string]any)) *client.Job {
		t.Helper()
		remove := h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Mutate: mutate})
		defer remove()
		j, err := h.c.GetJob(context.Background(), testProject, "j")
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	j := get(nil)
	if j.ID != "j" || j.Status != client.StatusActive || j.Model != "m-1" || !j.CreatedAt.Equal(created) ||
		j.Source.Repository != "https://github.com/acme/site" || j.Source.Ref == nil || *j.Source.Ref != "main" ||
		j.PRLink != nil || j.ArchivedAt != nil {
		t.Errorf("job %+v", j)
	}
	var raw map[string]any
	if err := json.Unmarshal(j.Raw, &raw); err != nil || raw["id"] != "j" || len(raw) != 7 {
		t.Errorf("Raw %s: %v", j.Raw, err)
	}

	// Null and absent are the same for the nullable fields.
	for _, mutate := range []func(map[string]any){
		func(b map[string]any) {
			b["prLink"], b["archivedAt"] = nil, nil
			b["source"].(map[string]any)["ref"] = nil
		},
		func(b map[string]any) {
			delete(b, "prLink")
			delete(b, "archivedAt")
			delete(b["source"].(map[string]any), "ref")
		},
	} {
		j := get(mutate)
		if j.PRLink != nil || j.ArchivedAt != nil || j.Source.Ref != nil {
			t.Errorf("null/absent: %+v", j)
		}
	}
	// source and model may be missing or null.
	for _, mutate := range []func(map[string]any){
		func(b map[string]any) { delete(b, "source"); delete(b, "model") },
		func(b map[string]any) { b["source"], b["model"] = nil, nil },
	} {
		j := get(mutate)
		if j.Source != (client.JobSource{}) || j.Model != "" {
			t.Errorf("missing source/model: %+v", j)
		}
	}
	// Set values, fractional seconds and offsets.
	j = get(func(b map[string]any) {
		b["prLink"] = "https://github.com/acme/site/pull/9"
		b["archivedAt"] = "2025-06-02T10:00:00.123+02:00"
		b["status"] = "paused"
	})
	if j.PRLink == nil || *j.PRLink != "https://github.com/acme/site/pull/9" {
		t.Errorf("prLink %v", j.PRLink)
	}
	if want := time.Date(2025, 6, 2, 8, 0, 0, 123e6, time.UTC); j.ArchivedAt == nil || !j.ArchivedAt.Equal(want) {
		t.Errorf("archivedAt %v, want %v", j.ArchivedAt, want)
	}
	if j.Status != "paused" || j.Status.Known() {
		t.Errorf("unknown status not kept: %q", j.Status)
	}
}

// TestDecodeSessions: the v1 listing's schema requires no field. Only a
// listing that is not an object, or whose allSessions is not an array
// (when present), fails; a missing or null allSessions is an empty page.
func TestDecodeSessions(t *testing.T) {
	cases := []decodeCase{
		{name: "allSessions string", mutate: func(b map[string]any) { b["allSessions"] = "x" }, field: "allSessions", reason: "wrong type: string, want array"},
		{name: "not an object", body: `[]`, reason: "want object"},
		{name: "allSessions missing", mutate: func(b map[string]any) { delete(b, "allSessions") }},
		{name: "allSessions null", mutate: func(b map[string]any) { b["allSessions"] = nil }},
	}
	for _, tc := range cases {
		checkDecode(t, mintlifytest.EndpointListJobs, func(h *harness) error { return opListJobs.run(h, context.Background()) }, tc)
	}
}

// TestBadSessionsSkippedAndCounted: a session that is malformed (not an
// object, no sessionId, a field of the wrong type, an id too long for a
// label) is skipped and counted, the others kept, where it used to fail
// the whole listing; a session without haulted takes it from its
// haultReason.
func TestBadSessionsSkippedAndCounted(t *testing.T) {
	sess := func(b map[string]any, i int) map[string]any { return b["allSessions"].([]any)[i].(map[string]any) }
	for _, tc := range []struct {
		name   string
		mutate func(b map[string]any)
		skip   int
	}{
		{"session number", func(b map[string]any) { b["allSessions"].([]any)[0] = num("1") }, 1},
		{"sessionId missing", func(b map[string]any) { delete(sess(b, 0), "sessionId") }, 1},
		{"sessionId empty", func(b map[string]any) { sess(b, 0)["sessionId"] = "" }, 1},
		{"sessionId of 10,000 characters", func(b map[string]any) { sess(b, 0)["sessionId"] = strings.Repeat("s", 10000) }, 1},
		{"haulted string", func(b map[string]any) { sess(b, 0)["haulted"] = "no" }, 1},
		{"branch number", func(b map[string]any) { sess(b, 0)["branch"] = num("1") }, 1},
		{"pullRequestLink bool", func(b map[string]any) { sess(b, 0)["pullRequestLink"] = true }, 1},
		{"createdAt bad", func(b map[string]any) { sess(b, 0)["createdAt"] = "soon" }, 1},
		{"two bad sessions", func(b map[string]any) { delete(sess(b, 0), "sessionId"); sess(b, 1)["haulted"] = 1 }, 2},
		{"haulted missing", func(b map[string]any) { delete(sess(b, 0), "haulted") }, 0},
		{"optional fields absent", func(b map[string]any) {
			for _, k := range []string{"subdomain", "branch", "haultReason", "pullRequestLink", "messageToUser", "todos", "createdAt"} {
				delete(sess(b, 0), k)
			}
		}, 0},
	} {
		h := jobHarness(t, nil)
		h.srv.AddJob(testProject, mintlifytest.JobSpec{ID: "job-2", Ref: "main"})
		h.srv.AddJob(testProject, mintlifytest.JobSpec{ID: "job-3", Ref: "main"})
		h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointListJobs, Mutate: tc.mutate})
		sessions, skipped, err := h.c.ListJobsV1Counting(context.Background(), testProject)
		if err != nil || skipped != tc.skip || len(sessions) != 3-tc.skip {
			t.Errorf("%s: %d sessions, %d skipped, %v; want %d and %d", tc.name, len(sessions), skipped, err, 3-tc.skip, tc.skip)
		}
	}
	// Without haulted, haultReason decides.
	h := jobHarness(t, nil)
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointListJobs, Mutate: func(b map[string]any) {
		delete(sess(b, 0), "haulted")
		sess(b, 0)["haultReason"] = "completed"
	}})
	if s, err := h.c.ListJobsV1(context.Background(), testProject); err != nil || len(s) != 1 || s[0].Status() != client.StatusCompleted {
		t.Errorf("a completed session without haulted: %+v, %v", s, err)
	}
}

func TestDecodeRedactsKey(t *testing.T) {
	// A server that echoes the key into a field must not get it into an
	// error message.
	h := jobHarness(t, nil)
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, Mutate: func(b map[string]any) {
		b["createdAt"] = mintlifytest.DefaultKey
	}})
	_, err := h.c.GetJob(context.Background(), testProject, "job-1")
	if err == nil || strings.Contains(err.Error(), mintlifytest.DefaultKey) || !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("error %v", err)
	}
}
