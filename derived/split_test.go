package derived

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/health"
	"github.com/mintlify-exporter/mintlify_exporter/internal/logbuf"
)

// splitSource is an additive source whose windows are split, as views':
// site totals (one family, site-wide) and a page walk (pages, with the
// totals too). A day counts 10 on page /a and 100 plus the day's number
// in the month on /b; with shift set a range of several days 5 % more.
type splitSource struct {
	b     *budget.Budget
	now   func() time.Time
	shift atomic.Bool
	// closed and long count reads of one closed day and of several days.
	closed, long atomic.Int64
}

func (s *splitSource) Name() string { return "hits" }
func (s *splitSource) Families() []Family {
	return []Family{{Name: "test_hits", Help: "Hits.", SiteWide: true}, {Name: "test_page_hits", Help: "Hits by page.", Labels: []string{"path"}}}
}
func (s *splitSource) Supports(Window) bool  { return true }
func (s *splitSource) SplitsTotals() bool    { return true }
func (s *splitSource) EstimateCost(Unit) int { return 1 }
func (s *splitSource) Additive(Unit) bool    { return true }
func (s *splitSource) Sum(u Unit, days []*Result) *Result {
	return &Result{Samples: [][]Sample{SumFamily(days, 0), SumFamily(days, 1)}}
}

func (s *splitSource) Fetch(ctx context.Context, u Unit, r client.DateRange, _ int) (*Result, error) {
	if err := s.b.Allow(ctx, client.EndpointViews); err != nil {
		return nil, err
	}
	a, b, n := 0.0, 0.0, 0
	for d := r.From; d.Time().Before(r.To.Time()); d = d.AddDays(1) { // an inverted range (a mutant) ends at once
		a, b, n = a+10, b+float64(100+d.Time().Day()), n+1
	}
	switch {
	case n == 1 && !r.To.Time().After(s.now()):
		s.closed.Add(1)
	case n > 1:
		s.long.Add(1)
		if s.shift.Load() {
			a, b = a*1.05, b*1.05
		}
	}
	res := &Result{Samples: [][]Sample{{{Value: a + b}}}, Cost: 1}
	if !u.Window.Site {
		res.Samples = append(res.Samples, []Sample{{Labels: [MaxLabels]string{"/a"}, Value: a}, {Labels: [MaxLabels]string{"/b"}, Value: b}})
	}
	return res, nil
}

// newSplitRig is an engine of the split source with derived windows 1d and
// 7d, from the day store days.
func newSplitRig(t *testing.T, days []Day) (*rig, *splitSource) {
	t.Helper()
	clock := mintlifytest.NewClock(t0)
	src := &splitSource{b: budget.New(1000, clock.Now), now: clock.Now}
	r := &rig{t: t, clock: clock, logs: &logbuf.Buffer{}}
	logger := log.NewLogfmtLogger(r.logs)
	r.l = New(Config{Logger: logger, Days: days})
	var err error
	r.e, err = engine.New(engine.Config{Sources: []engine.Source{src}, Projects: []string{"docs"}, Windows: []Window{{Name: "1d", Days: 1}, {Name: "7d", Days: 7}},
		MinInterval: 15 * time.Minute, Budget: src.b, Status: health.NewStatus(), Now: clock.Now, WaitUntil: clock.WaitUntil, Logger: logger, Layer: r.l})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.e.Close)
	return r, src
}

// TestSplitWindowIsOneSeries: a split window's totals and page walk are
// both derived, exported as one mintlify_derived_window series, and
// audited once, by the totals' audit.
func TestSplitWindowIsOneSeries(t *testing.T) {
	r, src := newSplitRig(t, nil)
	r.settle()
	if n := src.closed.Load(); n != 12 {
		t.Errorf("%d closed days read, want 12: 6 for the totals, 6 for the pages", n)
	}
	if n := src.long.Load(); n != 3 {
		t.Errorf("%d reads of several days, want 3: each window's first data, then the totals' audit", n)
	}
	for _, name := range []string{"hits/docs/7d:site", "hits/docs/7d"} {
		if st := r.state(name); st.Summary != "derived: 6 closed days and today" {
			t.Errorf("%s: summary %q", name, st.Summary)
		}
	}
	want := `
# HELP mintlify_derived_window 1 when the window is exported as the sum of its days, 0 when it is read directly.
# TYPE mintlify_derived_window gauge
mintlify_derived_window{project="docs",source="hits",window="7d"} 1
# HELP mintlify_derived_window_drift_ratio Relative difference between the last direct read of a derived window and the sum of its days.
# TYPE mintlify_derived_window_drift_ratio gauge
mintlify_derived_window_drift_ratio{project="docs",source="hits",window="7d"} 0
`
	if err := testutil.CollectAndCompare(r.l, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	text := r.text()
	for _, s := range []string{`test_hits{project="docs",window="7d"} 819`, `test_page_hits{path="/b",project="docs",window="7d"} 749`} {
		if !strings.Contains(text, s) {
			t.Errorf("no %s in\n%s", s, text)
		}
	}
}

// TestSplitWindowFallsBackWhole: when the totals' audit finds drift, the
// totals and the page walk, derived from a restored store, are both read
// directly again.
func TestSplitWindowFallsBackWhole(t *testing.T) {
	first, _ := newSplitRig(t, nil)
	first.settle()
	days := first.l.Days()
	first.e.Close()
	r, src := newSplitRig(t, days)
	src.shift.Store(true)
	r.settle()
	if n := src.long.Load(); n != 3 {
		t.Errorf("%d reads of several days, want 3: the totals' audit, then each window read directly", n)
	}
	for _, name := range []string{"hits/docs/7d:site", "hits/docs/7d"} {
		if st := r.state(name); strings.HasPrefix(st.Summary, "derived") {
			t.Errorf("%s still derived: %q", name, st.Summary)
		}
	}
	if n := r.logLines("a derived window does not add up"); n != 1 {
		t.Errorf("%d warnings, want one, for the totals:\n%s", n, r.logs)
	}
	want := `
# HELP mintlify_derived_window 1 when the window is exported as the sum of its days, 0 when it is read directly.
# TYPE mintlify_derived_window gauge
mintlify_derived_window{project="docs",source="hits",window="7d"} 0
# HELP mintlify_derived_window_drift_ratio Relative difference between the last direct read of a derived window and the sum of its days.
# TYPE mintlify_derived_window_drift_ratio gauge
mintlify_derived_window_drift_ratio{project="docs",source="hits",window="7d"} 0.04761904761904768
`
	if err := testutil.CollectAndCompare(r.l, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}

// TestPageDaysStandForTotals: a day store holding only the page walk's
// days (backfill --backfill.pages, or an older cache file) gives the
// totals window its days too: a restart reads no closed day.
func TestPageDaysStandForTotals(t *testing.T) {
	first, _ := newSplitRig(t, nil)
	first.settle()
	var pages []Day
	for _, d := range first.l.Days() {
		if !d.Site {
			pages = append(pages, d)
		}
	}
	if len(pages) != 6 {
		t.Fatalf("%d page days, want 6", len(pages))
	}
	first.e.Close()
	if n := first.logLines("restored the day store"); n != 0 {
		t.Errorf("a start without days logged %d restores", n)
	}
	second, src := newSplitRig(t, pages)
	second.settle()
	if n := second.logLines(`msg="restored the day store from the cache file" days=6`); n != 1 {
		t.Errorf("%d log lines of the 6 days restored:\n%s", n, second.logs)
	}
	if n := second.logLines("dropped series"); n != 0 {
		t.Errorf("%d warnings of dropped series, none dropped:\n%s", n, second.logs)
	}
	if n := src.closed.Load(); n != 0 {
		t.Errorf("%d closed days read after the restart, want 0", n)
	}
	if st := second.state("hits/docs/7d:site"); st.Summary != "derived: 6 closed days and today" {
		t.Errorf("7d:site: %q", st.Summary)
	}
	days := second.l.Days()
	if len(days) != 12 {
		t.Errorf("%d days kept, want 12", len(days))
	}
	for _, d := range days {
		if _, ok := d.Families["test_hits"]; !ok || d.Site && len(d.Families) != 1 {
			t.Errorf("%s site=%v keeps families %v, want the totals' alone for a site day", d.Day, d.Site, d.Families)
		}
	}
}

// TestReadsWorthAndOrder: the reads the layer asks for, as the rule gets
// them: missing closed days newest first, the day that just ended worth
// 0.05 a request and older ones 0.02; once derived, the window's audit of
// its closed days, worth 0.5/days, due a day after the last, or an hour on
// while a closed day is provisional.
func TestReadsWorthAndOrder(t *testing.T) {
	r, src := newDayRigOf(t, 1000, nil, "1d", "3d")
	base := Unit{Source: "events", Project: "docs", Window: Window{Name: "1d", Days: 1}}
	day := func(n int) client.DateRange {
		d := client.DateOf(r.clock.Now()).AddDays(-n)
		return client.DateRange{From: d, To: d.AddDays(1)}
	}
	type read struct {
		u     Unit
		rng   client.DateRange
		worth float64
		at    time.Time
	}
	reads := func() []read {
		var out []read
		for _, rd := range r.l.Reads(r.clock.Now()) {
			out = append(out, read{rd.Unit, rd.Range, rd.Worth, rd.At})
		}
		return out
	}
	if got, want := reads(), []read{{base, day(1), 0.05, time.Time{}}, {base, day(2), 0.02, time.Time{}}}; !slices.Equal(got, want) {
		t.Fatalf("before any data: %v, want %v", got, want)
	}
	r.settle()
	w3 := Unit{Source: "events", Project: "docs", Window: Window{Name: "3d", Days: 3}}
	audit := client.DateRange{From: day(2).From, To: day(0).From}
	audited := r.clock.Now()
	if got, want := reads(), []read{{w3, audit, 0.5 / 3, audited.Add(24 * time.Hour)}}; !slices.Equal(got, want) {
		t.Fatalf("derived and audited: %v, want %v", got, want)
	}
	src.failDay.Store(true)         // the day that ended stays provisional
	r.clock.Advance(12 * time.Hour) // midnight
	r.settle()
	got := reads()
	if len(got) == 0 || got[0] != (read{base, day(1), 0.05, time.Time{}}) {
		t.Fatalf("after midnight: %v, want the day that ended first", got)
	}
	if last := got[len(got)-1]; last.u != w3 || !last.at.Equal(audited.Add(24*time.Hour)) {
		t.Errorf("after midnight: audit %v, due a day after the last", last)
	}
	r.clock.Advance(11*time.Hour + 30*time.Minute)
	if got := reads(); got[len(got)-1].at != r.clock.Now().Add(time.Hour) {
		t.Errorf("an audit due while a day is provisional: %v, want due in an hour", got[len(got)-1])
	}
}

// TestRestoredDaysAreChecked: a restored day's series an answer could not
// have given are dropped, with one warning; a page day without the
// site-wide family stands for no totals day, which is read.
func TestRestoredDaysAreChecked(t *testing.T) {
	first, _ := newSplitRig(t, nil)
	first.settle()
	var pages []Day
	for _, d := range first.l.Days() {
		if !d.Site {
			d.Families = map[string][]Sample{"test_page_hits": append([]Sample{{Labels: [MaxLabels]string{"/neg"}, Value: -1}}, d.Families["test_page_hits"]...)}
			pages = append(pages, d)
		}
	}
	first.e.Close()
	second, src := newSplitRig(t, pages)
	second.settle()
	if n := second.logLines("dropped series of the cache file's day store that an API answer could not have given; the rest is restored\" series=6"); n != 1 {
		t.Errorf("%d warnings of 6 dropped series:\n%s", n, second.logs)
	}
	if n := src.closed.Load(); n != 6 {
		t.Errorf("%d closed days read, want the 6 of the totals", n)
	}
	if st := second.state("hits/docs/7d:site"); st.Summary != "derived: 6 closed days and today" {
		t.Errorf("7d:site: %q", st.Summary)
	}
}
