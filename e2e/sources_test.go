package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/apitest"
)

// TestServesEverySource runs the binary with every analytics source on
// (top search terms and conversations included) against 2 projects × the
// default 3 windows, and checks every new family against the fake's own
// answers, and that each source sent exactly its documented cost: one
// request per window for caller stats, feedback by page and searches, one
// per 250 paths for views, one per 1,000 turns for conversations.
func TestServesEverySource(t *testing.T) {
	t.Parallel()
	today := utcToday()
	projects := []string{"sig-docs", "sig-api"}
	opts := []mintlifytest.Option{mintlifytest.WithRateLimit(100)}
	for i, p := range projects {
		opts = append(opts, mintlifytest.WithProject(p, mintlifytest.Generate(mintlifytest.GenerateOptions{
			Seed: int64(300 + i), Paths: 320, Days: 30, End: today, SearchTerms: 30, TurnsPerDay: 40,
		})))
	}
	srv := apitest.Fake(t, opts...)
	// Every window is read whole here, to count each source's documented
	// cost; derived windows have tests of their own.
	args := []string{"--mintlify.api-url=" + srv.URL(), "--analytics.max-paths=0", "--no-collector.visitors", "--no-analytics.derived-windows",
		"--collector.conversations", "--searches.top-terms=5"}
	for _, p := range projects {
		args = append(args, "--mintlify.project-id="+p)
	}
	p := startExporter(t, keyEnv, args...)
	_, fams := p.scrape(t) // waits for the first data, up to the scrape timeout
	got := series(fams)
	check := func(v int64, name string, kv ...string) {
		t.Helper()
		k := key(name, kv...)
		if g, ok := got[k]; !ok || g != float64(v) {
			t.Errorf("%s = %v (present %v), want %d", k, g, ok, v)
		}
	}
	want := map[string]int{}
	for _, proj := range projects {
		for _, days := range []int{1, 7, 30} {
			w := fmt.Sprintf("%dd", days)
			from, to := today.AddDate(0, 0, -(days-1)), today.AddDate(0, 0, 1)
			pw := []string{"project", proj, "window", w}
			views, rows := srv.Views(proj, from, to)
			check(views.Human, "mintlify_views", append(pw, "traffic", "human")...)
			check(views.AI, "mintlify_views", append(pw, "traffic", "ai")...)
			if other := views.Total - views.Human - views.AI; other > 0 {
				check(other, "mintlify_views", append(pw, "traffic", "other")...)
			}
			check(int64(len(rows)), "mintlify_views_paths", pw...)
			for _, r := range rows {
				check(r.Human, "mintlify_page_views", append(pw, "path", r.Path, "traffic", "human")...)
				check(r.AI, "mintlify_page_views", append(pw, "path", r.Path, "traffic", "ai")...)
			}
			want[mintlifytest.EndpointViews] += 1 + (len(rows)+249)/250 // the totals unit, then the walk
			cs := srv.CallerStats(proj, from, to)
			check(cs.Web, "mintlify_assistant_queries", append(pw, "caller", "web")...)
			check(cs.API, "mintlify_assistant_queries", append(pw, "caller", "api")...)
			check(cs.Other, "mintlify_assistant_queries", append(pw, "caller", "other")...)
			fb := srv.FeedbackByPage(proj, from, to)
			truncated := int64(0)
			if len(fb) > 100 {
				fb, truncated = fb[:100], 1
			}
			check(truncated, "mintlify_feedback_pages_truncated", pw...)
			for _, r := range fb {
				check(r.ThumbsUp, "mintlify_page_feedback", append(pw, "path", r.Path, "kind", "thumbs_up")...)
				check(r.ThumbsDown, "mintlify_page_feedback", append(pw, "path", r.Path, "kind", "thumbs_down")...)
			}
			terms, total := srv.Searches(proj, from, to)
			check(total, "mintlify_searches", pw...)
			without := int64(0)
			for _, term := range terms[:min(5, len(terms))] {
				check(term.Hits, "mintlify_search_term_hits", append(pw, "term", term.Query)...)
				for _, name := range []string{"mintlify_search_term_click_through_ratio", "mintlify_search_term_click_through_rate"} {
					if g := got[key(name, append(pw, "term", term.Query)...)]; g != term.CTR {
						t.Errorf("%s/%s term %q: %s %v, want %v", proj, w, term.Query, name, g, term.CTR)
					}
				}
				if term.CTR == 0 {
					without++
				}
			}
			check(without, "mintlify_search_terms_without_clicks", pw...)
			turns := 0
			for k, n := range srv.Conversations(proj, from, to) {
				turns += n
				check(int64(n), "mintlify_assistant_conversations", append(pw, "response_type", k.ResponseType, "resolution", k.Resolution)...)
			}
			want[mintlifytest.EndpointConversations] += max(1, (turns+999)/1000)
			want[mintlifytest.EndpointCallerStats]++
			want[mintlifytest.EndpointFeedbackByPage]++
			want[mintlifytest.EndpointSearches]++
		}
		for _, src := range []string{"views", "assistant", "feedback", "searches", "conversations"} {
			check(1, "mintlify_up", "project", proj, "source", src)
		}
	}
	deadline := time.Now().Add(5 * time.Second) // requests are logged before their answers are read
	for ep, n := range want {
		for srv.CountRequests(ep) < n && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if got := srv.CountRequests(ep); got != n {
			t.Errorf("%s: %d requests, want %d (the documented cost)", ep, got, n)
		}
	}
	if n := srv.CountRequests(mintlifytest.EndpointVisitors); n != 0 {
		t.Errorf("--no-collector.visitors sent %d visitors requests", n)
	}
	p.stop(t)
	skipIfDayChanged(t, today)
}
