package mintlifytest_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// expected serves a dataset and returns its expected answer.
func expected(t *testing.T, d *mintlifytest.Dataset, from, to time.Time) (mintlifytest.Counts, []mintlifytest.Row) {
	t.Helper()
	s := mintlifytest.NewUnstartedServer(mintlifytest.WithClock(func() time.Time { return t0 }), mintlifytest.WithProject("p", d))
	return s.Visitors("p", from, to)
}

func TestGenerateShape(t *testing.T) {
	for _, n := range []int{1, 5, 20, 350, 5000} {
		d := mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 42, Paths: n, Days: 7, End: t0})
		totals, rows := expected(t, d, time.Time{}, time.Time{})
		if len(rows) != n {
			t.Fatalf("Paths %d: %d rows over all days", n, len(rows))
		}
		seen := map[string]bool{}
		for _, r := range rows {
			if seen[r.Path] {
				t.Fatalf("Paths %d: duplicate path %q", n, r.Path)
			}
			seen[r.Path] = true
			u, err := url.Parse(r.Path)
			if !strings.HasPrefix(r.Path, "/") || !utf8.ValidString(r.Path) || err != nil || u.Path != r.Path || u.RawQuery != "" {
				t.Fatalf("Paths %d: %q is not a plain URL path", n, r.Path)
			}
		}
		checkTotals(t, totals, rows)
		if _, later := expected(t, d, day(1), day(30)); len(later) != 0 {
			t.Fatalf("data after End: %d rows", len(later))
		}
		if _, earlier := expected(t, d, time.Time{}, day(-6)); len(earlier) != 0 {
			t.Fatalf("data before the first day: %d rows", len(earlier))
		}
	}
}

func TestGenerateRealisticPaths(t *testing.T) {
	d := mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 1, Paths: 2000, Days: 3, End: t0})
	_, rows := expected(t, d, time.Time{}, time.Time{})
	has := func(prefix string) bool {
		return slices.ContainsFunc(rows, func(r mintlifytest.Row) bool { return strings.HasPrefix(r.Path, prefix) })
	}
	for _, p := range []string{"/quickstart", "/api-reference/endpoint/", "/guides/", "/docs/section-"} {
		if !has(p) {
			t.Errorf("no path starting with %s", p)
		}
	}
	if rows[0].Path != "/" && rows[0].Path != "/quickstart" && rows[0].Path != "/introduction" {
		t.Errorf("most visited page is %s", rows[0].Path)
	}
}

func TestGenerateDeterministic(t *testing.T) {
	o := mintlifytest.GenerateOptions{Seed: 7, Paths: 800, Days: 10, End: t0}
	ta, a := expected(t, mintlifytest.Generate(o), time.Time{}, time.Time{})
	tb, b := expected(t, mintlifytest.Generate(o), time.Time{}, time.Time{})
	if ta != tb || !slices.Equal(a, b) {
		t.Fatal("same options gave different data")
	}
	o.Seed = 8
	_, c := expected(t, mintlifytest.Generate(o), time.Time{}, time.Time{})
	if slices.Equal(a, c) {
		t.Fatal("different seeds gave the same data")
	}
}

func TestGenerateZipfPopularity(t *testing.T) {
	d := mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 2, Paths: 1000, Days: 14, End: t0})
	_, rows := expected(t, d, time.Time{}, time.Time{})
	var all, top int64
	for i, r := range rows {
		all += r.Total
		if i < 20 {
			top += r.Total
		}
	}
	if share := float64(top) / float64(all); share < 0.4 {
		t.Fatalf("top 2%% of pages have %.0f%% of visitors; want a Zipf-like head", share*100)
	}
	if rows[0].Total < 50*rows[len(rows)/2].Total {
		t.Fatalf("top page %d vs median %d: too flat", rows[0].Total, rows[len(rows)/2].Total)
	}
}

func TestGenerateAIMix(t *testing.T) {
	aiShare := func(share float64) (site float64, apiRef, others float64) {
		d := mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 9, Paths: 400, Days: 14, End: t0, AIShare: share})
		_, rows := expected(t, d, time.Time{}, time.Time{})
		var h, a, ah, aa, oh, oa int64
		for _, r := range rows {
			h, a = h+r.Human, a+r.AI
			if strings.HasPrefix(r.Path, "/api-reference/") {
				ah, aa = ah+r.Human, aa+r.AI
			} else {
				oh, oa = oh+r.Human, oa+r.AI
			}
		}
		return float64(a) / float64(a+h), float64(aa) / float64(aa+ah), float64(oa) / float64(oa+oh)
	}
	site, apiRef, others := aiShare(0)
	if site < 0.15 || site > 0.45 {
		t.Errorf("default AI share %.2f, want about 0.3", site)
	}
	if apiRef <= others*1.3 {
		t.Errorf("API reference AI share %.2f not clearly above the rest's %.2f", apiRef, others)
	}
	if high, _, _ := aiShare(0.6); high <= site+0.15 {
		t.Errorf("AIShare 0.6 gave %.2f, default %.2f", high, site)
	}
}

func TestGenerateWeekends(t *testing.T) {
	// t0 is a Monday: day(-2) is Saturday, day(-3) Friday.
	d := mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 4, Paths: 300, Days: 14, End: t0})
	friday, _ := expected(t, d, day(-3), day(-2))
	saturday, _ := expected(t, d, day(-2), day(-1))
	if float64(saturday.Human) > 0.7*float64(friday.Human) {
		t.Errorf("Saturday humans %d vs Friday %d: no weekend dip", saturday.Human, friday.Human)
	}
	if float64(saturday.AI) < 0.6*float64(friday.AI) {
		t.Errorf("Saturday AI %d vs Friday %d: AI should barely dip", saturday.AI, friday.AI)
	}
}

func TestGenerateDefaults(t *testing.T) {
	d := mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 1, End: t0})
	if _, rows := expected(t, d, time.Time{}, time.Time{}); len(rows) != 200 {
		t.Fatalf("default Paths: %d rows", len(rows))
	}
	if _, rows := expected(t, d, time.Time{}, day(-29)); len(rows) != 0 {
		t.Fatalf("default Days reaches before 30 days: %d rows", len(rows))
	}
}
