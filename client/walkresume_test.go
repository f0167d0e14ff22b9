package client_test

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// TestResumeWalk: a walk stopped after two of five pages, its progress
// written as JSON and read back (a restart), resumes at the third page's
// offset and ends with the result of a walk never stopped, five requests
// in all.
func TestResumeWalk(t *testing.T) {
	ds, r := generated(1234)
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	ctx := context.Background()
	whole, err := walkVisitors(ctx, h.c, testProject, r, client.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before := len(visitorOffsets(t, h, client.MaxPageSize))

	pw, err := client.NewWalk(h.c.PathsPage, client.EndpointVisitors, testProject, r, client.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := pw.Progress(); ok {
		t.Error("progress before the first page")
	}
	for range 2 {
		if done, err := pw.Step(ctx); err != nil || done {
			t.Fatalf("Step: done %v, %v", done, err)
		}
	}
	pr, ok := pw.Progress()
	if !ok {
		t.Fatal("no progress after two pages")
	}
	b, err := json.Marshal(pr)
	if err != nil {
		t.Fatal(err)
	}
	var back client.WalkProgress
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	resumed, err := client.ResumeWalk(h.c.PathsPage, back, client.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		done, err := resumed.Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
	}
	if got, want := visitorOffsets(t, h, client.MaxPageSize)[before:], wantOffsets(5, client.MaxPageSize); !reflect.DeepEqual(got, want) {
		t.Errorf("offsets %v, want %v", got, want)
	}
	if got := resumed.Result(); !reflect.DeepEqual(got, whole) {
		t.Errorf("resumed walk: %d rows, %d pages, totals %v; want %d rows, %d pages, totals %v",
			len(got.Rows), got.Pages, got.Totals, len(whole.Rows), whole.Pages, whole.Totals)
	}
	if _, ok := resumed.Progress(); ok {
		t.Error("progress of a complete walk")
	}
}

// TestResumeWalkRefusesHostileProgress: progress a walk could not have
// reached (a cache file edited by hand) is refused with an error naming
// what is wrong, and nothing is sent.
func TestResumeWalkRefusesHostileProgress(t *testing.T) {
	ds, r := generated(10)
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	good := client.WalkProgress{Endpoint: client.EndpointViews.String(), Project: testProject, From: r.From.String(), To: r.To.String(),
		PageSize: client.MaxPageSize, Pages: 1, Rows: []client.PathCounts{{Path: "/a", Counts: client.Counts{Total: 1}}}}
	if _, err := client.ResumeWalk(h.c.PathsPage, good, client.WalkOptions{}); err != nil {
		t.Fatalf("a valid progress: %v", err)
	}
	for name, tc := range map[string]struct {
		edit func(*client.WalkProgress)
		want string
	}{
		"no page":         {func(p *client.WalkProgress) { p.Pages = 0 }, "pages read"},
		"huge offset":     {func(p *client.WalkProgress) { p.Pages = math.MaxInt / 2 }, "pages read"},
		"negative offset": {func(p *client.WalkProgress) { p.Pages = -3 }, "pages read"},
		"other page size": {func(p *client.WalkProgress) { p.PageSize = 7 }, "page size"},
		"too many rows": {func(p *client.WalkProgress) {
			p.Rows = make([]client.PathCounts, client.MaxPageSize+1)
			for i := range p.Rows {
				p.Rows[i].Path = "/" + strings.Repeat("x", i)
			}
		}, "rows"},
		"repeated path":    {func(p *client.WalkProgress) { p.Rows = append(p.Rows, p.Rows[0]) }, "twice"},
		"negative count":   {func(p *client.WalkProgress) { p.Rows[0].Human = -1 }, "negative"},
		"NaN total":        {func(p *client.WalkProgress) { p.Totals.Total = math.NaN() }, "finite"},
		"negative dups":    {func(p *client.WalkProgress) { p.Duplicates = -1 }, "duplicates"},
		"range backwards":  {func(p *client.WalkProgress) { p.From, p.To = p.To, p.From }, "ends before"},
		"bad date":         {func(p *client.WalkProgress) { p.From = "yesterday" }, "yesterday"},
		"not a page walk":  {func(p *client.WalkProgress) { p.Endpoint = client.EndpointSearches.String() }, "offset-paged"},
		"empty pages":      {func(p *client.WalkProgress) { p.Empty = client.MaxEmptyPages }, "empty pages"},
		"kept above rows":  {func(p *client.WalkProgress) { p.Kept = 5 }, "kept"},
		"project path":     {func(p *client.WalkProgress) { p.Project = ".." }, "another route"},
		"negative skipped": {func(p *client.WalkProgress) { p.Skipped = client.Skipped{"x": -1} }, "skipped"},
	} {
		t.Run(name, func(t *testing.T) {
			p := good
			p.Rows = append([]client.PathCounts(nil), good.Rows...)
			tc.edit(&p)
			_, err := client.ResumeWalk(h.c.PathsPage, p, client.WalkOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one about %q", err, tc.want)
			}
		})
	}
	if n := len(h.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
