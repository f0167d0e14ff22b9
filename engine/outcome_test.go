package engine

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logfmt/logfmt"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// logRecords returns the rig's log lines whose msg starts with prefix, as
// key-value maps.
func logRecords(t *testing.T, r *rig, prefix string) []map[string]string {
	t.Helper()
	var out []map[string]string
	d := logfmt.NewDecoder(strings.NewReader(r.logs.String()))
	for d.ScanRecord() {
		rec := map[string]string{}
		for d.ScanKeyval() {
			rec[string(d.Key())] = string(d.Value())
		}
		if strings.HasPrefix(rec["msg"], prefix) {
			out = append(out, rec)
		}
	}
	if err := d.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRateLimitPausesGrow: 429 answers without a usable Retry-After (none,
// or 0) pause every analytics request 2 minutes, then 4, then 8 while
// they go on; data resets the pause to 2 minutes.
func TestRateLimitPausesGrow(t *testing.T) {
	r, src := oneUnit(t, rigOptions{projects: []string{"docs"}, windows: []string{"1d"}})
	r.e.Start()
	r.settle()
	src.setFail("docs", "1d", &client.APIError{Endpoint: client.EndpointVisitors, StatusCode: 429, Message: "Too Many Requests"})
	r.clock.Advance(15 * time.Minute)
	for i, want := range []time.Duration{2 * time.Minute, 4 * time.Minute, 8 * time.Minute} {
		r.settle()
		if got := r.b.PausedUntil().Sub(r.clock.Now()); got != want {
			t.Fatalf("429 number %d: paused %s, want %s", i+1, got, want)
		}
		if i == 2 {
			// Before the clock moves: the worker may send at once.
			src.setFail("docs", "1d", nil)
		}
		r.clock.Advance(want) // the unit goes again when the pause ends
	}
	r.settle()
	if !r.st.Up("docs", "one") {
		t.Fatal("no data after the pauses")
	}
	src.setFail("docs", "1d", rateLimited(0)) // Retry-After: 0 is no pause
	r.clock.Advance(15 * time.Minute)
	r.settle()
	if got := r.b.PausedUntil().Sub(r.clock.Now()); got != 2*time.Minute {
		t.Fatalf("a 429 with Retry-After: 0 after data: paused %s, want 2m0s", got)
	}
}

// TestFirstRoundLogAgreesWithTheLandingPage: the line that says the first
// round waits for the budget (ten one-request units, six requests an
// hour) counts the units the landing page shows waiting without data, and
// expects all data when the last of them is expected.
func TestFirstRoundLogAgreesWithTheLandingPage(t *testing.T) {
	var src *memSource
	r := newRig(t, rigOptions{perHour: 6, projects: []string{"a", "b", "c", "d", "e"}, windows: []string{"1d", "7d"}},
		fetchSource(&src, "one", 1))
	r.e.Start()
	r.settle()
	recs := logRecords(t, r, "the first round of refreshes needs more requests")
	if len(recs) != 1 {
		t.Fatalf("%d first-round lines, want 1:\n%s", len(recs), r.logs)
	}
	waiting, last := 0, time.Time{}
	for _, st := range r.e.States() {
		if st.State == StateWaiting && st.Completed.IsZero() {
			waiting++
			last = maxTime(last, st.Next)
		}
	}
	if waiting != 4 {
		t.Errorf("%d units wait for their first data, want 4", waiting)
	}
	if got, want := recs[0]["units_waiting"], strconv.Itoa(waiting); got != want {
		t.Errorf("units_waiting=%s, want %s", got, want)
	}
	if got, want := recs[0]["all_data_by"], last.UTC().Format(time.RFC3339); got != want {
		t.Errorf("all_data_by=%s, want %s", got, want)
	}
}
