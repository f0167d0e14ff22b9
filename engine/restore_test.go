package engine

import (
	"testing"
	"time"
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
