package derived

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strconv"
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

// t0 is the rigs' start: noon, 29 closed days into March's 30d window.
var t0 = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

type (
	Unit   = engine.Unit
	Result = engine.Result
	Sample = engine.Sample
	Family = engine.Family
	Window = engine.Window
)

const MaxLabels = engine.MaxLabels

// daySource is an additive source whose count of a day is 100 plus the
// day's number in the month, and of a range the sum of its days. With
// shift set, a range of several days is counted as the API would if its
// day boundary were not UTC midnight: 5 % more.
type daySource struct {
	b       *budget.Budget
	now     func() time.Time
	shift   atomic.Bool
	fetches atomic.Int64
	days    atomic.Int64 // fetches of one closed day
	late    atomic.Int64 // events of the day before t0 counted late: added to every read of it
	failDay atomic.Bool  // reads of one closed day fail
}

func (s *daySource) Name() string { return "events" }
func (s *daySource) Families() []Family {
	return []Family{{Name: "test_events", Help: "Events.", Labels: []string{"kind"}}}
}
func (s *daySource) Supports(Window) bool  { return true }
func (s *daySource) EstimateCost(Unit) int { return 1 }
func (s *daySource) Additive(Unit) bool    { return true }
func (s *daySource) Sum(_ Unit, days []*Result) *Result {
	return &Result{Samples: [][]Sample{SumFamily(days, 0)}}
}

func (s *daySource) Fetch(ctx context.Context, _ Unit, r client.DateRange, _ int) (*Result, error) {
	if err := s.b.Allow(ctx, client.EndpointViews); err != nil {
		return nil, err
	}
	s.fetches.Add(1)
	v, n := 0.0, 0
	lateDay := client.DateOf(t0).AddDays(-1)
	for d := r.From; d.Time().Before(r.To.Time()); d = d.AddDays(1) { // an inverted range (a mutant) ends at once
		v += float64(100 + d.Time().Day())
		if d == lateDay {
			v += float64(s.late.Load())
		}
		n++
	}
	if n == 1 && !r.To.Time().After(s.now()) {
		if s.failDay.Load() {
			return nil, errors.New("closed day unavailable")
		}
		s.days.Add(1)
	}
	if n > 1 && s.shift.Load() {
		v *= 1.05
	}

	return &Result{Samples: [][]Sample{{{Labels: [MaxLabels]string{"a"}, Value: v}, {Labels: [MaxLabels]string{"b"}, Value: float64(n)}}}, Cost: 1}, nil
}

// rig is an engine of one source with derived windows on a manual clock.
type rig struct {
	t     *testing.T
	clock *mintlifytest.Clock
	e     *engine.Engine
	l     *Layer
	logs  *logbuf.Buffer
}

func newDayRig(t *testing.T, shift bool) (*rig, *daySource) {
	r, src := newDayRigOf(t, 1000, nil, "1d", "7d", "30d")
	src.shift.Store(shift)
	return r, src
}

// newDayRigOf is an engine of the day source with derived windows, for
// project docs, perHour and windows, from the day store days.
func newDayRigOf(t *testing.T, perHour int, days []Day, windows ...string) (*rig, *daySource) {
	t.Helper()
	clock := mintlifytest.NewClock(t0)
	src := &daySource{b: budget.New(perHour, clock.Now), now: clock.Now}
	var ws []Window
	for _, w := range windows {
		win, err := engine.ParseWindow(w)
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, win)
	}
	r := &rig{t: t, clock: clock, logs: &logbuf.Buffer{}}
	logger := log.NewLogfmtLogger(r.logs)
	r.l = New(Config{Logger: logger, Days: days})
	var err error
	r.e, err = engine.New(engine.Config{Sources: []engine.Source{src}, Projects: []string{"docs"}, Windows: ws, MinInterval: 15 * time.Minute,
		Budget: src.b, Status: health.NewStatus(), Now: clock.Now, WaitUntil: clock.WaitUntil, Logger: logger, Layer: r.l})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.e.Close)
	return r, src
}

// settle waits, in real time, until the worker sleeps having seen the
// clock as it is.
func (r *rig) settle() {
	r.t.Helper()
	r.e.Start()
	r.e.Touch()
	if !r.clock.Settle(1, 30*time.Second) {
		r.t.Fatalf("the engine did not settle in 30 s: %+v", r.e.States())
	}
}

// state returns the state of one unit by its name ("source/project/window").
func (r *rig) state(name string) engine.UnitState {
	r.t.Helper()
	for _, s := range r.e.States() {
		if s.Unit.String() == name {
			return s
		}
	}
	r.t.Fatalf("no unit %s", name)
	return engine.UnitState{}
}

// text is the current exposition.
func (r *rig) text() string {
	var b bytes.Buffer
	_ = r.e.Exposition().WriteText(&b)
	return b.String()
}

// logLines counts the log lines that contain s.
func (r *rig) logLines(s string) int { return strings.Count(r.logs.String(), s) }

// TestDerivedWindowsFromTheDayStore: 29 closed days are read once each;
// 7d and 30d are then the sums of their days and today's 1d unit, as fresh
// as it, at no request of their own; their audit finds no drift.
func TestDerivedWindowsFromTheDayStore(t *testing.T) {
	r, src := newDayRig(t, false)
	r.settle()
	if n := src.days.Load(); n != 29 {
		t.Fatalf("%d closed days read, want 29", n)
	}
	for w, closed := range map[string]int{"7d": 6, "30d": 29} {
		st := r.state("events/docs/" + w)
		if want := "derived: " + strconv.Itoa(closed) + " closed days and today"; st.Summary != want {
			t.Fatalf("%s: summary %q, want %q", w, st.Summary, want)
		}
		if !st.Completed.Equal(r.state("events/docs/1d").Completed) {
			t.Errorf("%s completed at %s, its 1d unit at %s: want as fresh", w, st.Completed, r.state("events/docs/1d").Completed)
		}
	}
	// 30d is the sum of 101..109 (Feb 9 to 28) and so on: as a direct read.
	want := 0.0
	for d := t0.AddDate(0, 0, -29); !d.After(t0); d = d.AddDate(0, 0, 1) {
		want += float64(100 + d.Day())
	}
	if got := r.text(); !strings.Contains(got, "test_events{kind=\"a\",project=\"docs\",window=\"30d\"} "+trimFloat(want)+"\n") {
		t.Errorf("30d is not the sum of its days (%v):\n%s", want, got)
	}
	// The audits found no drift.
	drift := `
# HELP mintlify_derived_window_drift_ratio Relative difference between the last direct read of a derived window and the sum of its days.
# TYPE mintlify_derived_window_drift_ratio gauge
mintlify_derived_window_drift_ratio{project="docs",source="events",window="30d"} 0
mintlify_derived_window_drift_ratio{project="docs",source="events",window="7d"} 0
`
	if err := testutil.CollectAndCompare(r.l, strings.NewReader(drift), "mintlify_derived_window_drift_ratio"); err != nil {
		t.Error(err)
	}
	// An hour on: the 1d unit refreshes, and so do both derived windows,
	// without a request of theirs.
	before := src.fetches.Load()
	r.clock.Advance(time.Hour)
	r.settle()
	if n := src.fetches.Load() - before; n != 1 {
		t.Errorf("%d requests an hour later, want 1 (the 1d unit)", n)
	}
	if !r.state("events/docs/30d").Completed.Equal(r.clock.Now()) {
		t.Errorf("30d not re-derived with the 1d unit")
	}
}

// TestDerivedWindowAuditFallsBack: when the days do not add up to the
// window (the API draws day boundaries elsewhere), the audit's drift is
// exported, a warning says why, and the window is read directly again.
func TestDerivedWindowAuditFallsBack(t *testing.T) {
	r, _ := newDayRig(t, true)
	r.settle()
	for _, w := range []string{"7d", "30d"} {
		st := r.state("events/docs/" + w)
		if strings.HasPrefix(st.Summary, "derived") {
			t.Errorf("%s is still derived after a drift of 5 %%", w)
		}
	}
	if n := r.logLines("a derived window does not add up"); n != 2 {
		t.Errorf("%d warnings, want one per window:\n%s", n, r.logs)
	}
	if !strings.Contains(r.text(), `test_events{kind="a",project="docs",window="30d"} `) {
		t.Fatal("no 30d data")
	}
	r.l.mu.Lock()
	var got float64
	for _, w := range r.l.windows {
		if w.Window.Name == "30d" {
			got = w.drift
		}
	}
	r.l.mu.Unlock()
	if got <= MaxDrift || got > 0.05 {
		t.Errorf("drift %v, want above %v and at most 0.05", got, MaxDrift)
	}
}

// TestDerivedDayReadAgain: a closed day is read a second time a day after
// it ended; a change (events counted late) is counted and summed.
func TestDerivedDayReadAgain(t *testing.T) {
	r, src := newDayRig(t, false)
	r.settle()
	read := src.days.Load()
	src.late.Store(7)
	r.clock.Advance(24 * time.Hour) // a new day closed; yesterday's is due its second read
	r.settle()
	if n := src.days.Load() - read; n != 2 {
		t.Errorf("%d closed-day reads after a day, want 2: the new day and the second read of the day before", n)
	}
	if got := testutil.ToFloat64(r.l.dayChanges.WithLabelValues("events")); got != 1 {
		t.Errorf("mintlify_derived_day_changes_total = %v, want 1", got)
	}
	// Across the rollover the windows stayed derived and as fresh as 1d.
	for _, w := range []string{"7d", "30d"} {
		st := r.state("events/docs/" + w)
		if !strings.HasPrefix(st.Summary, "derived") || !st.Completed.Equal(r.state("events/docs/1d").Completed) {
			t.Errorf("%s after the rollover: %q (%s), completed %s, 1d completed %s", w, st.Summary, st.State, st.Completed, r.state("events/docs/1d").Completed)
		}
	}
}

// TestDerivedWindowsStayFreshAcrossMidnight: at the rollover the 1d unit's
// last data of the day that ended stands in for it until the day is read,
// so the derived windows move with the 1d unit and add up.
func TestDerivedWindowsStayFreshAcrossMidnight(t *testing.T) {
	r, src := newDayRig(t, false)
	r.settle()
	r.clock.Advance(12*time.Hour - time.Minute) // 23:59
	r.settle()
	reads := src.days.Load()
	src.failDay.Store(true)          // the day reads fail and back off
	r.clock.Advance(2 * time.Minute) // 00:01
	r.settle()
	if n := src.days.Load() - reads; n != 0 {
		t.Fatalf("%d day reads while they are held back", n)
	}
	for _, w := range []string{"7d", "30d"} {
		st := r.state("events/docs/" + w)
		if !strings.HasPrefix(st.Summary, "derived") || !st.Completed.Equal(r.state("events/docs/1d").Completed) {
			t.Errorf("%s after midnight: %q, completed %s; 1d completed %s", w, st.Summary, st.Completed, r.state("events/docs/1d").Completed)
		}
	}
	r.l.mu.Lock()
	provisional := 0
	for _, de := range r.l.days {
		if de.Provisional {
			provisional++
		}
	}
	r.l.mu.Unlock()
	if provisional != 1 {
		t.Errorf("%d provisional days, want 1 (the day that ended)", provisional)
	}
	if days := r.l.Days(); len(days) != 28 {
		t.Errorf("%d days persisted, want 28 (the 30d window's closed days but the provisional one)", len(days))
	}
}

func trimFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// TestTwoDayWindowIsDerived: the shortest derivable window, 2d, is its one
// closed day and today; 1d is the base, never derived.
func TestTwoDayWindowIsDerived(t *testing.T) {
	r, _ := newDayRigOf(t, 1000, nil, "1d", "2d")
	r.settle()
	if st := r.state("events/docs/2d"); st.Summary != "derived: 1 closed days and today" {
		t.Errorf("2d: summary %q, want it derived from its one closed day", st.Summary)
	}
	if st := r.state("events/docs/1d"); strings.HasPrefix(st.Summary, "derived") {
		t.Errorf("1d is derived: %q", st.Summary)
	}
}

// TestClosedWithinIsClosedDays: the restore's check of a day against a
// window, membership of ClosedDays, agrees with the closed days' definition.
func TestClosedWithinIsClosedDays(t *testing.T) {
	now := time.Date(2026, 3, 10, 23, 59, 0, 0, time.UTC)
	today := client.DateOf(now)
	for _, n := range []int{1, 2, 7, 30, engine.MaxWindowDays} {
		closed := ClosedDays(n, now)
		for d := -engine.MaxWindowDays - 2; d <= 2; d++ {
			day := today.AddDays(d)
			// the restore's check (slices.Contains) against the definition
			within := day.Time().Before(today.Time()) && !day.Time().Before(today.AddDays(-(n - 1)).Time())
			if got, want := slices.Contains(closed, day), within; got != want {
				t.Errorf("n=%d, day %s: %v, want %v", n, day, got, want)
			}
		}
	}
}
