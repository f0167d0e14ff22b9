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

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// visitorOffsets returns the offsets of the logged visitors requests in the
// order they were answered, checking the limit of each.
func visitorOffsets(t *testing.T, h *harness, limit int) []int {
	t.Helper()
	var out []int
	for _, r := range h.requests() {
		if r.Endpoint != mintlifytest.EndpointVisitors {
			continue
		}
		if got := r.Query.Get("limit"); got != strconv.Itoa(limit) {
			t.Errorf("request with limit=%q, want %d", got, limit)
		}
		off, err := strconv.Atoi(r.Query.Get("offset"))
		if err != nil {
			t.Fatalf("request without a numeric offset: %q", r.Query.Get("offset"))
		}
		out = append(out, off)
	}
	return out
}

// wantOffsets is 0, limit, 2*limit, ... for n pages.
func wantOffsets(pages, limit int) []int {
	out := make([]int, pages)
	for i := range out {
		out[i] = i * limit
	}
	return out
}

func pagesFor(rows, limit int) int { return max(1, (rows+limit-1)/limit) }

func TestWalkVisitorsPagination(t *testing.T) {
	type tc struct{ rows, limit int }
	var cases []tc
	for _, n := range []int{0, 1, 249, 250, 251, 500, 1234} {
		cases = append(cases, tc{n, 250})
	}
	cases = append(cases, tc{1234, 100}, tc{7, 1}, tc{50, 50}, tc{51, 50}, tc{1234, 0})
	for _, c := range cases {
		t.Run(strconv.Itoa(c.rows)+"/"+strconv.Itoa(c.limit), func(t *testing.T) {
			ds, r := generated(c.rows)
			h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
			wantTotals, wantRows := expected(h.srv, testProject, r)
			if len(wantRows) != c.rows {
				t.Fatalf("fake has %d rows, want %d", len(wantRows), c.rows)
			}
			limit := c.limit
			if limit == 0 {
				limit = client.MaxPageSize
			}
			pages := pagesFor(c.rows, limit)

			// Sequential.
			res, err := walkVisitors(context.Background(), h.c, testProject, r, client.WalkOptions{PageSize: c.limit})
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, res, wantTotals, wantRows, pages)
			if got := visitorOffsets(t, h, limit); !slices.Equal(got, wantOffsets(pages, limit)) {
				t.Errorf("offsets %v, want %v", got, wantOffsets(pages, limit))
			}
		})
	}
}

func checkResult(t *testing.T, res *client.PathsResult, totals client.Counts, rows []client.PathCounts, pages int) {
	t.Helper()
	if res.Totals != totals {
		t.Errorf("Totals %+v, want %+v", res.Totals, totals)
	}
	if len(res.Rows) != len(rows) {
		t.Fatalf("%d rows, want %d", len(res.Rows), len(rows))
	}
	for i := range rows {
		if res.Rows[i] != rows[i] {
			t.Fatalf("row %d = %+v, want %+v", i, res.Rows[i], rows[i])
		}
	}
	if res.Pages != pages {
		t.Errorf("Pages %d, want %d", res.Pages, pages)
	}
	if res.Duplicates != 0 {
		t.Errorf("Duplicates %d, want 0", res.Duplicates)
	}
}

func TestWalkVisitorsGuards(t *testing.T) {
	ds, r := generated(1000)
	for _, tc := range []struct {
		name      string
		fault     mintlifytest.Fault
		opts      client.WalkOptions
		wantIs    error
		wantInErr string
		wantReqs  int
	}{
		{
			name:      "hasMore forever",
			fault:     mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, HasMoreForever: true},
			opts:      client.WalkOptions{PageSize: 100, MaxPages: 5},
			wantIs:    client.ErrTooManyPages,
			wantInErr: "after 5 pages",
			wantReqs:  5,
		},
		{
			name:      "empty first page with more forever",
			fault:     mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, EmptyPage: true, HasMoreForever: true},
			opts:      client.WalkOptions{PageSize: 100, MaxPages: 5},
			wantIs:    client.ErrEmptyPages,
			wantInErr: "3 empty pages in a row",
			wantReqs:  client.MaxEmptyPages,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
			h.srv.AddFault(tc.fault)
			res, err := walkVisitors(context.Background(), h.c, testProject, r, tc.opts)
			if res != nil {
				t.Errorf("got a result with the error")
			}
			if !errors.Is(err, tc.wantIs) {
				t.Fatalf("error %v, want %v", err, tc.wantIs)
			}
			if !strings.Contains(err.Error(), tc.wantInErr) || !strings.Contains(err.Error(), testProject) {
				t.Errorf("error %q does not contain %q and the project", err, tc.wantInErr)
			}
			if got := h.count(mintlifytest.EndpointVisitors); got != tc.wantReqs {
				t.Errorf("%d requests, want %d", got, tc.wantReqs)
			}
		})
	}
}

func TestWalkVisitorsDuplicates(t *testing.T) {
	ds, r := generated(300)
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	totals, rows := expected(h.srv, testProject, r)
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, DuplicateRows: true})
	res, err := walkVisitors(context.Background(), h.c, testProject, r, client.WalkOptions{PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	if res.Duplicates != 2 {
		t.Errorf("Duplicates %d, want 2 (one per page after the first)", res.Duplicates)
	}
	res.Duplicates = 0
	checkResult(t, res, totals, rows, 3)
}

func TestWalkVisitorsAllOrNothing(t *testing.T) {
	ds, r := generated(600)
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: 200, Status: http.StatusBadRequest})
	res, err := walkVisitors(context.Background(), h.c, testProject, r, client.WalkOptions{PageSize: 100})
	if res != nil {
		t.Errorf("partial result returned")
	}
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 400 {
		t.Fatalf("error %v, want an HTTP 400 APIError", err)
	}
	if !strings.Contains(err.Error(), "page at offset 200") {
		t.Errorf("error %q does not name the offset", err)
	}
	if got := visitorOffsets(t, h, 100); !slices.Equal(got, []int{0, 100, 200}) {
		t.Errorf("offsets %v: the walk went on after the failed page", got)
	}
}

func TestWalkVisitorsRefusesBadOptions(t *testing.T) {
	ds, r := generated(10)
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	for _, o := range []client.WalkOptions{
		{PageSize: -1}, {PageSize: 251}, {PageSize: 1000},
		{MaxPages: -1},
	} {
		if _, err := walkVisitors(context.Background(), h.c, testProject, r, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	for _, p := range []string{"", ".", ".."} {
		if _, err := walkVisitors(context.Background(), h.c, p, r, client.WalkOptions{}); err == nil {
			t.Errorf("project %q accepted", p)
		}
	}
	if n := len(h.requests()); n != 0 {
		t.Errorf("%d requests sent for refused walks", n)
	}
}

func TestWalkVisitorsCancelledContext(t *testing.T) {
	ds, r := generated(600)
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := walkVisitors(ctx, h.c, testProject, r, client.WalkOptions{PageSize: 100}); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if n := len(h.requests()); n != 0 {
		t.Errorf("%d requests sent with a cancelled context", n)
	}
}

func TestVisitorsQuery(t *testing.T) {
	ds, r := generated(20)
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	totals, rows := expected(h.srv, testProject, r)

	page, err := h.c.PathsPage(context.Background(), client.EndpointVisitors, testProject, client.PathsQuery{Range: r, Limit: 5, Offset: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := &client.PathsPage{Totals: totals, Rows: rows[10:15], HasMore: true}
	if !reflect.DeepEqual(page, want) {
		t.Errorf("page %+v, want %+v", page, want)
	}
	reqs := h.requests()
	q := reqs[len(reqs)-1].Query
	wantQ := map[string]string{"dateFrom": r.From.String(), "dateTo": r.To.String(), "limit": "5", "offset": "10"}
	for k, v := range wantQ {
		if q.Get(k) != v {
			t.Errorf("query %s=%q, want %q", k, q.Get(k), v)
		}
	}
	if len(q) != len(wantQ) {
		t.Errorf("query %v has extra parameters", q)
	}

	// A zero query sends only offset=0: the API's defaults apply.
	page, err = h.c.PathsPage(context.Background(), client.EndpointVisitors, testProject, client.PathsQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Rows) != 20 || page.HasMore {
		t.Errorf("zero query: %d rows, hasMore %v", len(page.Rows), page.HasMore)
	}
	reqs = h.requests()
	if q := reqs[len(reqs)-1].Query; len(q) != 1 || q.Get("offset") != "0" {
		t.Errorf("zero query sent %v, want offset=0 only", q)
	}

	// Half-open ranges send only the bound that is set.
	for _, tc := range []struct {
		r          client.DateRange
		from, to   string
		wantAbsent string
	}{
		{client.DateRange{From: r.From}, r.From.String(), "", "dateTo"},
		{client.DateRange{To: r.To}, "", r.To.String(), "dateFrom"},
	} {
		if _, err := h.c.PathsPage(context.Background(), client.EndpointVisitors, testProject, client.PathsQuery{Range: tc.r}); err != nil {
			t.Fatal(err)
		}
		reqs := h.requests()
		q := reqs[len(reqs)-1].Query
		if q.Get("dateFrom") != tc.from || q.Get("dateTo") != tc.to || q.Has(tc.wantAbsent) {
			t.Errorf("range %v sent %v", tc.r, q)
		}
	}

	h.reset()
	for _, bad := range []client.PathsQuery{{Limit: -1}, {Limit: 251}, {Offset: -1}} {
		if _, err := h.c.PathsPage(context.Background(), client.EndpointVisitors, testProject, bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if n := len(h.requests()); n != 0 {
		t.Errorf("%d requests sent for refused queries", n)
	}
}

func TestPathEscaping(t *testing.T) {
	const project = "team a/docs?x=1#frag"
	h := newHarness(t, nil, mintlifytest.WithProject(project, mintlifytest.NewDataset()))
	if _, err := h.c.PathsPage(context.Background(), client.EndpointVisitors, project, client.PathsQuery{}); err != nil {
		t.Fatal(err)
	}
	h.srv.AddJob(project, mintlifytest.JobSpec{ID: "job/1 ?"})
	job, err := h.c.GetJob(context.Background(), project, "job/1 ?")
	if err != nil {
		t.Fatal(err)
	}
	if job.ID != "job/1 ?" {
		t.Errorf("job id %q", job.ID)
	}
	for _, r := range h.requests() {
		if r.Project != project {
			t.Errorf("fake saw project %q, want %q", r.Project, project)
		}
	}
}

// TestWalkFollowsEmptyPagesWithMore: a page without rows that says
// hasMore (the first one too) is followed by the next, offset + limit, as
// the API's pagination rule says; the walk ends with the first page that
// has no more, sequentially or in parallel.
func TestWalkFollowsEmptyPagesWithMore(t *testing.T) {
	ds, r := generated(250)
	for _, tc := range []struct {
		name   string
		offset int
		opts   client.WalkOptions
		rows   int
	}{
		{"empty first page", 0, client.WalkOptions{PageSize: 100}, 150},
		{"empty middle page", 100, client.WalkOptions{PageSize: 100}, 150},
	} {
		h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
		h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: tc.offset, EmptyPage: true, HasMoreForever: true})
		res, err := walkVisitors(context.Background(), h.c, testProject, r, tc.opts)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(res.Rows) != tc.rows || res.Pages != 3 || h.count(mintlifytest.EndpointVisitors) != 3 {
			t.Errorf("%s: %d rows in %d pages, %d requests; want %d rows in 3 pages, 3 requests", tc.name, len(res.Rows), res.Pages, h.count(mintlifytest.EndpointVisitors), tc.rows)
		}
	}
}
