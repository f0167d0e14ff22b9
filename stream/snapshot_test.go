package stream_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
)

// A SIGKILL between polls, then a restart from the last Snapshot: nothing
// counted twice, nothing skipped.
func TestCrashAndRestoreCountsExactly(t *testing.T) {
	r := newRig(t, nil)
	id := 0
	object := func(key string, n int) {
		var evs []ev
		for range n {
			id++
			e := view(fmt.Sprintf("id-%04d", id), fmt.Sprintf("/p%d", id%3))
			e.user = fmt.Sprintf("user-%d", id%7)
			evs = append(evs, e)
		}
		evs = append(evs, evs[0]) // a duplicate in each object
		r.put(key, lines(evs...))
	}
	object("k/01", 10)
	object("k/02", 10)
	r.poll()
	snap, err := r.src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	r.clock.Advance(30 * time.Second)
	object("k/04", 10)
	object("k/03", 10) // late
	r.poll()
	// Crash: the second poll's counts were never saved.
	r.clock.Advance(45 * time.Second)
	object("k/05", 5)
	r.src = r.newSource()
	if err := r.src.Restore(snap); err != nil {
		t.Fatal(err)
	}
	r.poll()
	if got := r.value("mintlify_stream_events_total", "project", "proj-acme", "event", "docs.content.view"); got != 45 {
		t.Errorf("events = %v, want 45", got)
	}
	if got := r.value("mintlify_stream_duplicates_dropped_total"); got != 5 {
		t.Errorf("duplicates = %v, want 5", got)
	}
	if got := r.value("mintlify_stream_objects_read_total"); got != 5 {
		t.Errorf("objects = %v, want 5", got)
	}
	if got := r.value("mintlify_stream_visitors", "project", "proj-acme", "window", "1d"); got != 7 {
		t.Errorf("visitors = %v, want 7", got)
	}
	// And a Snapshot round trip keeps the exposition whole.
	snap2, err := r.src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// (but the lag, which only a poll of this process tells).
	before := withoutLag(gatherText(t, r))
	r.src = r.newSource()
	if err := r.src.Restore(snap2); err != nil {
		t.Fatal(err)
	}
	if after := gatherText(t, r); after != before {
		t.Errorf("exposition after Restore differs:\n%s\nwant:\n%s", after, before)
	}
	// Restored, the first start's horizon holds (t0 - look-back): an
	// object modified after it is read, one from before the exporter ever
	// started is not.
	r.store.put("k/06", t0.Add(-30*time.Minute), lines(view("old-1", "/p")), "")
	r.store.put("k/07", t0.Add(-24*time.Hour), lines(view("old-2", "/p")), "")
	r.poll()
	if got := r.value("mintlify_stream_objects_read_total"); got != 6 {
		t.Errorf("objects = %v, want 6", got)
	}
}

func gatherText(t *testing.T, r *rig) string {
	t.Helper()
	mfs, err := prometheusRegistry(t, r.src).Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&b, mf); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// A first start (no snapshot) reads back only --stream.look-back.
func TestFirstStartReadsBackOnlyTheLookBack(t *testing.T) {
	r := newRig(t, nil)
	r.store.put("k/1", t0.Add(-2*time.Hour), lines(view("a", "/a")), "")
	r.store.put("k/2", t0.Add(-30*time.Minute), lines(view("b", "/a")), "")
	r.poll()
	if got := r.value("mintlify_stream_events_total", "project", "proj-acme", "event", "docs.content.view"); got != 1 {
		t.Errorf("events = %v, want 1", got)
	}
	if n := r.logs.CountLines("first start"); n != 1 {
		t.Errorf("%d log lines about the first start, want 1:\n%s", n, r.logs)
	}
}

// A snapshot from a hostile disk is refused whole, with one log line, and
// the state stays as it was.
func TestRestoreRefusesBadSnapshots(t *testing.T) {
	r := newRig(t, nil)
	r.put("k/1", lines(view("a", "/a")))
	r.poll()
	good, err := r.src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(good, &m); err != nil {
		t.Fatal(err)
	}
	edit := func(f func(map[string]any)) string {
		var c map[string]any
		_ = json.Unmarshal(good, &c)
		f(c)
		b, _ := json.Marshal(c)
		return string(b)
	}
	counter := func(metric string, labels []string, v any) func(map[string]any) {
		return func(c map[string]any) {
			c["counters"] = append(c["counters"].([]any), map[string]any{"m": metric, "l": labels, "v": v})
		}
	}
	bad := map[string]string{
		"not json":          `{"version":1,`,
		"an array":          `[]`,
		"null":              `null`,
		"other version":     edit(func(c map[string]any) { c["version"] = 2 }),
		"unknown field":     edit(func(c map[string]any) { c["surprise"] = 1 }),
		"negative counter":  edit(counter("mintlify_stream_objects_read_total", nil, -1)),
		"fraction counter":  edit(counter("mintlify_stream_lines_read_total", nil, 1.5)),
		"huge counter":      edit(counter("mintlify_stream_lines_read_total", nil, 1e300)),
		"unknown metric":    edit(counter("mintlify_up", nil, 1)),
		"too few labels":    edit(counter("mintlify_stream_events_total", []string{"p"}, 1)),
		"control char":      edit(counter("mintlify_stream_events_total", []string{"p", "a\x01b"}, 1)),
		"empty label":       edit(counter("mintlify_stream_events_total", []string{"p", ""}, 1)),
		"format char":       edit(counter("mintlify_stream_events_total", []string{"p", "a\u200bb"}, 1)),
		"twice one series":  edit(counter("mintlify_stream_objects_read_total", nil, 3)),
		"sketch garbage":    edit(func(c map[string]any) { c["sketches"] = []any{map[string]any{"p": "x", "d": 20000, "s": "AAEC"}} }),
		"sketch wrong size": edit(func(c map[string]any) { c["sketches"] = []any{map[string]any{"p": "x", "d": 20000, "s": "AQ4AAAAA"}} }),
		"ids not 16 bytes":  edit(func(c map[string]any) { c["ids"] = []any{map[string]any{"t": 1, "ids": "AAEC"}} }),
		"seen below checkpoint": edit(func(c map[string]any) {
			c["checkpoint"] = "k/9"
		}),
		"key too long": edit(func(c map[string]any) { c["seen"] = []any{map[string]any{"k": strings.Repeat("k", 2000), "t": 1}} }),
	}
	if !testing.Short() { // 257 MiB: the bound of a snapshot's size
		big := bytes.Repeat([]byte("x"), 257<<20)
		copy(big, `{"version":1,"checkpoint":"`)
		if err := r.src.Restore(big); err == nil || !strings.Contains(err.Error(), "bytes, more than") {
			t.Errorf("an oversized snapshot: Restore = %v, want refused for its size", err)
		}
	}
	want := gatherText(t, r)
	for name, b := range bad {
		logged := r.logs.CountLines("refused")
		if err := r.src.Restore(json.RawMessage(b)); err == nil {
			t.Errorf("%s: Restore took it", name)
			continue
		}
		if n := r.logs.CountLines("refused") - logged; n != 1 {
			t.Errorf("%s: %d log lines, want 1: %s", name, n, r.logs)
		}
		if got := gatherText(t, r); got != want {
			t.Errorf("%s: the state changed", name)
		}
	}
	if err := testutil.CollectAndCompare(r.src, strings.NewReader(`
# HELP mintlify_stream_objects_read_total Stream objects read whole and counted.
# TYPE mintlify_stream_objects_read_total counter
mintlify_stream_objects_read_total 1
`), "mintlify_stream_objects_read_total"); err != nil {
		t.Error(err)
	}
}

// Scrapes, Status and Snapshot while polls count (for the race detector),
// and every Snapshot taken meanwhile restores.
func TestScrapesAndSnapshotsDuringPolls(t *testing.T) {
	r := newRig(t, nil)
	done := make(chan struct{})
	snaps := make(chan []byte, 100)
	go func() {
		defer close(snaps)
		for {
			select {
			case <-done:
				return
			default:
			}
			gatherText(t, r)
			_ = r.src.Status()
			if b, err := r.src.Snapshot(); err == nil && len(snaps) < cap(snaps) {
				snaps <- b
			}
		}
	}()
	for i := range 30 {
		r.put(fmt.Sprintf("k/%03d", i), lines(view(fmt.Sprintf("c%d", i), fmt.Sprintf("/p%d", i%4)), view(fmt.Sprintf("d%d", i), "/x")))
		r.poll()
		r.clock.Advance(30 * time.Second)
	}
	close(done)
	for b := range snaps {
		if err := r.newSource().Restore(b); err != nil {
			t.Fatalf("a snapshot taken during polls does not restore: %v", err)
		}
	}
	if got := r.value("mintlify_stream_events_total", "project", "proj-acme", "event", "docs.content.view"); got != 60 {
		t.Errorf("events = %v, want 60", got)
	}
}

func withoutLag(text string) string {
	var keep []string
	for _, l := range strings.SplitAfter(text, "\n") {
		if !strings.Contains(l, "mintlify_stream_lag_seconds") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}
