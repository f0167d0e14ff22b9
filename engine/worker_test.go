package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// TestWalkGoesOnAfterA429: a walk whose page is answered 429 keeps the
// pages it had: when the pause ends it sends the refused page again and
// completes, rather than starting over.
func TestWalkGoesOnAfterA429(t *testing.T) {
	var src *memSource
	r := newRig(t, rigOptions{perHour: 90, projects: []string{"docs"}, windows: []string{"1d"}},
		func(b *budget.Budget) Source { src = newMemSource("walk", b); src.step = true; return src })
	src.setCost("docs", "1d", 5)
	src.setFail("docs", "1d", rateLimited(10*time.Minute)) // its last page
	r.e.Start()
	r.settle()
	if r.st.Up("docs", "walk") || r.b.PausedUntil().IsZero() {
		t.Fatal("the 429 did not fail the refresh and pause the budget")
	}
	src.setFail("docs", "1d", nil)
	r.clock.Advance(10 * time.Minute)
	r.settle()
	if src.count("docs", "1d") != 1 || !r.st.Up("docs", "walk") {
		t.Fatalf("the walk did not complete after the pause: %s", describe(r.state("walk/docs/1d")))
	}
	if used := r.b.Used(); used != 6 {
		t.Errorf("%d requests, want 6: the walk's 5 and the refused page again", used)
	}
}

// totalsSource is a siteSource whose walks read the site totals (42) on
// their first page.
type totalsSource struct{ siteSource }

func (s totalsSource) Begin(u Unit, r client.DateRange, prev int) (Walk, error) {
	w, err := s.memSource.Begin(u, r, prev)
	if w == nil || err != nil {
		return w, err
	}
	return &totalsWalk{memWalk: w.(*memWalk)}, nil
}

// newTotalsRig is a rig over a totalsSource whose walks, of its first
// project and window, have cost pages.
func newTotalsRig(t *testing.T, o rigOptions, cost int) *rig {
	var src *memSource
	r := newRig(t, o, func(b *budget.Budget) Source {
		src = newMemSource("site", b)
		src.step = true
		return totalsSource{siteSource{splitSource{src}}}
	})
	src.setCost(o.projects[0], o.windows[0], cost)
	return r
}

type totalsWalk struct{ *memWalk }

func (w *totalsWalk) Totals() *Result {
	if w.sent == 0 {
		return nil
	}
	return &Result{Samples: [][]Sample{{{Value: 42}}}, Cost: w.sent}
}

// TestWalkRefreshesItsTotals: a page walk's first page brings the site
// totals; they become the window's totals unit's data at once, without a
// request of its own, when newer than its data.
func TestWalkRefreshesItsTotals(t *testing.T) {
	totals := restored("site", "docs", "1d:site", t0.Add(-10*time.Minute), 1)
	delete(totals.Families, "test_site_fetches")
	totals.Families["test_site_total"] = []Sample{{Value: 7}}
	pages := restored("site", "docs", "1d", t0.Add(-time.Hour), 3)
	delete(pages.Families, "test_site_total")
	r := newTotalsRig(t, rigOptions{perHour: 90, projects: []string{"docs"}, windows: []string{"1d"},
		restore: &State{Units: []UnitData{totals, pages}}}, 3)
	r.e.Start()
	r.settle()
	if !strings.Contains(r.text(), "test_site_total{project=\"docs\",window=\"1d\"} 42\n") {
		t.Errorf("the walk's totals are not exported:\n%s", r.text())
	}
	if st := r.state("site/docs/1d:site"); !st.Completed.Equal(t0) {
		t.Errorf("the totals unit's data is of %s, want the walk's first page at %s", st.Completed.Format(time.TimeOnly), t0.Format(time.TimeOnly))
	}
	if used := r.b.Used(); used != 3 {
		t.Errorf("%d requests, want the walk's 3", used)
	}
}
