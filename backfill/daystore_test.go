package backfill_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/statefile"
)

// TestSeedsTheDayStore: with --cache.file, backfill adds the days of the
// additive sources (views here, not visitors) to the exporter's day store,
// site-wide for a site-only run and per page with --backfill.pages; a
// second run replaces the same days rather than adding them twice.
func TestSeedsTheDayStore(t *testing.T) {
	for _, pages := range []bool{false, true} {
		h := newHarness(t)
		h.sources = []string{"visitors", "views"}
		cache := h.path("state.json")
		cfg := h.config(day(0), day(6), h.path("out.om"))
		cfg.Pages, cfg.CacheFile = pages, cache
		res := h.mustRun(cfg)
		if text, err := os.ReadFile(h.path("out.om")); err != nil || !strings.Contains(string(text), "# HELP mintlify_views ") || strings.Contains(string(text), "Cached:") {
			t.Errorf("pages=%v: the output's HELP texts speak of a cache (%v):\n%.600s", pages, err, text)
		}
		if res.Seeded != 7 {
			t.Fatalf("pages=%v: %d days seeded, want 7 (views only)", pages, res.Seeded)
		}
		st := statefile.LoadFile(cache, log.NewNopLogger())
		if st == nil || len(st.Days) != 7 {
			t.Fatalf("pages=%v: the cache file holds %v", pages, st)
		}
		for i, d := range st.Days {
			if d.Source != "views" || d.Project != "docs" || d.Site == pages || d.Day != day(i).String() {
				t.Errorf("pages=%v: day %d is %s %s site=%v %s", pages, i, d.Source, d.Project, d.Site, d.Day)
			}
			totals, rows := h.srv.Views("docs", day(i).Time(), day(i).AddDays(1).Time())
			sum := 0.0
			for _, s := range d.Families["mintlify_views"] {
				sum += s.Value
			}
			if sum != float64(totals.Total) {
				t.Errorf("pages=%v: %s: views %v, want %d", pages, d.Day, sum, totals.Total)
			}
			if pages && len(d.Families["mintlify_page_views"]) < len(rows) {
				t.Errorf("pages=%v: %s: %d page series for %d paths", pages, d.Day, len(d.Families["mintlify_page_views"]), len(rows))
			}
		}
		cfg = h.config(day(0), day(6), h.path("out2.om"))
		cfg.Pages, cfg.CacheFile = pages, cache
		h.mustRun(cfg)
		if st := statefile.LoadFile(cache, log.NewNopLogger()); st == nil || len(st.Days) != 7 {
			t.Fatalf("pages=%v: a second run left %d days, want 7", pages, len(st.Days))
		}
	}
}

// TestRefusesACacheFileInUse: beside a running exporter, backfill reported
// days added that the exporter's next save dropped. It takes the cache
// file's lock first and, when an exporter holds it, stops before any
// request with one line naming --cache.file and what to do.
func TestRefusesACacheFileInUse(t *testing.T) {
	h := newHarness(t)
	h.sources = []string{"views"}
	cache := h.path("state.json")
	lock, err := statefile.Lock(cache)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	cfg := h.config(day(0), day(6), h.path("out.om"))
	cfg.CacheFile = cache
	res, err := h.run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "--cache.file="+cache) || !strings.Contains(err.Error(), "stop it") || strings.Contains(err.Error(), "\n") {
		t.Errorf("beside a running exporter: %v (result %+v), want one line naming --cache.file and what to do", err, res)
	}
	if n := h.srv.CountRequests(mintlifytest.EndpointViews); n != 0 {
		t.Errorf("%d requests sent", n)
	}
	if _, err := os.Stat(cache); err == nil {
		t.Errorf("the cache file was written")
	}
	lock.Unlock()
	cfg.CacheFile = cache
	if res := h.mustRun(cfg); res.Seeded != 7 {
		t.Errorf("once the exporter stopped: %d days seeded, want 7", res.Seeded)
	}
}
