package stream_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/stream"
)

// TestHistoryEventTime: History counts by created_at whatever the key
// order (the object named first holds the later events), drops a
// duplicate and the events outside the range, and emits every series'
// cumulative value at each step from the one after its first event.
func TestHistoryEventTime(t *testing.T) {
	store := newMemStore()
	at := func(d time.Duration) string { return t0.Add(d).Format(time.RFC3339) }
	late := view("e3", "/b")
	late.created = at(90 * time.Minute)
	dup := late
	dup.stringPayload = true
	before := view("e0", "/a")
	before.created = at(-time.Minute) // before the range
	first, second := view("e1", "/a"), view("e2", "/a")
	first.created, second.created = at(10*time.Minute), at(70*time.Minute)
	store.put("a.jsonl", t0, lines(late, dup), "")
	store.put("b.jsonl", t0, lines(before, first, second), "")

	var got []string
	emit := func(when time.Time, ss []stream.Sample) error {
		for _, s := range ss {
			if s.Name == "mintlify_stream_page_views_total" {
				got = append(got, fmt.Sprintf("%s %v=%v %v", when.Sub(t0), s.Labels, s.Values, s.Value))
			}
		}
		return nil
	}
	cfg := stream.Config{Store: store, Projects: map[string]string{"acme": "p1"}}
	stats, err := stream.History(context.Background(), cfg, t0, t0.Add(150*time.Minute), time.Hour, emit)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"1h0m0s [project path traffic]=[p1 /a human] 1",
		"2h0m0s [project path traffic]=[p1 /a human] 2",
		"2h0m0s [project path traffic]=[p1 /b human] 1",
		"2h30m0s [project path traffic]=[p1 /a human] 2",
		"2h30m0s [project path traffic]=[p1 /b human] 1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("samples:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if stats.Events != 3 || stats.Duplicates != 1 || stats.OutOfRange != 1 || stats.Objects != 2 || stats.Lines != 5 {
		t.Errorf("stats %+v: want 3 events, 1 duplicate, 1 out of range, 2 objects, 5 lines", stats)
	}
}

// TestHistoryErrors: a bad step or range, and a store error, each end the
// history with one line naming what to fix.
func TestHistoryErrors(t *testing.T) {
	store := newMemStore()
	cfg := stream.Config{Store: store}
	nop := func(time.Time, []stream.Sample) error { return nil }
	ctx := context.Background()
	if _, err := stream.History(ctx, cfg, t0, t0.Add(time.Hour), 0, nop); err == nil || !strings.Contains(err.Error(), "step") {
		t.Errorf("step 0: %v", err)
	}
	if _, err := stream.History(ctx, cfg, t0, t0, time.Minute, nop); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("empty range: %v", err)
	}
	store.listErr = fmt.Errorf("list: AccessDenied: %w", stream.ErrAccessDenied)
	if _, err := stream.History(ctx, cfg, t0, t0.Add(time.Hour), time.Minute, nop); err == nil || !strings.Contains(err.Error(), "access denied to --stream.s3.bucket") || strings.Contains(err.Error(), "\n") {
		t.Errorf("access denied: %v", err)
	}
}
