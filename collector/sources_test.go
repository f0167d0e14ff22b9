package collector

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/health"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
)

// sourcesEnv is an engine with the given sources against the fake, on a
// fixed clock.
type sourcesEnv struct {
	srv *mintlifytest.Server
	e   *engine.Engine
}

func newSourcesEnv(t *testing.T, now time.Time, data map[string]*mintlifytest.Dataset, windows []string, o Options, names ...string) *sourcesEnv {
	t.Helper()
	clk := mintlifytest.NewClock(now)
	clock := clk.Now
	opts := []mintlifytest.Option{mintlifytest.WithClock(clock)}
	var projects []string
	for _, p := range []string{"docs", "api"} {
		if d, ok := data[p]; ok {
			opts = append(opts, mintlifytest.WithProject(p, d))
			projects = append(projects, p)
		}
	}
	srv := mintlifytest.NewServer(opts...)
	t.Cleanup(srv.Close)
	b := budget.New(10_000, clock)
	c := apitest.Client(t, srv, client.Config{Now: clock, Hooks: client.Hooks{Allow: b.Allow}})
	if o.PageSize == 0 {
		o.PageSize = 250
	}
	sources, err := Build(names, c, o)
	if err != nil {
		t.Fatal(err)
	}
	var ws []engine.Window
	for _, w := range windows {
		ws = append(ws, windowOf(t, w))
	}
	e, err := engine.New(engine.Config{Sources: sources, Projects: projects, Windows: ws, MinInterval: 15 * time.Minute,
		Budget: b, Status: health.NewStatus(), Now: clock, WaitUntil: clk.WaitUntil})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	e.Start()
	e.Touch()
	settle(t, clk, e)
	if !e.Ready() {
		t.Fatalf("not ready: %+v", e.States())
	}
	for _, st := range e.States() {
		if st.LastError != "" {
			t.Fatalf("%s: %s", st.Unit, st.LastError)
		}
	}
	return &sourcesEnv{srv: srv, e: e}
}

// smallSignals is one project's data for every source on day0 (and one
// view three days before, so that 1d and 7d differ).
func smallSignals() *mintlifytest.Dataset {
	d := mintlifytest.NewDataset()
	d.Set(day0, "/a", 1, 1, 1)
	d.SetViews(day0, "/a", 10, 5, 17)
	d.SetViews(day0, `/b "q"`, 3, 0, 3)
	d.SetViews(day0.AddDate(0, 0, -3), "/a", 1, 1, 2)
	d.SetCallerStats(day0, 7, 2, 1, 12)
	d.SetFeedback(day0, "/a", 3, 1, 0, 5)
	d.SetFeedback(day0, "/b", 0, 2, 1, 3)
	d.SetSearch(day0, "install", 5, 0, "")
	d.SetSearch(day0, "api key", 3, 3, "/a")
	for i, k := range []struct{ rt, res string }{{"answer", "answered"}, {"answer", "answered"}, {"clarifying_question", "unanswered"}, {"", ""}} {
		d.AddTurn(mintlifytest.Turn{Time: day0.Add(time.Duration(-i) * time.Minute), ResponseType: k.rt, Resolution: k.res, Query: "secret question"})
	}
	return d
}

// TestSourcesCollectLiteral: every new source's series for a small site,
// written out in full.
func TestSourcesCollectLiteral(t *testing.T) {
	env := newSourcesEnv(t, day0, map[string]*mintlifytest.Dataset{"docs": smallSignals()}, []string{"1d"},
		Options{SearchesTopTerms: 5, ConversationsMaxPages: 10}, "views", "assistant", "feedback", "searches", "conversations")
	expected := `
# HELP mintlify_assistant_conversations Turns of conversations with the documentation's AI assistant over the window, by response type and resolution.
# TYPE mintlify_assistant_conversations gauge
mintlify_assistant_conversations{project="docs",resolution="answered",response_type="answer",window="1d"} 2
mintlify_assistant_conversations{project="docs",resolution="answered",response_type="clarifying_question",window="1d"} 0
mintlify_assistant_conversations{project="docs",resolution="unanswered",response_type="answer",window="1d"} 0
mintlify_assistant_conversations{project="docs",resolution="unanswered",response_type="clarifying_question",window="1d"} 1
mintlify_assistant_conversations{project="docs",resolution="unknown",response_type="answer",window="1d"} 1
# HELP mintlify_assistant_queries Queries to the documentation's AI assistant over the window, by caller.
# TYPE mintlify_assistant_queries gauge
mintlify_assistant_queries{caller="api",project="docs",window="1d"} 2
mintlify_assistant_queries{caller="other",project="docs",window="1d"} 1
mintlify_assistant_queries{caller="unknown",project="docs",window="1d"} 2
mintlify_assistant_queries{caller="web",project="docs",window="1d"} 7
# HELP mintlify_feedback_pages_truncated 1 when more pages had feedback over the window than the API returns (100), else 0.
# TYPE mintlify_feedback_pages_truncated gauge
mintlify_feedback_pages_truncated{project="docs",window="1d"} 0
# HELP mintlify_page_feedback Feedback entries on one page over the window, by kind.
# TYPE mintlify_page_feedback gauge
mintlify_page_feedback{kind="code",path="/a",project="docs",window="1d"} 0
mintlify_page_feedback{kind="code",path="/b",project="docs",window="1d"} 1
mintlify_page_feedback{kind="other",path="/a",project="docs",window="1d"} 1
mintlify_page_feedback{kind="thumbs_down",path="/a",project="docs",window="1d"} 1
mintlify_page_feedback{kind="thumbs_down",path="/b",project="docs",window="1d"} 2
mintlify_page_feedback{kind="thumbs_up",path="/a",project="docs",window="1d"} 3
mintlify_page_feedback{kind="thumbs_up",path="/b",project="docs",window="1d"} 0
# HELP mintlify_page_views Page view events of one page over the window, by traffic (human, ai, other).
# TYPE mintlify_page_views gauge
mintlify_page_views{path="/a",project="docs",traffic="ai",window="1d"} 5
mintlify_page_views{path="/a",project="docs",traffic="human",window="1d"} 10
mintlify_page_views{path="/a",project="docs",traffic="other",window="1d"} 2
mintlify_page_views{path="/b \"q\"",project="docs",traffic="ai",window="1d"} 0
mintlify_page_views{path="/b \"q\"",project="docs",traffic="human",window="1d"} 3
# HELP mintlify_search_term_click_through_rate Deprecated: use mintlify_search_term_click_through_ratio (same values).
# TYPE mintlify_search_term_click_through_rate gauge
mintlify_search_term_click_through_rate{project="docs",term="api key",window="1d"} 1
mintlify_search_term_click_through_rate{project="docs",term="install",window="1d"} 0
# HELP mintlify_search_term_click_through_ratio Click-through ratio (the API's ctr, 0 to 1) of one of the most searched terms over the window.
# TYPE mintlify_search_term_click_through_ratio gauge
mintlify_search_term_click_through_ratio{project="docs",term="api key",window="1d"} 1
mintlify_search_term_click_through_ratio{project="docs",term="install",window="1d"} 0
# HELP mintlify_search_term_hits Searches for one of the most searched terms over the window.
# TYPE mintlify_search_term_hits gauge
mintlify_search_term_hits{project="docs",term="api key",window="1d"} 3
mintlify_search_term_hits{project="docs",term="install",window="1d"} 5
# HELP mintlify_search_terms_without_clicks Top search terms over the window with no click on any result (ctr 0).
# TYPE mintlify_search_terms_without_clicks gauge
mintlify_search_terms_without_clicks{project="docs",window="1d"} 1
# HELP mintlify_searches Search events on the documentation site over the window.
# TYPE mintlify_searches gauge
mintlify_searches{project="docs",window="1d"} 8
# HELP mintlify_views Site-wide page view events over the window, by traffic (human, ai, other).
# TYPE mintlify_views gauge
mintlify_views{project="docs",traffic="ai",window="1d"} 5
mintlify_views{project="docs",traffic="human",window="1d"} 13
mintlify_views{project="docs",traffic="other",window="1d"} 2
# HELP mintlify_views_paths Distinct paths the views export returned at the last refresh.
# TYPE mintlify_views_paths gauge
mintlify_views_paths{project="docs",window="1d"} 2
# HELP mintlify_views_paths_exported Paths of the views export exported after the path filters and --analytics.max-paths.
# TYPE mintlify_views_paths_exported gauge
mintlify_views_paths_exported{project="docs",window="1d"} 2
`
	if err := testutil.CollectAndCompare(env.e, strings.NewReader(expected)); err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := env.e.Exposition().WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := testutil.CollectAndCompare(env.e, &text); err != nil {
		t.Fatalf("the pre-rendered exposition differs from Collect: %v", err)
	}
	if strings.Contains(text.String(), "secret question") {
		t.Fatal("a conversation's query text was exported")
	}
	if problems, err := testutil.CollectAndLint(env.e); err != nil || len(problems) > 0 {
		t.Fatalf("lint: %v %v", problems, err)
	}
}

// TestSourcesAgainstTheFake: for 2 projects x 3 windows of generated data,
// every new family holds the fake's own answer, and each source sends
// exactly its documented number of requests.
func TestSourcesAgainstTheFake(t *testing.T) {
	data := map[string]*mintlifytest.Dataset{}
	for i, p := range []string{"docs", "api"} {
		data[p] = mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: int64(20 + i), Paths: 600, Days: 40, End: day0,
			SearchTerms: 40, TurnsPerDay: 60})
	}
	windows := []string{"1d", "7d", "30d"}
	env := newSourcesEnv(t, day0, data, windows, Options{SearchesTopTerms: 10, ConversationsMaxPages: 10},
		"views", "assistant", "feedback", "searches", "conversations")
	got := map[string]float64{}
	var text bytes.Buffer
	_ = env.e.Exposition().WriteText(&text)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(&text)
	if err != nil {
		t.Fatal(err)
	}
	for name, mf := range fams {
		for _, m := range mf.GetMetric() {
			got[seriesKey(name, m)] = m.GetGauge().GetValue()
		}
	}
	want := func(v float64, name string, labels ...string) {
		t.Helper()
		labels = slices.Sorted(slices.Values(labels))
		k := name + "{" + strings.Join(labels, ",") + "}"
		if g, ok := got[k]; !ok || math.Abs(g-v) > 1e-9 {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
	perWindow := map[string]int{}
	for _, p := range []string{"docs", "api"} {
		for _, w := range windows {
			r := windowOf(t, w).Range(day0)
			from, to := r.From.Time(), r.To.Time()
			pw := []string{"project=" + p, "window=" + w}
			totals, rows := env.srv.Views(p, from, to)
			want(float64(totals.Human), "mintlify_views", append(pw, "traffic=human")...)
			want(float64(totals.AI), "mintlify_views", append(pw, "traffic=ai")...)
			want(float64(len(rows)), "mintlify_views_paths", pw...)
			for _, row := range rows[:5] {
				want(float64(row.Human), "mintlify_page_views", append(pw, "path="+row.Path, "traffic=human")...)
			}
			perWindow["views"] += 1 + (len(rows)+249)/250 // the totals unit, then the walk
			cs := env.srv.CallerStats(p, from, to)
			want(float64(cs.Web), "mintlify_assistant_queries", append(pw, "caller=web")...)
			want(float64(cs.API), "mintlify_assistant_queries", append(pw, "caller=api")...)
			fb := env.srv.FeedbackByPage(p, from, to)
			for _, row := range fb[:min(len(fb), 100)][:3] {
				want(float64(row.ThumbsDown), "mintlify_page_feedback", append(pw, "kind=thumbs_down", "path="+row.Path)...)
			}
			truncated := 0.0
			if len(fb) > 100 {
				truncated = 1
			}
			want(truncated, "mintlify_feedback_pages_truncated", pw...)
			terms, total := env.srv.Searches(p, from, to)
			want(float64(total), "mintlify_searches", pw...)
			for _, term := range terms[:3] {
				want(float64(term.Hits), "mintlify_search_term_hits", append(pw, "term="+term.Query)...)
				want(term.CTR, "mintlify_search_term_click_through_ratio", append(pw, "term="+term.Query)...)
				want(term.CTR, "mintlify_search_term_click_through_rate", append(pw, "term="+term.Query)...)
			}
			turns := 0
			for k, n := range env.srv.Conversations(p, from, to) {
				turns += n
				want(float64(n), "mintlify_assistant_conversations", append(pw, "resolution="+k.Resolution, "response_type="+k.ResponseType)...)
			}
			perWindow["conversations"] += max(1, (turns+999)/1000)
		}
	}
	for ep, n := range map[string]int{
		mintlifytest.EndpointViews: perWindow["views"], mintlifytest.EndpointCallerStats: 6, mintlifytest.EndpointFeedbackByPage: 6,
		mintlifytest.EndpointSearches: 6, mintlifytest.EndpointConversations: perWindow["conversations"],
	} {
		if got := env.srv.CountRequests(ep); got != n {
			t.Errorf("%s: %d requests, want %d (the documented cost)", ep, got, n)
		}
	}
	for _, r := range env.srv.Requests() {
		switch r.Endpoint {
		case mintlifytest.EndpointFeedbackByPage:
			if r.Query.Get("limit") != "100" {
				t.Errorf("feedback by page asked for limit=%q, want 100", r.Query.Get("limit"))
			}
		case mintlifytest.EndpointSearches:
			if r.Query.Get("limit") != "10" {
				t.Errorf("searches asked for limit=%q, want the top terms, 10", r.Query.Get("limit"))
			}
		case mintlifytest.EndpointConversations:
			if r.Query.Get("limit") != "1000" {
				t.Errorf("conversations asked for limit=%q, want 1000", r.Query.Get("limit"))
			}
		}
	}
}

func seriesKey(name string, m *dto.Metric) string {
	var l []string
	for _, p := range m.GetLabel() {
		l = append(l, p.GetName()+"="+p.GetValue())
	}
	return name + "{" + strings.Join(l, ",") + "}"
}

// TestSiteWindowsCostOneRequest: an Nd:site window asks every source that
// has site-wide figures for one row, whatever the site's size, and exports
// only those figures; feedback and conversations have no unit for it.
func TestSiteWindowsCostOneRequest(t *testing.T) {
	data := map[string]*mintlifytest.Dataset{"docs": mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 3, Paths: 900, Days: 40, End: day0})}
	env := newSourcesEnv(t, day0, data, []string{"30d:site"}, Options{SearchesTopTerms: 10, ConversationsMaxPages: 10},
		"visitors", "views", "assistant", "feedback", "searches", "conversations")
	for _, ep := range []string{mintlifytest.EndpointVisitors, mintlifytest.EndpointViews, mintlifytest.EndpointCallerStats, mintlifytest.EndpointSearches} {
		if n := env.srv.CountRequests(ep); n != 1 {
			t.Errorf("%s: %d requests, want 1", ep, n)
		}
	}
	for _, ep := range []string{mintlifytest.EndpointFeedbackByPage, mintlifytest.EndpointConversations} {
		if n := env.srv.CountRequests(ep); n != 0 {
			t.Errorf("%s: %d requests for a site window, want none", ep, n)
		}
	}
	for _, r := range env.srv.Requests() {
		if r.Endpoint != mintlifytest.EndpointCallerStats && r.Query.Get("limit") != "1" { // caller stats takes no limit
			t.Errorf("%s asked for limit=%q, want 1", r.Endpoint, r.Query.Get("limit"))
		}
	}
	var text bytes.Buffer
	_ = env.e.Exposition().WriteText(&text)
	for _, absent := range []string{"mintlify_page_", "mintlify_search_term_hits", "_paths{"} {
		if strings.Contains(text.String(), absent) {
			t.Errorf("a site window exported %s", absent)
		}
	}
	totals, _ := env.srv.Visitors("docs", day0.AddDate(0, 0, -29), day0.AddDate(0, 0, 1))
	if !strings.Contains(text.String(), fmt.Sprintf(`mintlify_visitors_deduplicated{project="docs",window="30d"} %d`, totals.Total)) {
		t.Errorf("site-wide visitors missing or wrong:\n%s", text.String())
	}
}

// TestTermLabel: terms are cut to MaxTermRunes characters and made valid
// UTF-8; the exporter never logs them (the engine logs only summaries).
func TestTermLabel(t *testing.T) {
	long := strings.Repeat("é", 150)
	if got := TermLabel(long); len([]rune(got)) != MaxTermRunes || !strings.HasSuffix(got, "…") {
		t.Errorf("TermLabel(150 runes) = %d runes %q", len([]rune(got)), got)
	}
	if got := TermLabel("bad\xff"); got != "bad\uFFFD" {
		t.Errorf("TermLabel(invalid UTF-8) = %q", got)
	}
	if got := TermLabel("how to install"); got != "how to install" {
		t.Errorf("TermLabel changed a short term: %q", got)
	}
}

// TestMalformedRowsAreSkippedAndCounted: in every source with rows, a
// malformed row is skipped and counted in mintlify_rows_skipped_total, and
// the rest of the answer is exported; a malformed page fails the unit and
// keeps nothing new.
func TestMalformedRowsAreSkippedAndCounted(t *testing.T) {
	for _, c := range []struct {
		source, endpoint, reason string
		bad                      mintlifytest.BadRowKind
		family                   string
		// afterN skips the window's totals request (limit=1), which goes
		// before the page walk.
		afterN int
	}{
		{"visitors", mintlifytest.EndpointVisitors, client.SkipEmptyPath, mintlifytest.RowEmptyPath, "mintlify_page_visitors_deduplicated", 1},
		{"views", mintlifytest.EndpointViews, client.SkipBadCount, mintlifytest.RowNegativeCount, "mintlify_page_views", 1},
		{"feedback", mintlifytest.EndpointFeedbackByPage, client.SkipBadRow, mintlifytest.RowNotObject, "mintlify_page_feedback", 0},
		{"searches", mintlifytest.EndpointSearches, client.SkipBadCount, mintlifytest.RowStringCount, "mintlify_search_term_hits", 0},
	} {
		t.Run(c.source, func(t *testing.T) {
			data := map[string]*mintlifytest.Dataset{"docs": mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 5, Paths: 50, Days: 3, End: day0, SearchTerms: 20})}
			clk := mintlifytest.NewClock(day0)
			clock := clk.Now
			srv := mintlifytest.NewServer(mintlifytest.WithClock(clock), mintlifytest.WithProject("docs", data["docs"]))
			t.Cleanup(srv.Close)
			srv.AddFault(mintlifytest.Fault{Endpoint: c.endpoint, BadRow: c.bad, BadRowIndex: 1, AfterN: c.afterN, Times: 1})
			b := budget.New(1000, clock)
			cl := apitest.Client(t, srv, client.Config{Now: clock, Hooks: client.Hooks{Allow: b.Allow}})
			srcs, err := Build([]string{c.source}, cl, Options{PageSize: 250, SearchesTopTerms: 10})
			if err != nil {
				t.Fatal(err)
			}
			status := health.NewStatus()
			e, err := engine.New(engine.Config{Sources: srcs, Projects: []string{"docs"}, Windows: []engine.Window{windowOf(t, "1d")},
				MinInterval: 15 * time.Minute, Budget: b, Status: status, Now: clock, WaitUntil: clk.WaitUntil})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(e.Close)
			e.Start()
			e.Touch()
			settle(t, clk, e)
			if !status.Up("docs", c.source) {
				t.Fatalf("a malformed row failed the refresh: %+v", e.States())
			}
			// Every reason is there from the start, at 0 but the one seen.
			want := `
# HELP mintlify_rows_skipped_total Malformed rows of API answers skipped, by source and reason.
# TYPE mintlify_rows_skipped_total counter
`
			for _, reason := range slices.Sorted(slices.Values(client.SkipReasons)) {
				n := 0
				if reason == c.reason {
					n = 1
				}
				want += fmt.Sprintf("mintlify_rows_skipped_total{reason=%q,source=%q} %d\n", reason, c.source, n)
			}
			if err := testutil.CollectAndCompare(e.LiveCollectors()[0], strings.NewReader(want)); err != nil {
				t.Error(err)
			}
			var text bytes.Buffer
			_ = e.Exposition().WriteText(&text)
			if n := strings.Count(text.String(), c.family+"{"); n == 0 {
				t.Errorf("no %s exported beside the skipped row", c.family)
			}
			// A malformed page fails the unit: the last data stays.
			srv.AddFault(mintlifytest.Fault{Endpoint: c.endpoint, Body: `{"not":"a page"}`, Status: 200})
			before := text.String()
			clk.Advance(16 * time.Minute)
			e.Touch()
			settle(t, clk, e)
			if status.Up("docs", c.source) {
				t.Fatal("a malformed page did not fail the refresh")
			}
			text.Reset()
			_ = e.Exposition().WriteText(&text)
			if text.String() != before {
				t.Error("a failed refresh changed the exposition")
			}
		})
	}
}
