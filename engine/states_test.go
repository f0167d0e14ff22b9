package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/health"
)

// TestStatesWhileTheBudgetIsSpent: what the landing page shows of units
// that wait for the budget. Two projects at 6 requests an hour, each with
// a one-request unit and a walk of 10 pages whose size nothing tells (4
// assumed): the one-request units go first, then project a's walk for the
// 4 requests left. Then a's walk waits with its progress (4 pages so far,
// more than the 4 guessed) and comes first in the rule's
// order; b's walk waits for the 4 requests it is assumed to cost; the
// one-request units, due again 15 minutes later, wait for 1 request each.
// Every unit's interval runs from its data to its expected refresh, on
// the landing page and in mintlify_refresh_interval_seconds.
func TestStatesWhileTheBudgetIsSpent(t *testing.T) {
	var walk, one *memSource
	r := newRig(t, rigOptions{perHour: 6, projects: []string{"a", "b"}, windows: []string{"1d"}},
		func(b *budget.Budget) Source { walk = newMemSource("walk", b); walk.step = true; return walk },
		func(b *budget.Budget) Source { one = newMemSource("one", b); one.fixed = 1; return one })
	walk.setCost("a", "1d", 10)
	walk.setCost("b", "1d", 10)
	r.e.Start()
	r.settle()

	a, b := r.state("walk/a/1d"), r.state("walk/b/1d")
	if a.State != StateWaiting || !a.Refreshing || a.Progress != "4 pages so far, more than the 4 estimated" ||
		a.Deferred != "waiting for the request budget; its walk has 4 pages so far, more than the 4 estimated" || !strings.HasPrefix(a.Rank, "1 of 2 (worth ") {
		t.Errorf("walk/a/1d: %s\nwant waiting, refreshing, at 4 pages so far, first of 2 in the rule's order", describe(a))
	}
	if b.State != StateWaiting || b.Refreshing || b.Progress != "" ||
		b.Deferred != "waiting for the request budget (4 requests)" || !strings.HasPrefix(b.Rank, "2 of 2 (worth ") {
		t.Errorf("walk/b/1d: %s\nwant waiting for 4 requests, not refreshing, second of 2 in the rule's order", describe(b))
	}
	for _, name := range []string{"one/a/1d", "one/b/1d"} {
		if st := r.state(name); st.State != StateOK || st.Refreshing || st.Rank != "" || st.Deferred != "" || st.Part != "" {
			t.Errorf("%s: %s, part %q\nwant ok, not refreshing, not due, not part of a split window", name, describe(st), st.Part)
		}
	}

	r.clock.Advance(15 * time.Minute)
	r.settle()
	var exp strings.Builder
	exp.WriteString("# HELP mintlify_refresh_interval_seconds Interval between refreshes the exporter plans for the unit.\n# TYPE mintlify_refresh_interval_seconds gauge\n")
	for _, st := range r.e.States() {
		if st.Source == "walk" {
			fmt.Fprintf(&exp, "mintlify_refresh_interval_seconds{part=%q,project=%q,source=%q,window=\"1d\"} 900\n", health.PartAll, st.Project, st.Source)
			continue
		}
		if want := "waiting for the request budget (1 request)"; st.State != StateWaiting || st.Refreshing || st.Deferred != want {
			t.Errorf("%s 15 minutes on: %s\nwant waiting, %q", st.Unit, describe(st), want)
		}
		if st.Interval <= 15*time.Minute || st.Interval != st.Next.Sub(st.Completed).Round(time.Second) {
			t.Errorf("%s: interval %s, want from its data (%s) to its expected refresh (%s), more than the refresh interval",
				st.Unit, st.Interval, st.Completed.Format(time.TimeOnly), st.Next.Format(time.TimeOnly))
		}
		fmt.Fprintf(&exp, "mintlify_refresh_interval_seconds{part=%q,project=%q,source=%q,window=\"1d\"} %g\n", health.PartAll, st.Project, st.Source, st.Interval.Seconds())
	}
	if err := testutil.CollectAndCompare(r.st, strings.NewReader(exp.String()), "mintlify_refresh_interval_seconds"); err != nil {
		t.Error(err)
	}
}

// describe is what the landing page shows of st.
func describe(st UnitState) string {
	return fmt.Sprintf("state %s, refreshing %v, progress %q, deferred %q, rank %q", st.State, st.Refreshing, st.Progress, st.Deferred, st.Rank)
}

// twoFamilies is a memSource that declares a second family its results
// leave out, or, for project "empty", give without series.
type twoFamilies struct{ *memSource }

func (s twoFamilies) Families() []Family {
	return append(s.memSource.Families(), Family{Name: "test_" + s.name + "_other", Help: "Never with series."})
}

func (s twoFamilies) Fetch(ctx context.Context, u Unit, r client.DateRange, prev int) (*Result, error) {
	res, err := s.memSource.Fetch(ctx, u, r, prev)
	if err == nil && u.Project == "empty" {
		res.Samples = append(res.Samples, nil)
	}
	return res, err
}

// TestResultWithoutItsLastFamilies: a source may return fewer families
// than it declares, or a family without series; neither is exported nor
// kept in the cache file.
func TestResultWithoutItsLastFamilies(t *testing.T) {
	r := newRig(t, rigOptions{perHour: 90, projects: []string{"docs", "empty"}, windows: []string{"1d"}},
		func(b *budget.Budget) Source { s := newMemSource("two", b); s.fixed = 1; return twoFamilies{s} })
	r.e.Start()
	r.settle()
	want := `# HELP test_two_fetches Fetches of the unit.
# TYPE test_two_fetches gauge
test_two_fetches{project="docs",window="1d"} 1
test_two_fetches{project="empty",window="1d"} 1
`
	if got := r.text(); got != want {
		t.Fatalf("exposition:\n%s\nwant:\n%s", got, want)
	}
	st := r.e.State()
	if len(st.Units) != 2 {
		t.Fatalf("%d units in the state, want 2", len(st.Units))
	}
	for _, u := range st.Units {
		if got := slices.Sorted(maps.Keys(u.Families)); !slices.Equal(got, []string{"test_two_fetches"}) {
			t.Errorf("%s/%s/%s keeps the families %v, want [test_two_fetches]", u.Source, u.Project, u.Window, got)
		}
	}
}

// TestOKUnitsPromiseComesTrue: an ok unit's "next refresh about" is the
// rule's, not only its refresh interval. Five projects of one-request
// units (1d and 7d) at 4 requests an hour: the first hour reads four 1d
// units; their next refresh, due 15 minutes later, waits for the hour's
// room and for the six units without data, which are worth more. Every
// promise made a minute in comes true within the budget's pace margin.
func TestOKUnitsPromiseComesTrue(t *testing.T) {
	var one *memSource
	r := newRig(t, rigOptions{perHour: 4, projects: []string{"a", "b", "c", "d", "e"}, windows: []string{"1d", "7d"}},
		fetchSource(&one, "one", 1))
	r.e.Start()
	r.settle()
	r.clock.Advance(time.Minute)
	r.settle()
	promised := map[string]time.Time{}
	for _, st := range r.e.States() {
		if st.State == StateOK {
			promised[st.Unit.String()] = st.Next
			if st.Next.Before(t0.Add(time.Hour)) {
				t.Errorf("%s: next refresh about %s, before the hour has room (%s)", st.Unit, st.Next.Format(time.TimeOnly),
					t0.Add(time.Hour).Format(time.TimeOnly))
			}
		}
	}
	if len(promised) != 4 {
		t.Fatalf("%d ok units a minute in, want 4", len(promised))
	}
	done := map[string]time.Time{}
	for now := r.clock.Now(); now.Before(t0.Add(4 * time.Hour)); now = r.clock.Now() {
		r.clock.Advance(time.Minute)
		r.settle()
		for _, st := range r.e.States() {
			if _, ok := promised[st.Unit.String()]; ok && done[st.Unit.String()].IsZero() && st.Completed.After(t0.Add(time.Minute)) {
				done[st.Unit.String()] = st.Completed
			}
		}
	}
	for u, at := range promised {
		if got := done[u]; got.IsZero() || got.Before(at.Add(-time.Minute)) || got.After(at.Add(budget.PaceMargin+time.Minute)) {
			t.Errorf("%s: promised about %s, refreshed at %s", u, at.Format(time.TimeOnly), got.Format(time.TimeOnly))
		}
	}
}
