package mintlifytest_test

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

func visitorsPath(project string, from, to time.Time, limit, offset int) string {
	q := url.Values{}
	if !from.IsZero() {
		q.Set("dateFrom", from.Format(time.DateOnly))
	}
	if !to.IsZero() {
		q.Set("dateTo", to.Format(time.DateOnly))
	}
	if limit > 0 {
		q.Set("limit", fmt.Sprint(limit))
	}
	q.Set("offset", fmt.Sprint(offset))
	return "/v1/analytics/" + url.PathEscape(project) + "/visitors?" + q.Encode()
}

// walk fetches every page and checks that each page has the same totals.
func walk(t *testing.T, s *mintlifytest.Server, project string, from, to time.Time, limit int) (mintlifytest.Counts, []mintlifytest.Row) {
	t.Helper()
	var all []mintlifytest.Row
	var first mintlifytest.Counts
	for offset := 0; ; offset += limit {
		totals, rows, more := page(t, s, visitorsPath(project, from, to, limit, offset))
		if offset == 0 {
			first = totals
		} else if totals != first {
			t.Fatalf("offset %d: totals %+v differ from the first page's %+v", offset, totals, first)
		}
		if len(rows) > limit {
			t.Fatalf("offset %d: %d rows for limit %d", offset, len(rows), limit)
		}
		all = append(all, rows...)
		if !more {
			return first, all
		}
		if len(rows) != limit {
			t.Fatalf("offset %d: hasMore with a short page of %d rows", offset, len(rows))
		}
	}
}

func TestDateToIsExclusive(t *testing.T) {
	d := mintlifytest.NewDataset()
	d.Set(day(-2), "/a", 10, 5, 12)
	d.Set(day(-1), "/a", 1, 0, 1)
	d.Set(day(-1), "/b", 7, 7, 9)
	d.Set(t0, "/c", 3, 1, 4) // today, mid-day time: reduced to its date
	s, _ := newServer(t, mintlifytest.WithProject("proj", d))

	tests := []struct {
		name     string
		from, to time.Time
		want     []mintlifytest.Row
	}{
		{"day -2 alone", day(-2), day(-1), []mintlifytest.Row{{"/a", mintlifytest.Counts{10, 5, 12}}}},
		{"dateTo on the day excludes it", day(-1), day(-1), nil},
		{"day -1 alone", day(-1), day(0), []mintlifytest.Row{{"/b", mintlifytest.Counts{7, 7, 9}}, {"/a", mintlifytest.Counts{1, 0, 1}}}},
		{"two days sum per path", day(-2), day(0), []mintlifytest.Row{{"/a", mintlifytest.Counts{11, 5, 13}}, {"/b", mintlifytest.Counts{7, 7, 9}}}},
		{"today needs dateTo tomorrow", day(0), day(1), []mintlifytest.Row{{"/c", mintlifytest.Counts{3, 1, 4}}}},
		{"today excluded by dateTo today", day(-1), day(0), []mintlifytest.Row{{"/b", mintlifytest.Counts{7, 7, 9}}, {"/a", mintlifytest.Counts{1, 0, 1}}}},
		{"no dateTo includes today", day(0), time.Time{}, []mintlifytest.Row{{"/c", mintlifytest.Counts{3, 1, 4}}}},
		{"no dateFrom starts at the beginning", time.Time{}, day(-1), []mintlifytest.Row{{"/a", mintlifytest.Counts{10, 5, 12}}}},
		{"future range", day(1), day(5), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, rows := walk(t, s, "proj", tc.from, tc.to, 250)
			if !slices.Equal(rows, tc.want) {
				t.Fatalf("rows %+v, want %+v", rows, tc.want)
			}
			_, expected := s.Visitors("proj", tc.from, tc.to)
			if !slices.Equal(expected, tc.want) {
				t.Fatalf("Visitors() = %+v, want %+v", expected, tc.want)
			}
		})
	}
	// A date-time is reduced to its UTC date, dateTo included.
	_, rows, _ := page(t, s, "/v1/analytics/proj/visitors?dateFrom=2025-03-09T23:59:59Z&dateTo=2025-03-10T08:00:00%2B02:00")
	if want := []mintlifytest.Row{{"/b", mintlifytest.Counts{7, 7, 9}}, {"/a", mintlifytest.Counts{1, 0, 1}}}; !slices.Equal(rows, want) {
		t.Fatalf("date-times: rows %+v, want %+v", rows, want)
	}
}

func TestPaginationConsistency(t *testing.T) {
	s, _ := newServer(t, mintlifytest.WithProject("proj", mintlifytest.Generate(mintlifytest.GenerateOptions{
		Seed: 11, Paths: 613, Days: 14, End: t0,
	})))
	wantTotals, want := s.Visitors("proj", day(-6), day(1))
	if len(want) == 0 {
		t.Fatal("no rows to page through")
	}
	for _, limit := range []int{1, 2, 7, 50, 100, 249, 250} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			if limit == 1 && testing.Short() {
				t.Skip("613 requests")
			}
			totals, got := walk(t, s, "proj", day(-6), day(1), limit)
			if totals != wantTotals {
				t.Errorf("totals %+v, want %+v", totals, wantTotals)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("concatenated pages differ from Visitors(): %d rows vs %d", len(got), len(want))
			}
		})
	}
}

func TestSortOrder(t *testing.T) {
	d := mintlifytest.NewDataset()
	d.Set(day(0), "/b", 5, 0, 5)
	d.Set(day(0), "/a", 0, 5, 5)
	d.Set(day(0), "/c", 5, 5, 5)
	d.Set(day(0), "/big", 9, 0, 9)
	d.Set(day(0), "/zero", 0, 0, 0)
	s, _ := newServer(t, mintlifytest.WithProject("proj", d))
	_, rows := walk(t, s, "proj", day(0), day(1), 2)
	var paths []string
	for _, r := range rows {
		paths = append(paths, r.Path)
	}
	if want := []string{"/big", "/a", "/b", "/c"}; !slices.Equal(paths, want) {
		t.Fatalf("order %v, want %v (total desc, path asc, zero rows left out)", paths, want)
	}
}

// checkTotals verifies the invariants of a visitors answer.
func checkTotals(t *testing.T, totals mintlifytest.Counts, rows []mintlifytest.Row) {
	t.Helper()
	ok := func(c mintlifytest.Counts) bool {
		return c.Human >= 0 && c.AI >= 0 && max(c.Human, c.AI) <= c.Total && c.Total <= c.Human+c.AI
	}
	if !ok(totals) {
		t.Errorf("site totals %+v break max(h, ai) <= total <= h+ai", totals)
	}
	var sum, top mintlifytest.Counts
	withTraffic := 0
	for _, r := range rows {
		if !ok(r.Counts) || r.Total == 0 {
			t.Errorf("row %+v breaks max(h, ai) <= total <= h+ai or has no visitors", r)
		}
		withTraffic++
		sum.Human, sum.AI, sum.Total = sum.Human+r.Human, sum.AI+r.AI, sum.Total+r.Total
		top.Human, top.AI, top.Total = max(top.Human, r.Human), max(top.AI, r.AI), max(top.Total, r.Total)
	}
	if totals.Human < top.Human || totals.AI < top.AI || totals.Total < top.Total {
		t.Errorf("site totals %+v below the largest page %+v", totals, top)
	}
	if totals.Human > sum.Human || totals.AI > sum.AI || totals.Total > sum.Total {
		t.Errorf("site totals %+v above the sum of pages %+v", totals, sum)
	}
	if withTraffic > 1 && totals.Total >= sum.Total {
		t.Errorf("site total %d not below the sum of %d pages' totals %d", totals.Total, withTraffic, sum.Total)
	}
}

func TestTotalsInvariants(t *testing.T) {
	s, _ := newServer(t,
		mintlifytest.WithProject("gen", mintlifytest.Generate(mintlifytest.GenerateOptions{Seed: 5, Paths: 400, Days: 30, End: t0})),
		mintlifytest.WithProject("tiny", tinyDataset()),
		mintlifytest.WithProject("empty", mintlifytest.NewDataset()),
		mintlifytest.WithProject("nil", nil),
	)
	for _, p := range []string{"gen", "tiny", "empty", "nil"} {
		for _, n := range []int{1, 2, 7, 30, 60} {
			t.Run(fmt.Sprintf("%s/%dd", p, n), func(t *testing.T) {
				totals, rows := walk(t, s, p, day(1-n), day(1), 250)
				checkTotals(t, totals, rows)
				if len(rows) == 0 && totals != (mintlifytest.Counts{}) {
					t.Errorf("no rows but totals %+v", totals)
				}
			})
		}
	}
}

func tinyDataset() *mintlifytest.Dataset {
	d := mintlifytest.NewDataset()
	d.Set(day(0), "/one", 1, 0, 1)
	d.Set(day(0), "/two", 0, 1, 1)
	d.Set(day(-1), "/one", 1, 1, 2)
	d.Set(day(-2), "/solo", 4, 3, 5)
	return d
}

func TestSiteTotalsFormula(t *testing.T) {
	d := mintlifytest.NewDataset()
	d.Set(day(0), "/a", 100, 10, 105)
	d.Set(day(0), "/b", 50, 40, 80)
	d.Set(day(0), "/c", 10, 0, 10)
	s, _ := newServer(t, mintlifytest.WithProject("proj", d))
	totals, _ := s.Visitors("proj", day(0), day(1))
	// human max(floor(0.6*160)=96, 100)=100; ai max(floor(0.6*50)=30, 40)=40;
	// total max(floor(0.6*195)=117, 105)=117, within [100, 140].
	if want := (mintlifytest.Counts{Human: 100, AI: 40, Total: 117}); totals != want {
		t.Fatalf("totals %+v, want %+v", totals, want)
	}
	got, _, _ := page(t, s, "/v1/analytics/proj/visitors?dateFrom=2025-03-10&dateTo=2025-03-11")
	if got != totals {
		t.Fatalf("endpoint totals %+v, Visitors() %+v", got, totals)
	}
}

func TestDataChangesAreServed(t *testing.T) {
	d := mintlifytest.NewDataset()
	d.Set(day(0), "/a", 1, 1, 2)
	s, _ := newServer(t, mintlifytest.WithProject("proj", d))
	before, _, _ := page(t, s, "/v1/analytics/proj/visitors")
	d.Set(day(0), "/b", 5, 0, 5)
	after, rows, _ := page(t, s, "/v1/analytics/proj/visitors")
	if len(rows) != 2 || after == before {
		t.Fatalf("Set after serving not seen: %+v %+v", after, rows)
	}
	d2 := mintlifytest.NewDataset()
	d2.Set(day(0), "/new", 3, 0, 3)
	s.SetProject("proj", d2)
	_, rows, _ = page(t, s, "/v1/analytics/proj/visitors")
	if want := []mintlifytest.Row{{"/new", mintlifytest.Counts{3, 0, 3}}}; !slices.Equal(rows, want) {
		t.Fatalf("after SetProject: %+v", rows)
	}
	s.SetProject("added", nil)
	if _, rows, _ := page(t, s, "/v1/analytics/added/visitors"); len(rows) != 0 {
		t.Fatalf("project without data: %+v", rows)
	}
}

func TestTodayFollowsClock(t *testing.T) {
	d := mintlifytest.NewDataset()
	d.Set(day(1), "/tomorrow", 1, 0, 1)
	s, c := newServer(t, mintlifytest.WithProject("proj", d))
	if _, rows, _ := page(t, s, "/v1/analytics/proj/visitors"); len(rows) != 0 {
		t.Fatalf("tomorrow's data served today: %+v", rows)
	}
	c.Advance(24 * time.Hour)
	if _, rows, _ := page(t, s, "/v1/analytics/proj/visitors"); len(rows) != 1 {
		t.Fatalf("today's data not served: %+v", rows)
	}
	if _, rows := s.Visitors("proj", time.Time{}, time.Time{}); len(rows) != 1 {
		t.Fatalf("Visitors() with zero bounds: %+v", rows)
	}
}

func TestVisitorsReturnsCopy(t *testing.T) {
	s, _ := newServer(t, mintlifytest.WithProject("proj", tinyDataset()))
	_, rows := s.Visitors("proj", time.Time{}, time.Time{})
	rows[0].Path = "/changed"
	if _, again := s.Visitors("proj", time.Time{}, time.Time{}); again[0].Path == "/changed" {
		t.Fatal("Visitors() exposes the cached rows")
	}
}

func TestVisitorsUnknownProjectPanics(t *testing.T) {
	s, _ := newServer(t)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	s.Visitors("nope", time.Time{}, time.Time{})
}

func TestDatasetSetRefusesBadCounts(t *testing.T) {
	tests := []struct{ h, ai, total int64 }{
		{-1, 0, 0},
		{1, 1, 0},
		{5, 3, 4},
		{5, 3, 9},
		{math.MaxInt32 + 1, 0, math.MaxInt32 + 1},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc), func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			mintlifytest.NewDataset().Set(day(0), "/x", tc.h, tc.ai, tc.total)
		})
	}
}

func TestSpecialPathsEncoded(t *testing.T) {
	d := mintlifytest.NewDataset()
	paths := []string{`/quote"d`, `/back\slash`, "/tab\there", "/ünïcode/页面", "/a<b>&c", "/\x01ctl"}
	for i, p := range paths {
		d.Set(day(0), p, int64(10+i), 0, int64(10+i))
	}
	s, _ := newServer(t, mintlifytest.WithProject("proj", d))
	_, rows, _ := page(t, s, "/v1/analytics/proj/visitors")
	for i, p := range paths {
		if rows[len(rows)-1-i].Path != p {
			t.Errorf("path %q came back as %q", p, rows[len(rows)-1-i].Path)
		}
	}
}

// TestSetReturning: with a returning share, unique visitors of a range of
// n days are the sum of the days divided by 1 + r·(n−1); one day and page
// views are unchanged.
func TestSetReturning(t *testing.T) {
	d := mintlifytest.NewDataset()
	day := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	for i := range 3 {
		d.Set(day.AddDate(0, 0, i), "/a", 30, 12, 36)
		d.SetViews(day.AddDate(0, 0, i), "/a", 60, 24, 84)
	}
	d.SetReturning(0.5)
	srv := mintlifytest.NewServer(mintlifytest.WithClock(func() time.Time { return day.AddDate(0, 0, 3) }), mintlifytest.WithProject("p", d))
	defer srv.Close()
	_, rows := srv.Visitors("p", day, day.AddDate(0, 0, 3))
	if len(rows) != 1 || rows[0].Human != 45 || rows[0].AI != 18 || rows[0].Total != 54 {
		t.Errorf("3 days at a returning share of 0.5: %+v, want 90/2, 36/2, 108/2", rows)
	}
	if _, rows := srv.Visitors("p", day, day.AddDate(0, 0, 1)); len(rows) != 1 || rows[0].Human != 30 {
		t.Errorf("one day: %+v, want unchanged", rows)
	}
	if _, rows := srv.Views("p", day, day.AddDate(0, 0, 3)); len(rows) != 1 || rows[0].Human != 180 {
		t.Errorf("views over 3 days: %+v, want added up", rows)
	}
}
