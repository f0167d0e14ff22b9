package derived

// The arithmetic of derived windows: closed days, the day store, which day
// to read next, and drift.

import (
	"maps"
	"math"
	"slices"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
)

// The derived windows' tuning.
const (
	RereadAfter = 24 * time.Hour // after a day ends, it is read again for late events
	MaxDrift    = 0.01           // above it, a window is read directly
)

// SumFamily adds up the samples of family i over the days (a Summer's
// results), those with equal labels into one, in order of first appearance.
func SumFamily(days []*engine.Result, i int) []engine.Sample {
	var out []engine.Sample
	at := map[[engine.MaxLabels]string]int{}
	for _, d := range days {
		if i >= len(d.Samples) {
			continue
		}
		for _, s := range d.Samples[i] {
			if j, ok := at[s.Labels]; ok {
				out[j].Value += s.Value
				continue
			}
			at[s.Labels] = len(out)
			out = append(out, s)
		}
	}
	return out
}

// ClosedDays returns the n-1 days before today, oldest first.
func ClosedDays(n int, now time.Time) []client.Date {
	today := client.DateOf(now)
	var out []client.Date
	// A range over a count: no mutation of it loops for ever (make mutate).
	for i := range n - 1 {
		out = append(out, today.AddDays(i+1-n))
	}
	return out
}

// RereadDue reports whether day, read once, is due its second read at now.
func RereadDue(day client.Date, now time.Time) bool {
	return !now.Before(day.AddDays(1).Time().Add(RereadAfter))
}

// Drift is |direct-summed| / max(|direct|, |summed|), 0 when equal.
func Drift(direct, summed float64) float64 {
	if direct == summed {
		return 0
	}
	return math.Abs(direct-summed) / math.Max(math.Abs(direct), math.Abs(summed))
}

// Key names one closed day of one source's 1d unit.
type Key struct {
	Source  string
	Project string
	Site    bool
	Day     client.Date
}

// Entry is one closed day in the store.
type Entry[R any] struct {
	Result      R
	ReadAt      time.Time
	Reread      bool // read RereadAfter or more after it ended: final
	Provisional bool // the day just ended, from its 1d unit, until read
}

// Store is the day store.
type Store[R any] map[Key]*Entry[R]

// Put stores a day read at readAt; reread says it was its second read.
func (s Store[R]) Put(k Key, r R, readAt time.Time, reread bool) {
	s[k] = &Entry[R]{Result: r, ReadAt: readAt, Reread: reread || RereadDue(k.Day, readAt)}
}

// KeepProvisional stores r as k's provisional entry unless k is stored.
func (s Store[R]) KeepProvisional(k Key, r R, readAt time.Time) {
	if s[k] == nil {
		s[k] = &Entry[R]{Result: r, ReadAt: readAt, Provisional: true}
	}
}

// Covers reports whether every key is stored, provisional or not.
func (s Store[R]) Covers(keys []Key) bool {
	return !slices.ContainsFunc(keys, func(k Key) bool { return s[k] == nil })
}

// Unsettled reports whether one of keys is provisional or due its second
// read: stored, and still a task.
func (s Store[R]) Unsettled(keys []Key, now time.Time) bool {
	return slices.ContainsFunc(s.Tasks(keys, now), func(t Task) bool { return s[t.Key] != nil })
}

// Prune drops the days not in keep.
func (s Store[R]) Prune(keep map[Key]bool) {
	maps.DeleteFunc(s, func(k Key, _ *Entry[R]) bool { return !keep[k] })
}

// Task is a closed day to read.
type Task struct {
	Key    Key
	Reread bool // its second read
}

// Tasks lists the days of want to read: missing or provisional ones newest
// first (the newest feeds every window), then those due a second read.
func (s Store[R]) Tasks(want []Key, now time.Time) []Task {
	var out []Task
	seen := map[Key]bool{}
	for _, k := range want {
		if e := s[k]; !seen[k] && (e == nil || e.Provisional || !e.Reread && RereadDue(k.Day, now)) {
			out = append(out, Task{Key: k, Reread: e != nil && !e.Provisional})
		}
		seen[k] = true
	}
	slices.SortStableFunc(out, func(a, b Task) int {
		if a.Reread != b.Reread { // missing days first
			return map[bool]int{false: -1, true: 1}[a.Reread]
		}
		return b.Key.Day.Time().Compare(a.Key.Day.Time())
	})
	return out
}
