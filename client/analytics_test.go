package client_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// lastQuery returns the query of the last logged request to endpoint.
func lastQuery(t *testing.T, h *harness, endpoint string) map[string]string {
	t.Helper()
	var out map[string]string
	for _, r := range h.requests() {
		if r.Endpoint == endpoint {
			out = map[string]string{}
			for k, v := range r.Query {
				out[k] = v[0]
			}
		}
	}
	if out == nil {
		t.Fatalf("no %s request logged", endpoint)
	}
	return out
}

// windows are three date ranges ending with testEnd, which differ.
func windows() []client.DateRange {
	end := client.DateOf(testEnd).AddDays(1)
	return []client.DateRange{{From: end.AddDays(-1), To: end}, {From: end.AddDays(-7), To: end}, {From: end.AddDays(-30), To: end}}
}

func TestViewsWalkMatchesFake(t *testing.T) {
	ds, _ := generated(600)
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	var last float64
	for _, r := range windows() {
		totals, rows := clientRows(h.srv.Views(testProject, r.From.Time(), r.To.Time()))
		w, err := client.NewWalk(h.c.PathsPage, client.EndpointViews, testProject, r, client.WalkOptions{PageSize: 250})
		if err != nil {
			t.Fatal(err)
		}
		res, err := w.All(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if res.Totals != totals || !slices.Equal(res.Rows, rows) || res.Pages != pagesFor(len(rows), 250) || res.Skipped != nil {
			t.Errorf("%s: totals %+v (want %+v), %d rows (want %d), %d pages, skipped %v", r, res.Totals, totals, len(res.Rows), len(rows), res.Pages, res.Skipped)
		}
		// Views are additive: the site totals are the sums of the pages.
		var sum client.Counts
		for _, row := range rows {
			sum.Human, sum.AI, sum.Total = sum.Human+row.Human, sum.AI+row.AI, sum.Total+row.Total
		}
		if sum != totals || totals.Total < totals.Human+totals.AI {
			t.Errorf("%s: totals %+v, sum of pages %+v", r, totals, sum)
		}
		if totals.Total == last {
			t.Errorf("%s: the same total as the previous window: windows must differ", r)
		}
		last = totals.Total
	}
	for _, rq := range h.requests() {
		if rq.Endpoint != mintlifytest.EndpointViews || rq.Path != "/v1/analytics/"+testProject+"/views" {
			t.Errorf("request %s to %s", rq.Endpoint, rq.Path)
		}
	}
}

func TestWalkSkippedRowsAcrossPages(t *testing.T) {
	ds, r := generated(500)
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	_, rows := expected(h.srv, testProject, r)
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, BadRow: mintlifytest.RowEmptyPath, BadRowIndex: 1})
	res, err := walkVisitors(context.Background(), h.c, testProject, r, client.WalkOptions{PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	if res.Skipped[client.SkipEmptyPath] != 5 || len(res.Skipped) != 1 || len(res.Rows) != 495 {
		t.Errorf("%d rows, skipped %v; want 495 rows and 5 empty paths", len(res.Rows), res.Skipped)
	}
	for i := range 5 {
		if slices.Contains(res.Rows, rows[i*100+1]) {
			t.Errorf("row %d kept", i*100+1)
		}
	}
	// A page whose only rows are malformed is not "empty with more".
	h.srv.ClearFaults()
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, BadRow: mintlifytest.RowNotObject})
	res, err = walkVisitors(context.Background(), h.c, testProject, r, client.WalkOptions{PageSize: 1, MaxPages: 3})
	if !errors.Is(err, client.ErrTooManyPages) || res != nil {
		t.Errorf("pages of one malformed row: %v, want ErrTooManyPages after 3 pages", err)
	}
}

func TestCallerStatsMatchesFake(t *testing.T) {
	ds, _ := generated(100)
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	var last float64
	for _, r := range windows() {
		want := h.srv.CallerStats(testProject, r.From.Time(), r.To.Time())
		got, err := h.c.CallerStats(context.Background(), testProject, r)
		if err != nil {
			t.Fatal(err)
		}
		if *got != (client.CallerStats{Web: float64(want.Web), API: float64(want.API), Other: float64(want.Other), Total: float64(want.Total)}) {
			t.Errorf("%s: %+v, want %+v", r, got, want)
		}
		if got.Total <= got.Web+got.API+got.Other-1 || got.Total == last {
			t.Errorf("%s: total %v: want at least the sum, and windows that differ", r, got.Total)
		}
		last = got.Total
		if q := lastQuery(t, h, mintlifytest.EndpointCallerStats); len(q) != 2 || q["dateFrom"] != r.From.String() || q["dateTo"] != r.To.String() {
			t.Errorf("query %v", q)
		}
	}
	if n := h.count(mintlifytest.EndpointCallerStats); n != 3 {
		t.Errorf("%d requests for 3 windows, want 3", n)
	}
	cases := []decodeCase{
		{name: "web missing", mutate: func(b map[string]any) { delete(b, "web") }, field: "web", reason: "missing"},
		{name: "total negative", mutate: func(b map[string]any) { b["total"] = num("-2") }, field: "total", reason: "negative count -2"},
		{name: "api string", mutate: func(b map[string]any) { b["api"] = "3" }, field: "api", reason: "wrong type: string, want number"},
		{name: "body array", body: `[1]`, reason: "wrong type: array, want object"},
		{name: "future", mutate: func(b map[string]any) { b["mcp"] = num("4"); b["byModel"] = map[string]any{"x": 1} }},
	}
	for _, tc := range cases {
		checkDecode(t, mintlifytest.EndpointCallerStats, func(h *harness) error {
			_, err := h.c.CallerStats(context.Background(), testProject, client.DateRange{})
			return err
		}, tc)
	}
}

func TestFeedbackByPageMatchesFake(t *testing.T) {
	ds, _ := generated(200)
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	sawMore, sawAll := false, false
	for _, r := range windows() {
		all := h.srv.FeedbackByPage(testProject, r.From.Time(), r.To.Time())
		for _, limit := range []int{5, 100} {
			got, err := h.c.FeedbackByPage(context.Background(), testProject, r, limit)
			if err != nil {
				t.Fatal(err)
			}
			want := all[:min(limit, len(all))]
			if len(got.Rows) != len(want) || got.HasMore != (len(all) > limit) || got.Skipped != nil {
				t.Fatalf("%s limit %d: %d rows, hasMore %v; the fake has %d", r, limit, len(got.Rows), got.HasMore, len(all))
			}
			for i, w := range want {
				if g := got.Rows[i]; g != (client.PageFeedback{Path: w.Path, ThumbsUp: float64(w.ThumbsUp), ThumbsDown: float64(w.ThumbsDown), Code: float64(w.Code), Total: float64(w.Total)}) {
					t.Errorf("%s row %d: %+v, want %+v", r, i, g, w)
				}
			}
			if q := lastQuery(t, h, mintlifytest.EndpointFeedbackByPage); q["limit"] != strconv.Itoa(limit) || q["offset"] != "" || q["cursor"] != "" {
				t.Errorf("query %v", q)
			}
			sawMore = sawMore || (limit == 100 && got.HasMore)
			sawAll = sawAll || (limit == 100 && !got.HasMore)
		}
	}
	if !sawMore || !sawAll {
		t.Errorf("the generated data should have more than 100 pages with feedback in one window and fewer in another (%v, %v)", sawMore, sawAll)
	}
	for _, bad := range []int{-1, 101} {
		if _, err := h.c.FeedbackByPage(context.Background(), testProject, client.DateRange{}, bad); err == nil || !strings.Contains(err.Error(), "1..100") {
			t.Errorf("limit %d: %v", bad, err)
		}
	}
	fb := func(b map[string]any, i int) map[string]any { return b["feedback"].([]any)[i].(map[string]any) }
	cases := []decodeCase{
		{name: "feedback missing", mutate: func(b map[string]any) { delete(b, "feedback") }, field: "feedback", reason: "missing"},
		{name: "hasMore missing", mutate: func(b map[string]any) { delete(b, "hasMore") }, field: "hasMore", reason: "missing"},
		{name: "future", mutate: func(b map[string]any) {
			b["nextCursor"] = "abc"
			fb(b, 0)["sentiment"] = "positive"
			fb(b, 0)["agent"] = num("2")
		}},
	}
	for _, tc := range cases {
		checkDecode(t, mintlifytest.EndpointFeedbackByPage, func(h *harness) error {
			_, err := h.c.FeedbackByPage(context.Background(), testProject, client.DateRange{}, 10)
			return err
		}, tc)
	}
	for _, bad := range []struct {
		kind   mintlifytest.BadRowKind
		reason string
	}{{mintlifytest.RowEmptyPath, client.SkipEmptyPath}, {mintlifytest.RowNegativeCount, client.SkipBadCount}, {mintlifytest.RowMissingCount, client.SkipBadCount}, {mintlifytest.RowNotObject, client.SkipBadRow}} {
		remove := h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointFeedbackByPage, BadRow: bad.kind, BadRowIndex: 2})
		got, err := h.c.FeedbackByPage(context.Background(), testProject, windows()[2], 10)
		remove()
		if err != nil || len(got.Rows) != 9 || got.Skipped[bad.reason] != 1 {
			t.Errorf("bad row %d: %v, %d rows, skipped %v", bad.kind, err, len(got.Rows), got.Skipped)
		}
	}
}

func TestSearchesMatchFake(t *testing.T) {
	ds, _ := generated(100)
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	for _, r := range windows() {
		terms, total := h.srv.Searches(testProject, r.From.Time(), r.To.Time())
		// limit=1 gives the site-wide total in one request.
		one, err := h.c.Searches(context.Background(), testProject, r, 1, "")
		if err != nil {
			t.Fatal(err)
		}
		if one.TotalSearches != float64(total) || len(one.Rows) != 1 || one.NextCursor == nil || one.Rows[0].Query != terms[0].Query {
			t.Errorf("%s limit 1: %+v; the fake has %d searches, top %q", r, one, total, terms[0].Query)
		}
		// Every page, following the cursor, gives every term in order.
		var got []client.SearchTerm
		cursor := ""
		for range 100 {
			p, err := h.c.Searches(context.Background(), testProject, r, 7, cursor)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, p.Rows...)
			if p.NextCursor == nil {
				break
			}
			cursor = *p.NextCursor
		}
		if len(got) != len(terms) {
			t.Fatalf("%s: %d terms over the pages, the fake has %d", r, len(got), len(terms))
		}
		zero := 0
		for i, w := range terms {
			g := got[i]
			if g.Query != w.Query || g.Hits != float64(w.Hits) || g.CTR != w.CTR {
				t.Errorf("%s term %d: %+v, want %+v", r, i, g, w)
			}
			if i > 0 && got[i-1].Hits < g.Hits {
				t.Errorf("%s: not ordered by hits at %d", r, i)
			}
			if g.CTR == 0 {
				zero++
			}
		}
		if zero == 0 {
			t.Errorf("%s: no term without clicks: the data should have content gaps", r)
		}
	}
	for _, bad := range []int{-1, 101} {
		if _, err := h.c.Searches(context.Background(), testProject, client.DateRange{}, bad, ""); err == nil {
			t.Errorf("limit %d accepted", bad)
		}
	}
	// An invalid cursor is refused by the fake with a 400.
	_, err := h.c.Searches(context.Background(), testProject, client.DateRange{}, 5, "not-a-cursor")
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest || !strings.Contains(err.Error(), "cursor") {
		t.Errorf("bad cursor: %v", err)
	}
	sr := func(b map[string]any, i int) map[string]any { return b["searches"].([]any)[i].(map[string]any) }
	cases := []decodeCase{
		{name: "searches missing", mutate: func(b map[string]any) { delete(b, "searches") }, field: "searches", reason: "missing"},
		{name: "totalSearches missing", mutate: func(b map[string]any) { delete(b, "totalSearches") }, field: "totalSearches", reason: "missing"},
		{name: "totalSearches negative", mutate: func(b map[string]any) { b["totalSearches"] = num("-1") }, field: "totalSearches", reason: "negative"},
		{name: "nextCursor number", mutate: func(b map[string]any) { b["nextCursor"] = num("3") }, field: "nextCursor", reason: "wrong type: number, want string or null"},
		{name: "nextCursor absent", mutate: func(b map[string]any) { delete(b, "nextCursor") }},
		{name: "future", mutate: func(b map[string]any) {
			b["totalUniqueSearchers"] = num("5")
			sr(b, 0)["intent"] = "navigational"
			sr(b, 0)["lastSearchedAt"] = "last tuesday"
		}},
	}
	for _, tc := range cases {
		checkDecode(t, mintlifytest.EndpointSearches, func(h *harness) error {
			_, err := h.c.Searches(context.Background(), testProject, client.DateRange{}, 10, "")
			return err
		}, tc)
	}
	for _, bad := range []struct {
		kind   mintlifytest.BadRowKind
		reason string
	}{{mintlifytest.RowEmptyPath, client.SkipEmptyTerm}, {mintlifytest.RowNegativeCount, client.SkipBadCount}, {mintlifytest.RowStringCount, client.SkipBadCount}, {mintlifytest.RowNotObject, client.SkipBadRow}} {
		remove := h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointSearches, BadRow: bad.kind})
		got, err := h.c.Searches(context.Background(), testProject, windows()[2], 10, "")
		remove()
		if err != nil || len(got.Rows) != 9 || got.Skipped[bad.reason] != 1 {
			t.Errorf("bad row %d: %v, %d rows, skipped %v", bad.kind, err, len(got.Rows), got.Skipped)
		}
	}
}

func TestWalkConversationsMatchesFake(t *testing.T) {
	end := testEnd
	ds := mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 3, Paths: 50, Days: 30, End: end, TurnsPerDay: 120})
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	for _, r := range windows() {
		want := h.srv.Conversations(testProject, r.From.Time(), r.To.Time())
		turns := 0
		for _, n := range want {
			turns += n
		}
		h.reset()
		res, err := h.c.WalkConversations(context.Background(), testProject, r, 100)
		if err != nil {
			t.Fatal(err)
		}
		pages := max(1, (turns+client.MaxConversationsPageSize-1)/client.MaxConversationsPageSize)
		if res.Turns != turns || res.Pages != pages || len(res.Counts) != len(want) || res.Skipped != nil {
			t.Errorf("%s: %d turns in %d pages (want %d in %d), counts %v", r, res.Turns, res.Pages, turns, pages, res.Counts)
		}
		for k, n := range want {
			if res.Counts[client.ConversationKey{ResponseType: k.ResponseType, Resolution: k.Resolution}] != n {
				t.Errorf("%s: %+v = %d, want %d", r, k, res.Counts[client.ConversationKey(k)], n)
			}
		}
		if n := h.count(mintlifytest.EndpointConversations); n != pages {
			t.Errorf("%s: %d requests, want %d", r, n, pages)
		}
		if q := lastQuery(t, h, mintlifytest.EndpointConversations); q["limit"] != strconv.Itoa(client.MaxConversationsPageSize) {
			t.Errorf("query %v", q)
		}
	}
	// Both response types (one of them also absent) and both resolutions
	// (and null) are present over 30 days.
	all := h.srv.Conversations(testProject, time.Time{}, time.Time{})
	for _, k := range []mintlifytest.ConversationKey{
		{ResponseType: "answer", Resolution: "answered"}, {ResponseType: "answer", Resolution: "unanswered"},
		{ResponseType: "clarifying_question", Resolution: "answered"}, {ResponseType: "answer", Resolution: "unknown"},
	} {
		if all[k] == 0 {
			t.Errorf("no turn %+v in the generated data", k)
		}
	}
}

func TestWalkConversationsGuards(t *testing.T) {
	ds := mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 3, Paths: 20, Days: 5, End: testEnd, TurnsPerDay: 1000})
	r := windows()[1]
	for _, tc := range []struct {
		name     string
		fault    mintlifytest.Fault
		maxPages int
		wantIs   error
		wantText string
		requests int
	}{
		{"too many pages", mintlifytest.Fault{}, 4, client.ErrTooManyPages, "--conversations.max-pages", 4},
		{"repeated cursor", mintlifytest.Fault{RepeatCursor: true}, 0, nil, "repeats an earlier one", 2},
		{"malformed page", mintlifytest.Fault{Mutate: func(b map[string]any) { delete(b, "hasMore") }}, 0, nil, "hasMore: missing", 1},
		{"bad option", mintlifytest.Fault{}, -1, nil, "negative MaxPages -1", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
			tc.fault.Endpoint = mintlifytest.EndpointConversations
			h.srv.AddFault(tc.fault)
			res, err := h.c.WalkConversations(context.Background(), testProject, r, tc.maxPages)
			if res != nil || err == nil || (tc.wantIs != nil && !errors.Is(err, tc.wantIs)) || !strings.Contains(err.Error(), tc.wantText) {
				t.Fatalf("result %v, error %v; want %v containing %q", res, err, tc.wantIs, tc.wantText)
			}
			if !strings.Contains(err.Error(), testProject) {
				t.Errorf("error %q does not name the project", err)
			}
			if n := h.count(mintlifytest.EndpointConversations); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
		})
	}
}

func TestConversationsSkipAndFuture(t *testing.T) {
	ds := mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 3, Paths: 20, Days: 5, End: testEnd, TurnsPerDay: 20})
	r := windows()[1]
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	want, err := h.c.WalkConversations(context.Background(), testProject, r, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Fields and enum values from the future: kept, never a failure.
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointConversations, Times: 1, Mutate: func(b map[string]any) {
		b["totalTurns"] = num("99")
		rows := b["conversations"].([]any)
		rows[0].(map[string]any)["responseType"] = "handoff"
		rows[1].(map[string]any)["resolutionStatus"] = "escalated"
		rows[2].(map[string]any)["feedback"] = map[string]any{"thumbs": "up"}
		rows[3].(map[string]any)["responseType"] = nil
	}})
	got, err := h.c.WalkConversations(context.Background(), testProject, r, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Turns != want.Turns || got.Counts[client.ConversationKey{ResponseType: "handoff", Resolution: "answered"}]+
		got.Counts[client.ConversationKey{ResponseType: "handoff", Resolution: "unanswered"}]+
		got.Counts[client.ConversationKey{ResponseType: "handoff", Resolution: "unknown"}] != 1 {
		t.Errorf("future values: %v", got.Counts)
	}
	found := false
	for k := range got.Counts {
		found = found || k.Resolution == "escalated"
	}
	if !found {
		t.Errorf("unknown resolution not kept: %v", got.Counts)
	}
	// Malformed turns are skipped and counted.
	for _, kind := range []mintlifytest.BadRowKind{mintlifytest.RowNotObject, mintlifytest.RowEmptyPath, mintlifytest.RowNegativeCount} {
		remove := h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointConversations, BadRow: kind, BadRowIndex: 4})
		got, err := h.c.WalkConversations(context.Background(), testProject, r, 0)
		remove()
		if err != nil || got.Turns != want.Turns-1 || got.Skipped[client.SkipBadRow] != 1 {
			t.Errorf("bad row %d: %v, %d turns (want %d), skipped %v", kind, err, got.Turns, want.Turns-1, got.Skipped)
		}
	}
}

// TestFutureFieldsEveryEndpoint: a page full of fields and enum values
// from the future decodes as the page without them.
func TestFutureFieldsEveryEndpoint(t *testing.T) {
	ds, r := generated(60)
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	plain := readAll(t, h, r)
	future := func(b map[string]any) {
		b["apiVersion"] = "2027-01-01"
		b["meta"] = map[string]any{"sampled": true, "rows": []any{num("1"), "x", nil}}
		for _, arr := range []string{"visitors", "views", "feedback", "searches", "conversations"} {
			rows, ok := b[arr].([]any)
			if !ok {
				continue
			}
			for _, row := range rows {
				m := row.(map[string]any)
				m["bots"] = num("3")
				m["country"] = map[string]any{"code": "NZ"}
				m["tags"] = []any{"a", num("2.5")}
			}
		}
		if _, ok := b["web"]; ok {
			b["mcp"] = num("12")
		}
		if tot, ok := b["totals"].(map[string]any); ok {
			tot["bots"] = num("1")
		}
	}
	h.srv.AddFault(mintlifytest.Fault{Offset: mintlifytest.AnyOffset, Mutate: future})
	got := readAll(t, h, r)
	if !reflect.DeepEqual(got, plain) {
		t.Errorf("a page with fields from the future decodes differently:\n%+v\n%+v", got, plain)
	}
}

// TestTotalsOutsideBounds: site totals that break max(human, ai) <= total
// <= human+ai are passed on as they are (the inequality is the fake's
// assumption, not the spec's).
func TestTotalsOutsideBounds(t *testing.T) {
	ds, r := generated(10)
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	odd := mintlifytest.Counts{Human: 5, AI: 7, Total: 30}
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, Totals: &odd})
	res, err := walkVisitors(context.Background(), h.c, testProject, r, client.WalkOptions{})
	if err != nil || res.Totals != (client.Counts{Human: 5, AI: 7, Total: 30}) {
		t.Errorf("%v, totals %+v", err, res)
	}
}

// TestRateLimitSharedByEveryAnalyticsEndpoint: the fake's one limit counts
// every analytics endpoint, and a 429 may come without Retry-After.
func TestRateLimitSharedByEveryAnalyticsEndpoint(t *testing.T) {
	ds, r := generated(10)
	for _, withRA := range []bool{true, false} {
		opts := []mintlifytest.Option{mintlifytest.WithProject(testProject, ds), mintlifytest.WithRateLimit(6)}
		if !withRA {
			opts = append(opts, mintlifytest.WithoutRetryAfter())
		}
		h := newHarness(t, nil, opts...)
		readAll(t, h, r) // six requests, one per endpoint
		for _, call := range []func() error{
			func() error {
				_, err := h.c.PathsPage(context.Background(), client.EndpointViews, testProject, client.PathsQuery{})
				return err
			},
			func() error { _, err := h.c.CallerStats(context.Background(), testProject, r); return err },
			func() error { _, err := h.c.Searches(context.Background(), testProject, r, 1, ""); return err },
		} {
			err := call()
			ra, has, limited := client.IsRateLimited(err)
			if !limited || has != withRA || (withRA && ra <= 0) {
				t.Errorf("Retry-After sent %v: error %v (retry after %v, %v)", withRA, err, ra, has)
			}
		}
	}
}

// TestPaginationAsTheSchemaAllows: what the vendor's schema allows is
// read, not refused. A conversations page that says hasMore with a null
// nextCursor ends the walk with what was read (there is no way to ask for
// more); an empty conversations page with a cursor is followed; a
// totalSearches that is not an integer (the schema says integer) is
// refused, 12.0 is not.
func TestPaginationAsTheSchemaAllows(t *testing.T) {
	ds := mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 3, Paths: 20, Days: 5, End: testEnd, TurnsPerDay: 700})
	r := windows()[1]
	const size = client.MaxConversationsPageSize
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	all, err := h.c.WalkConversations(context.Background(), testProject, r, 0)
	if err != nil || all.Pages < 3 {
		t.Fatalf("the walk without faults: %+v, %v", all, err)
	}

	h = newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointConversations, Times: 1, NoNextCursor: true})
	res, err := h.c.WalkConversations(context.Background(), testProject, r, 0)
	if err != nil || res.Turns != size || res.Pages != 1 {
		t.Errorf("hasMore with a null nextCursor: %+v, %v; want the first page's turns alone", res, err)
	}

	h = newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointConversations, Times: 1, EmptyPage: true})
	res, err = h.c.WalkConversations(context.Background(), testProject, r, 0)
	if err != nil || res.Turns != all.Turns-size || res.Pages != all.Pages {
		t.Errorf("an empty first page with a cursor: %+v, %v; want %d turns in %d pages", res, err, all.Turns-size, all.Pages)
	}

	for total, ok := range map[string]bool{"2.5": false, "12.0": true, "1e3": true} {
		h = newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
		h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointSearches, Mutate: func(b map[string]any) { b["totalSearches"] = num(total) }})
		page, err := h.c.Searches(context.Background(), testProject, r, 10, "")
		var de *client.DecodeError
		switch {
		case ok && err != nil:
			t.Errorf("totalSearches %s: %v", total, err)
		case !ok && (!errors.As(err, &de) || de.Field != "totalSearches"):
			t.Errorf("totalSearches %s: %+v, %v; want a DecodeError naming totalSearches", total, page, err)
		}
	}
}
