// Package statefile persists the engine's state (--cache.file): the last
// good data of every unit and the analytics request ledger, so that a
// restart serves data at once, sends no request until a refresh is due, and
// keeps counting the budget's hour. It knows the engine's State and nothing
// of the sources.
//
// The file is JSON with a format name and version. It is written to a
// temporary file in the same directory, synced and renamed over the old one,
// so a crash leaves the old or the new file, never a mix. A file that is
// corrupt, truncated, or of another format or version is ignored with a
// warning. Saving is debounced (Saver): bursts of refreshes are written
// once, off the engine's worker, and at most Delay after the first change.
package statefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"

	"github.com/mintlify-exporter/mintlify_exporter/engine"
)

// Format and Version identify the file; a file with other values is ignored.
// Version 1 held visitors only; version 2 holds every source's units.
const (
	Format  = "mintlify_exporter/state"
	Version = 2
)

// File is the content of the file.
type File struct {
	Format  string    `json:"format"`
	Version int       `json:"version"`
	SavedAt time.Time `json:"savedAt"`
	engine.State
}

// Write writes f to path atomically: temporary file, fsync, rename.
func Write(path string, f File) error {
	f.Format, f.Version = Format, Version
	if err := WriteJSON(path, f); err != nil {
		return fmt.Errorf("write cache file: %w", err)
	}
	return nil
}

// WriteJSON writes v as JSON to path atomically, as Write does: a
// temporary file next to it (path.tmp-*, which CleanTemp removes), fsync,
// rename, and a sync of the directory where the filesystem allows. The
// remediation ledger beside the cache file is written this way too.
func WriteJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeAtomic(path, append(b, '\n'))
}

// CleanTemp removes the temporary files an interrupted save of the cache
// file or of its budget journal left next to path (path.tmp-*,
// path.ledger.tmp-*: a process killed between creating and renaming one).
// It returns the names removed. Call it at start, before any save.
func CleanTemp(path string) ([]string, error) {
	var removed []string
	var errs []error
	for _, pattern := range []string{path + ".tmp-*", path + JournalSuffix + ".tmp-*"} {
		names, err := filepath.Glob(globEscape(filepath.Dir(pattern)) + string(filepath.Separator) + globEscape(filepath.Base(pattern[:len(pattern)-1])) + "*")
		if err != nil {
			return removed, err
		}
		for _, n := range names {
			if fi, err := os.Lstat(n); err != nil || !fi.Mode().IsRegular() {
				continue // only regular files are ours
			}
			if err := os.Remove(n); err != nil {
				errs = append(errs, err)
				continue
			}
			removed = append(removed, filepath.Base(n))
		}
	}
	return removed, errors.Join(errs...)
}

// globEscape quotes the metacharacters of filepath.Match in s.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// MaxCacheBytes caps what is read of a cache file: decoding it costs
// several times its size in memory, so a larger file would not fit the
// deployment's 256 MiB (a 500 MB file, sparse or not, took 516-593 MB of
// RSS at every start); it is refused unread. What the file holds the
// exporter also holds in memory while it runs, so a file it wrote in a
// deployment that fits is far smaller.
const MaxCacheBytes = 64 << 20

// ErrForeign is returned by Read for a file of another format or version.
var ErrForeign = errors.New("not a mintlify_exporter state file of this version")

// Read reads and checks the file at path. The engine checks each unit
// again against its sources when it restores them.
func Read(path string) (File, error) {
	var f File
	b, err := readLimited(path, MaxCacheBytes)
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return File{}, fmt.Errorf("corrupt cache file: %w", err)
	}
	if f.Format != Format || f.Version != Version {
		return File{}, fmt.Errorf("%w (format %q, version %d)", ErrForeign, f.Format, f.Version)
	}
	for i, u := range f.Units {
		if u.Completed.IsZero() || u.Source == "" || u.Project == "" || u.Window == "" {
			return File{}, fmt.Errorf("corrupt cache file: unit %d is incomplete", i)
		}
	}
	return f, nil
}

// Load returns the state saved at path, or nil when there is none or it
// cannot be used (logged). An empty path disables it.
func Load(path string, logger log.Logger) *engine.State {
	if path == "" {
		return nil
	}
	if removed, err := CleanTemp(path); err != nil {
		level.Warn(logger).Log("msg", "could not remove a temporary file left by an interrupted save", "file", path, "err", err)
	} else if len(removed) > 0 {
		level.Info(logger).Log("msg", "removed temporary files left by an interrupted save", "files", strings.Join(removed, ","))
	}
	f, err := Read(path)
	if errors.Is(err, os.ErrNotExist) {
		level.Info(logger).Log("msg", "no cache file yet; it will be written after the first refresh", "file", path)
		return nil
	}
	if err != nil {
		level.Warn(logger).Log("msg", "ignoring the cache file; starting without it", "file", path, "err", err)
		return nil
	}
	level.Info(logger).Log("msg", "read the cache file", "file", path, "units", len(f.Units),
		"saved_at", f.SavedAt.UTC().Format(time.RFC3339))
	return &f.State
}

// DefaultDelay is how long a Saver waits after a change before it writes:
// refreshes that end close together are written once, and a crash loses
// at most this much, far less than one refresh interval.
const DefaultDelay = 30 * time.Second

// Saver writes the state to one path at most once per Delay after a
// change, on its own goroutine, never on the engine's worker. A Saver with
// an empty path does nothing.
type Saver struct {
	path   string
	state  func() engine.State
	logger log.Logger
	now    func() time.Time
	delay  time.Duration

	// after schedules f after d (time.AfterFunc; tests fire it by hand).
	after func(d time.Duration, f func()) stopper

	mu     sync.Mutex
	timer  stopper
	closed bool
	saves  int
	writes sync.Mutex // serializes writes of the file
}

// NewSaver returns a Saver of the state returned by state, written to
// path ("" disables it) DefaultDelay after a change.
func NewSaver(path string, state func() engine.State, logger log.Logger) *Saver {
	if logger == nil {
		logger = log.NewNopLogger()
	}
	return &Saver{path: path, state: state, logger: logger, now: time.Now, delay: DefaultDelay, after: afterFunc}
}

// stopper is a scheduled save that may be cancelled.
type stopper interface{ Stop() bool }

func afterFunc(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) }

// SetDelay changes the debounce delay (tests shorten it).
func (s *Saver) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// Changed schedules a save, unless one is already scheduled.
func (s *Saver) Changed() {
	if s.path == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.timer != nil {
		return
	}
	s.timer = s.after(s.delay, func() {
		s.mu.Lock()
		s.timer = nil
		closed := s.closed
		s.mu.Unlock()
		if !closed {
			s.Save()
		}
	})
}

// Save writes the state now; a failure is logged.
func (s *Saver) Save() {
	if s.path == "" {
		return
	}
	s.writes.Lock()
	defer s.writes.Unlock()
	f := File{SavedAt: s.now(), State: s.state()}
	if err := Write(s.path, f); err != nil {
		level.Error(s.logger).Log("msg", "could not save the cache file", "file", s.path, "err", err)
		return
	}
	s.mu.Lock()
	s.saves++
	s.mu.Unlock()
}

// Saves returns how many times the file was written.
func (s *Saver) Saves() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.saves
}

// Close cancels a scheduled save and writes the state one last time.
func (s *Saver) Close() {
	s.mu.Lock()
	s.closed = true
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	s.mu.Unlock()
	s.Save()
}
