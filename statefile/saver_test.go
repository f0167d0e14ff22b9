package statefile

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/engine"
)

// manualTimers records the saves a Saver schedules, on timers that do not
// fire: the test fires them by hand.
type manualTimers struct {
	mu     sync.Mutex
	delays []time.Duration
	fire   []func()
	timers []*time.Timer
}

func (m *manualTimers) after(d time.Duration, f func()) *time.Timer {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.delays = append(m.delays, d)
	m.fire = append(m.fire, f)
	m.timers = append(m.timers, time.AfterFunc(time.Hour, func() {}))
	return m.timers[len(m.timers)-1]
}

// stopped reports whether the i-th timer was stopped (it never fires).
func (m *manualTimers) stopped(i int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return !m.timers[i].Stop()
}

func (m *manualTimers) scheduled() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.fire)
}

// TestSaverDebounces: a burst of changes schedules one save, after the
// delay; Close cancels a scheduled save and writes the last state; a change
// after Close schedules nothing, and a save that fires after Close writes
// nothing.
func TestSaverDebounces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	t0 := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	ledger := []time.Time{t0}
	s := NewPartsSaver(path, Parts{Engine: func() engine.State { return engine.State{Ledger: append([]time.Time(nil), ledger...)} }}, nil)
	timers := &manualTimers{}
	s.after = timers.after
	// saved is the ledger length in the file, -1 when there is none.
	saved := func() int {
		f, err := Read(path)
		if err != nil {
			return -1
		}
		return len(f.Ledger)
	}
	for range 100 {
		s.Changed()
	}
	if timers.scheduled() != 1 || timers.delays[0] != DefaultDelay || saved() != -1 {
		t.Fatalf("a burst of 100 changes scheduled %d saves (delays %v) and wrote a file with %d entries, want one save after %s, none yet",
			timers.scheduled(), timers.delays, saved(), DefaultDelay)
	}
	timers.fire[0]()
	if saved() != 1 {
		t.Fatalf("the scheduled save left a file with %d entries, want 1", saved())
	}
	s.Changed()
	if timers.scheduled() != 2 {
		t.Fatal("a change after a save scheduled nothing")
	}
	ledger = append(ledger, t0.Add(time.Minute))
	s.Close()
	if stopped := timers.stopped(1); saved() != 2 || !stopped {
		t.Fatalf("after Close: the file holds %d entries, pending save stopped %v; want the last state (2) saved and the pending save stopped",
			saved(), stopped)
	}
	s.Changed()
	if timers.scheduled() != 2 {
		t.Fatal("a change after Close scheduled a save")
	}
	ledger = append(ledger, t0.Add(2*time.Minute))
	timers.fire[1]() // a timer that fired as Close stopped it
	if saved() != 2 {
		t.Fatal("a save that fired after Close wrote the file")
	}
}
