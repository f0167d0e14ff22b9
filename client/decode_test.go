package client_test

import (
	"context"
	"encoding/json"
	"errors"
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
	if string(de.Endpoint) != endpoint || de.Field != tc.field || !strings.Contains(de.Reason, tc.reason) {
		t.Errorf("%s: DecodeError{%q, %q, %q}, want field %q and reason containing %q", tc.name, de.Endpoint, de.Field, de.Reason, tc.field, tc.reason)
	}
	if want := ": " + tc.field + ": "; tc.field != "" && !strings.Contains(err.Error(), want) {
		t.Errorf("%s: Error() %q does not name the field", tc.name, err)
	}
	if got := h.codes(); !slices.Equal(got, []string{"200"}) {
		t.Errorf("%s: attempts %v: a malformed answer must not be retried", tc.name, got)
	}
}

func TestDecodeVisitors(t *testing.T) {
	cases := []decodeCase{
		{name: "totals string", mutate: func(b map[string]any) { b["totals"].(map[string]any)["human"] = "12" }, field: "totals.human", reason: "wrong type: string, want integer"},
		{name: "totals negative", mutate: func(b map[string]any) { b["totals"].(map[string]any)["total"] = num("-3") }, field: "totals.total", reason: "negative count -3"},
		{name: "totals missing", mutate: func(b map[string]any) { delete(b, "totals") }, field: "totals", reason: "missing"},
		{name: "totals null", mutate: func(b map[string]any) { b["totals"] = nil }, field: "totals", reason: "wrong type: null, want object"},
		{name: "totals.ai missing", mutate: func(b map[string]any) { delete(b["totals"].(map[string]any), "ai") }, field: "totals.ai", reason: "missing"},
		{name: "totals.ai null", mutate: func(b map[string]any) { b["totals"].(map[string]any)["ai"] = nil }, field: "totals.ai", reason: "wrong type: null"},
		{name: "visitors missing", mutate: func(b map[string]any) { delete(b, "visitors") }, field: "visitors", reason: "missing"},
		{name: "visitors null", mutate: func(b map[string]any) { b["visitors"] = nil }, field: "visitors", reason: "wrong type: null, want array"},
		{name: "visitors object", mutate: func(b map[string]any) { b["visitors"] = map[string]any{} }, field: "visitors", reason: "wrong type: object, want array"},
		{name: "hasMore missing", mutate: func(b map[string]any) { delete(b, "hasMore") }, field: "hasMore", reason: "missing"},
		{name: "hasMore string", mutate: func(b map[string]any) { b["hasMore"] = "true" }, field: "hasMore", reason: "wrong type: string, want boolean"},
		{name: "hasMore null", mutate: func(b map[string]any) { b["hasMore"] = nil }, field: "hasMore", reason: "wrong type: null, want boolean"},
		{name: "negative", mutate: func(b map[string]any) { row(b, 3)["human"] = num("-1") }, field: "visitors[3].human", reason: "negative count -1"},
		{name: "fractional", mutate: func(b map[string]any) { row(b, 1)["total"] = num("1.5") }, field: "visitors[1].total", reason: "not an integer: 1.5"},
		{name: "whole but fractional form", mutate: func(b map[string]any) { row(b, 0)["ai"] = num("12.0") }, field: "visitors[0].ai", reason: "not an integer: 12.0"},
		{name: "exponent", mutate: func(b map[string]any) { row(b, 0)["ai"] = num("1e3") }, field: "visitors[0].ai", reason: "not an integer: 1e3"},
		{name: "huge", mutate: func(b map[string]any) { row(b, 0)["ai"] = num("99999999999999999999") }, field: "visitors[0].ai", reason: "out of range"},
		{name: "string count", mutate: func(b map[string]any) { row(b, 2)["total"] = "7" }, field: "visitors[2].total", reason: "wrong type: string, want integer"},
		{name: "bool count", mutate: func(b map[string]any) { row(b, 2)["total"] = true }, field: "visitors[2].total", reason: "wrong type: boolean, want integer"},
		{name: "missing count", mutate: func(b map[string]any) { delete(row(b, 4), "human") }, field: "visitors[4].human", reason: "missing"},
		{name: "missing path", mutate: func(b map[string]any) { delete(row(b, 5), "path") }, field: "visitors[5].path", reason: "missing"},
		{name: "empty path", mutate: func(b map[string]any) { row(b, 5)["path"] = "" }, field: "visitors[5].path", reason: "empty"},
		{name: "null path", mutate: func(b map[string]any) { row(b, 5)["path"] = nil }, field: "visitors[5].path", reason: "wrong type: null, want string"},
		{name: "number path", mutate: func(b map[string]any) { row(b, 5)["path"] = num("5") }, field: "visitors[5].path", reason: "wrong type: number, want string"},
		{name: "row not an object", mutate: func(b map[string]any) { b["visitors"].([]any)[2] = "x" }, field: "visitors[2]", reason: "wrong type: string, want object"},
		{name: "body array", body: `[]`, field: "", reason: "wrong type: array, want object"},
		{name: "malformed", body: `{"totals":`, field: "", reason: "malformed JSON"},
		{name: "trailing data", body: `{"totals":{"human":1,"ai":1,"total":1},"visitors":[],"hasMore":false}{}`, field: "", reason: "malformed JSON"},
		{name: "empty body", body: ` `, field: "", reason: "malformed JSON"},
		{name: "unknown fields ignored", mutate: func(b map[string]any) { b["extra"] = 1; row(b, 0)["views"] = "x" }},
		{name: "minus zero", mutate: func(b map[string]any) { row(b, 0)["ai"] = num("-0") }},
	}
	for _, tc := range cases {
		checkDecode(t, mintlifytest.EndpointVisitors, func(h *harness) error {
			_, err := h.c.Visitors(context.Background(), testProject, client.VisitorsQuery{Limit: 10})
			return err
		}, tc)
	}
}

func TestDecodeKeepsPathBytes(t *testing.T) {
	h := jobHarness(t, nil)
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, Mutate: func(b map[string]any) {
		row(b, 0)["path"] = json.RawMessage("\"/caf\xe9\"")                              // invalid UTF-8, kept
		row(b, 1)["path"] = json.RawMessage(`"/a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00"`) // every escape
		row(b, 2)["path"] = json.RawMessage(`"/lone\ud800x\udc00y\ud83dz"`)              // broken surrogates
		row(b, 3)["path"] = json.RawMessage(`"/\u0041\u00E9\u20aC"`)                     // hex case
	}})
	page, err := h.c.Visitors(context.Background(), testProject, client.VisitorsQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/caf\xe9", "/a\"b\\c/d\b\f\n\r\té😀", "/lone\uFFFDx\uFFFDy\uFFFDz", "/Aé€"}
	for i, w := range want {
		if got := page.Visitors[i].Path; got != w {
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

func TestDecodeSessions(t *testing.T) {
	sess := func(b map[string]any, i int) map[string]any { return b["allSessions"].([]any)[i].(map[string]any) }
	cases := []decodeCase{
		{name: "allSessions missing", mutate: func(b map[string]any) { delete(b, "allSessions") }, field: "allSessions", reason: "missing"},
		{name: "allSessions null", mutate: func(b map[string]any) { b["allSessions"] = nil }, field: "allSessions", reason: "wrong type: null, want array"},
		{name: "session number", mutate: func(b map[string]any) { b["allSessions"].([]any)[0] = num("1") }, field: "allSessions[0]", reason: "wrong type: number, want object"},
		{name: "sessionId missing", mutate: func(b map[string]any) { delete(sess(b, 0), "sessionId") }, field: "allSessions[0].sessionId", reason: "missing"},
		{name: "haulted missing", mutate: func(b map[string]any) { delete(sess(b, 0), "haulted") }, field: "allSessions[0].haulted", reason: "missing"},
		{name: "haulted string", mutate: func(b map[string]any) { sess(b, 0)["haulted"] = "no" }, field: "allSessions[0].haulted", reason: "wrong type: string, want boolean"},
		{name: "branch number", mutate: func(b map[string]any) { sess(b, 0)["branch"] = num("1") }, field: "allSessions[0].branch", reason: "wrong type"},
		{name: "pullRequestLink bool", mutate: func(b map[string]any) { sess(b, 0)["pullRequestLink"] = true }, field: "allSessions[0].pullRequestLink", reason: "wrong type"},
		{name: "createdAt bad", mutate: func(b map[string]any) { sess(b, 0)["createdAt"] = "soon" }, field: "allSessions[0].createdAt", reason: "invalid date-time"},
		{name: "optional fields absent", mutate: func(b map[string]any) {
			for _, k := range []string{"subdomain", "branch", "haultReason", "pullRequestLink", "messageToUser", "todos", "createdAt"} {
				delete(sess(b, 0), k)
			}
		}},
	}
	for _, tc := range cases {
		checkDecode(t, mintlifytest.EndpointListJobs, func(h *harness) error { return opListJobs.run(h, context.Background()) }, tc)
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
