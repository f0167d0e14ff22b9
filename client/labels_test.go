package client_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// TestLabelValuesCapped: strings of an answer that become label values (a
// path of visitors, views or feedback, a search term, a job's status,
// model, repository and ref) are cut to client.MaxLabelBytes on a
// character boundary, ending with "…"; shorter ones are kept as sent.
func TestLabelValuesCapped(t *testing.T) {
	// 10,000 characters with a multi-byte one across the cut.
	long := "/" + strings.Repeat("a", client.MaxLabelBytes-4) + strings.Repeat("é", 5000)
	check := func(what, got string) {
		t.Helper()
		if len(got) > client.MaxLabelBytes || !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) {
			t.Errorf("%s: %d bytes, valid UTF-8 %t, ending %q; want at most %d, cut with …", what, len(got), utf8.ValidString(got), got[max(0, len(got)-8):], client.MaxLabelBytes)
		}
	}
	ds, r := generated(30)
	h := newHarness(t, nil, mintlifytest.WithProject(testProject, ds))
	h.srv.AddJob(testProject, mintlifytest.JobSpec{ID: "job-1", Ref: "main"})
	firstRow := func(array, field string) func(map[string]any) {
		return func(b map[string]any) { b[array].([]any)[0].(map[string]any)[field] = long }
	}
	for _, f := range []mintlifytest.Fault{
		{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, Mutate: firstRow("visitors", "path")},
		{Endpoint: mintlifytest.EndpointViews, Offset: mintlifytest.AnyOffset, Mutate: firstRow("views", "path")},
		{Endpoint: mintlifytest.EndpointFeedbackByPage, Mutate: firstRow("feedback", "path")},
		{Endpoint: mintlifytest.EndpointSearches, Mutate: firstRow("searches", "searchQuery")},
		{Endpoint: mintlifytest.EndpointGetJob, Mutate: func(b map[string]any) {
			b["status"], b["model"], b["source"] = long, long, map[string]any{"repository": long, "ref": long}
		}},
	} {
		h.srv.AddFault(f)
	}
	a := readAll(t, h, r)
	check("visitors path", a.Visitors.Rows[0].Path)
	check("views path", a.Views.Rows[0].Path)
	check("feedback path", a.Feedback.Rows[0].Path)
	check("search term", a.Searches.Rows[0].Query)
	if a.Visitors.Rows[1].Path == "" || len(a.Visitors.Rows[1].Path) > 100 {
		t.Errorf("a short path changed: %q", a.Visitors.Rows[1].Path)
	}
	job, err := h.c.GetJob(context.Background(), testProject, "job-1")
	if err != nil {
		t.Fatal(err)
	}
	check("job status", string(job.Status))
	check("job model", job.Model)
	check("job repository", job.Source.Repository)
	check("job ref", *job.Source.Ref)
}
