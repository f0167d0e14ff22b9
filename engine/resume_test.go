package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
)

// restartHourly runs an engine with one walk of cost requests at 20 an
// hour, restarted every hour from the state the last one left (through
// JSON, as the cache file holds it), for hours; it returns the hour in
// which the walk first completed (-1: never) and the requests the walk
// sent in all. Every sliding hour holds the budget across restarts.
func restartHourly(t *testing.T, cost, hours int, edit func(*State)) (completedIn, sent int, logs string) {
	t.Helper()
	var state *State
	now := t0 // noon UTC: every hour of the test is one day
	completedIn = -1
	for hour := range hours {
		var src *memSource
		r := newRig(t, rigOptions{perHour: 20, projects: []string{"docs"}, windows: []string{"1d"}, start: now, restore: state},
			func(b *budget.Budget) Source {
				src = newMemSource("walk", b)
				src.step, src.cost["docs/1d"] = true, cost // before New, which resumes the walk
				return src
			})
		r.e.Start()
		r.settle()
		for range 60 {
			r.clock.Advance(time.Minute)
			r.settle()
			if used := r.b.Used(); used > 20 {
				t.Fatalf("hour %d: %d requests in the last hour, over 20", hour, used)
			}
		}
		if completedIn < 0 && src.count("docs", "1d") > 0 {
			completedIn = hour
		}
		logs += r.logs.String()
		st := r.e.State()
		sent += len(st.Ledger) // the last hour's requests: this run's
		b, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		state = new(State)
		if err := json.Unmarshal(b, state); err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			edit(state)
		}
		now = r.clock.Now()
		r.e.Close()
	}
	return completedIn, sent, logs
}

// TestWalkResumesAfterRestart: an exporter restarted every hour (a crash
// loop, a rollout schedule) completes a walk of 50 requests at 20 an hour
// (two and a half hours of budget) by its third hour: each restart
// resumes the walk the cache file holds. Without it every restart began
// the walk again and it never completed.
func TestWalkResumesAfterRestart(t *testing.T) {
	hour, sent, _ := restartHourly(t, 50, 6, nil)
	if hour < 0 || hour > 2 {
		t.Errorf("the walk completed in hour %d of 6 (-1: never), want within its third", hour)
	}
	t.Logf("completed in hour %d; %d requests sent in 6 hours", hour, sent)
}

// TestStaleWalkIsNotResumed: a walk whose progress the cache file says
// began too long ago (yesterday, or 12 hours ago: past the age at which
// the engine starts a long walk again), or after the clock, starts again
// rather than resuming, so a walk over changing data is not stitched
// together across a day; it then never completes within the hour.
func TestStaleWalkIsNotResumed(t *testing.T) {
	for name, tc := range map[string]struct {
		shift time.Duration
		why   string
	}{
		"yesterday":     {-24 * time.Hour, "not today (UTC)"},
		"in the future": {2 * time.Hour, "not before now"},
		"too old":       {-11 * time.Hour, "too old to finish consistently"},
	} {
		t.Run(name, func(t *testing.T) {
			hour, _, logs := restartHourly(t, 50, 4, func(st *State) {
				for i := range st.Walks {
					st.Walks[i].Started = st.Walks[i].Started.Add(tc.shift)
				}
			})
			if hour != -1 {
				t.Errorf("the walk completed in hour %d: a walk started %s was resumed", hour, name)
			}
			if !strings.Contains(logs, tc.why) {
				t.Errorf("no line saying the walk is %q:\n%s", tc.why, logs)
			}
		})
	}
}
