package engine

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// TestRestoredDataIsServed: the cache file's data is served from New on,
// before any request; a unit whose data names a family the source does not
// export, or a series with more labels than its family, is ignored with a
// warning naming the unit.
func TestRestoredDataIsServed(t *testing.T) {
	good := restored("one", "a", "1d", t0.Add(-5*time.Minute), 1)
	unknown := restored("one", "b", "1d", t0.Add(-5*time.Minute), 1)
	unknown.Families["test_one_other"] = []Sample{{Value: 2}}
	labelled := restored("one", "c", "1d", t0.Add(-5*time.Minute), 1)
	labelled.Families["test_one_fetches"][0].Labels[0] = "extra"
	r, src := oneUnit(t, rigOptions{projects: []string{"a", "b", "c"}, windows: []string{"1d"},
		restore: &State{Units: []UnitData{good, unknown, labelled}}})
	want := `# HELP test_one_fetches Fetches of the unit.
# TYPE test_one_fetches gauge
test_one_fetches{project="a",window="1d"} 1
`
	if got := r.text(); got != want {
		t.Fatalf("exposition after New:\n%s\nwant:\n%s", got, want)
	}
	var ignored []string
	for _, rec := range logRecords(t, r, "ignoring a unit of the cache file") {
		ignored = append(ignored, rec["unit"])
	}
	if len(ignored) != 2 || ignored[0] != "one/b/1d" || ignored[1] != "one/c/1d" {
		t.Errorf("units ignored: %v, want [one/b/1d one/c/1d]", ignored)
	}
	if n := len(src.fetched()); n != 0 {
		t.Errorf("%d fetches before Start", n)
	}
}

// TestRestoreDropsWhatNoAnswerCouldGive: series of the cache file that no
// API answer could have given (negative, NaN, a repeated series) are
// dropped and counted in one warning; zero counts are kept; the refresh
// duration is kept as written, NaN or negative as 0; the log says how many
// units were restored. A clean file logs no warning.
func TestRestoreDropsWhatNoAnswerCouldGive(t *testing.T) {
	var lab *memSource
	mk := func(b *budget.Budget) Source { lab = newMemSource("lab", b); lab.fixed = 1; return labelled{lab, 1} }
	unit := func(project string, dur float64, values ...float64) UnitData {
		d := restored("lab", project, "1d", t0.Add(-5*time.Minute), 1)
		d.DurationSeconds = dur
		d.Families["test_lab_fetches"] = nil
		for i, v := range values {
			d.Families["test_lab_fetches"] = append(d.Families["test_lab_fetches"], Sample{Labels: [MaxLabels]string{string(rune('a' + i))}, Value: v})
		}
		return d
	}
	dup := unit("c", -1, 4)
	dup.Families["test_lab_fetches"] = append(dup.Families["test_lab_fetches"], dup.Families["test_lab_fetches"][0])
	r := newRig(t, rigOptions{perHour: 90, projects: []string{"a", "b", "c"}, windows: []string{"1d"},
		restore: &State{Units: []UnitData{unit("a", 2.5, 0, -1, 3), unit("b", math.NaN(), math.NaN(), 2), dup}}}, mk)
	want := `# HELP test_lab_fetches Fetches of the unit.
# TYPE test_lab_fetches gauge
test_lab_fetches{l0="a",project="a",window="1d"} 0
test_lab_fetches{l0="c",project="a",window="1d"} 3
test_lab_fetches{l0="b",project="b",window="1d"} 2
test_lab_fetches{l0="a",project="c",window="1d"} 4
`
	if got := r.text(); got != want {
		t.Errorf("exposition after New:\n%s\nwant:\n%s", got, want)
	}
	if recs := logRecords(t, r, "dropped series of the cache file"); len(recs) != 1 || recs[0]["series"] != "3" {
		t.Errorf("drop warnings: %v, want one with series=3", recs)
	}
	if recs := logRecords(t, r, "restored state from the cache file"); len(recs) != 1 || recs[0]["units"] != "3" {
		t.Errorf("restore lines: %v, want one with units=3", recs)
	}
	durations := map[string]float64{}
	for _, u := range r.e.State().Units {
		durations[u.Project] = u.DurationSeconds
	}
	if durations["a"] != 2.5 || durations["b"] != 0 || durations["c"] != 0 {
		t.Errorf("durations kept: %v, want a 2.5, b 0 (NaN), c 0 (negative)", durations)
	}

	clean := newRig(t, rigOptions{perHour: 90, projects: []string{"a"}, windows: []string{"1d"},
		restore: &State{Units: []UnitData{unit("a", 1, 1)}}}, mk)
	if n := clean.logLines("dropped series"); n != 0 {
		t.Errorf("a clean cache file: %d drop warnings:\n%s", n, clean.logs)
	}
}

// siteSource is a splitSource with a site-wide family before its own.
type siteSource struct{ splitSource }

func (s siteSource) Families() []Family {
	return append([]Family{{Name: "test_site_total", Help: "Site-wide.", SiteWide: true}}, s.memSource.Families()...)
}

// TestRestoreFromBeforeTheSplit: a cache file written before windows were
// split into site totals and a page walk holds the totals in the walk's
// data; they stand in for the totals unit's, unless the file has the
// totals unit's own data.
func TestRestoreFromBeforeTheSplit(t *testing.T) {
	whole := func(project string, total float64) UnitData {
		d := restored("site", project, "1d", t0.Add(-5*time.Minute), 3)
		d.Families["test_site_total"] = []Sample{{Value: total}}
		return d
	}
	totals := restored("site", "b", "1d:site", t0.Add(-time.Minute), 1)
	delete(totals.Families, "test_site_fetches")
	totals.Families["test_site_total"] = []Sample{{Value: 9}}
	r := newRig(t, rigOptions{perHour: 90, projects: []string{"a", "b"}, windows: []string{"1d"},
		restore: &State{Units: []UnitData{whole("a", 7), whole("b", 7), totals}}},
		func(b *budget.Budget) Source { s := newMemSource("site", b); return siteSource{splitSource{s}} })
	want := `# HELP test_site_total Site-wide.
# TYPE test_site_total gauge
test_site_total{project="a",window="1d"} 7
test_site_total{project="b",window="1d"} 9
# HELP test_site_fetches Fetches of the unit.
# TYPE test_site_fetches gauge
test_site_fetches{project="a",window="1d"} 1
test_site_fetches{project="b",window="1d"} 1
`
	if got := r.text(); got != want {
		t.Errorf("exposition after New:\n%s\nwant:\n%s", got, want)
	}
	for _, p := range []string{"a", "b"} {
		if st := r.state("site/" + p + "/1d:site"); st.Completed.IsZero() {
			t.Errorf("site/%s/1d:site has no data after the restore: %s", p, describe(st))
		}
	}
}

// resumeCosts is a memSource walk source that records the prevCost each
// resumed walk is given.
type resumeCosts struct {
	*memSource
	got map[string]int
}

func (s resumeCosts) Resume(u Unit, p client.WalkProgress, prev int) (Walk, error) {
	s.mu.Lock()
	s.got[u.Project] = prev
	s.mu.Unlock()
	return s.memSource.Resume(u, p, prev)
}

// TestResumedWalks: the cache file's walks in progress are resumed, each
// told its unit's last cost (0 without data), and the restore line counts
// them; a summary is kept up to 256 bytes and cut after.
func TestResumedWalks(t *testing.T) {
	walk := func(project string) WalkData {
		rng := client.LastNDays(t0, 1)
		return WalkData{Source: "walk", Project: project, Window: "1d", Started: t0.Add(-10 * time.Minute),
			Progress: client.WalkProgress{Endpoint: "visitors", Project: project + "/1d", From: rng.From.String(), To: rng.To.String(), PageSize: 1, Pages: 2}}
	}
	long := strings.Repeat("x", 256)
	a := restored("walk", "a", "1d", t0.Add(-time.Hour), 6)
	a.Summary = long
	b := restored("walk", "b", "1d", t0.Add(-time.Hour), 6)
	b.Summary = long + "y"
	var src *memSource
	got := map[string]int{}
	r := newRig(t, rigOptions{perHour: 90, projects: []string{"a", "b", "c"}, windows: []string{"1d"},
		restore: &State{Units: []UnitData{a, b}, Walks: []WalkData{walk("a"), walk("c")}}},
		func(b *budget.Budget) Source {
			src = newMemSource("walk", b)
			src.step = true
			for _, p := range []string{"a", "b", "c"} {
				src.cost[p+"/1d"] = 6
			}
			return resumeCosts{src, got}
		})
	if recs := logRecords(t, r, "restored state from the cache file"); len(recs) != 1 || recs[0]["walks_resumed"] != "2" {
		t.Errorf("restore lines: %v, want one with walks_resumed=2", recs)
	}
	src.mu.Lock()
	if got["a"] != 6 || got["c"] != 0 || len(got) != 2 {
		t.Errorf("prevCost of the resumed walks: %v, want a 6 and c 0", got)
	}
	src.mu.Unlock()
	if s := r.state("walk/a/1d").Summary; s != long {
		t.Errorf("a summary of 256 bytes was restored as %q", s)
	}
	if s := r.state("walk/b/1d").Summary; s != long+"…" {
		t.Errorf("a summary of 257 bytes was restored as %q, want its 256 bytes and …", s)
	}
	r.e.Start()
	r.settle()
	if used := r.b.Used(); used != 4+4+6 {
		t.Errorf("%d requests, want 14: the 4 pages left of a's and c's walks, and b's whole walk", used)
	}
}
