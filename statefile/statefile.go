// Package statefile keeps, in --cache.file, the engine's State, the day
// store of derived windows and the event stream's snapshot, so that a restart
// serves data at once, and the budget journal beside it. Files are replaced
// atomically; one that is corrupt or of another format or version is ignored, with a warning.
package statefile

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"

	"github.com/mintlify-exporter/mintlify_exporter/derived"
	"github.com/mintlify-exporter/mintlify_exporter/engine"
)

// Format and Version identify the file; a file with other values is ignored.
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
	// Days is the day store of derived windows (package derived).
	Days []derived.Day `json:"days,omitempty"`
	// Stream is the event-stream source's snapshot (checkpoint, counters,
	// sketches), opaque here: the source validates it when it restores it.
	Stream json.RawMessage `json:"stream,omitempty"`
}

// Write writes f to path atomically: temporary file, fsync, rename.
func Write(path string, f File) error {
	f.Format, f.Version = Format, Version
	if err := WriteJSON(path, f); err != nil {
		return fmt.Errorf("write cache file: %w", err)
	}
	return nil
}

// WriteJSON writes v as JSON to path atomically, as Write does (the
// remediation ledger is written this way too).
func WriteJSON(path string, v any) error {
	return WriteFile(path, 0o600, func(w io.Writer) error { return json.NewEncoder(w).Encode(v) })
}

// CleanTemp removes the temporary files an interrupted save of the file at
// path (the cache file, its journal or lock file; the remediation ledger)
// left next to it, and logs what it removed and what it could not; of names
// the file in the log message (" of the remediation ledger"; "" for the cache
// file). Call it at start, before any save.
func CleanTemp(path, of string, logger log.Logger) {
	dir, base := filepath.Split(path)
	entries, _ := os.ReadDir(filepath.Clean(dir)) // a directory that cannot be read holds nothing to clean
	var removed []string
	var errs []error
	for _, e := range entries {
		n := e.Name()
		ours := slices.ContainsFunc([]string{"", JournalSuffix, LockSuffix}, func(suffix string) bool { return strings.HasPrefix(n, base+suffix+".tmp-") })
		if !ours || !e.Type().IsRegular() { // only regular files are ours
			continue
		}
		if err := os.Remove(filepath.Join(dir, n)); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, n)
	}
	if len(errs) > 0 {
		level.Warn(logger).Log("msg", "could not remove a temporary file left by an interrupted save"+of, "file", path, "err", errors.Join(errs...))
	}
	if len(removed) > 0 {
		level.Info(logger).Log("msg", "removed temporary files left by an interrupted save"+of, "files", strings.Join(removed, ","))
	}
}

// MaxCacheBytes caps what is read of a cache file: decoding costs several
// times its size, so a larger one would not fit the deployment's 256 MiB (a
// 500 MB file took 516-593 MB of RSS); a file the exporter wrote is far smaller.
const MaxCacheBytes = 64 << 20

// Read reads and checks the file at path; the engine checks each unit again.
func Read(path string) (File, error) {
	var f File
	b, err := ReadLimited(path, MaxCacheBytes)
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return File{}, fmt.Errorf("corrupt cache file: %w", err)
	}
	if f.Format != Format || f.Version != Version {
		return File{}, fmt.Errorf("not a mintlify_exporter state file of this version (format %q, version %d)", f.Format, f.Version)
	}
	for i, u := range f.Units {
		if u.Completed.IsZero() || u.Source == "" || u.Project == "" || u.Window == "" {
			return File{}, fmt.Errorf("corrupt cache file: unit %d is incomplete", i)
		}
	}
	return f, nil
}

// LoadFile returns the whole file saved at path, the engine's state and the
// stream's snapshot; nil when none, unusable (logged) or path is "".
func LoadFile(path string, logger log.Logger) *File {
	if path == "" {
		return nil
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
		"stream", len(f.Stream) > 0, "saved_at", f.SavedAt.UTC().Format(time.RFC3339))
	return &f
}

// DefaultDelay is a Saver's debounce: close refreshes are written once, and
// a crash loses at most this much.
const DefaultDelay = 30 * time.Second

// Saver writes the engine's state and the stream's snapshot, in one file, at
// most once per DefaultDelay after a change, off the engine's worker and the
// stream's poller. With an empty path it does nothing.
type Saver struct {
	path   string
	parts  Parts
	logger log.Logger

	// after schedules f after d (time.AfterFunc; tests fire it by hand).
	after func(d time.Duration, f func()) *time.Timer

	mu     sync.Mutex
	timer  *time.Timer
	closed bool
	writes sync.Mutex // serializes writes of the file
}

// Parts are what a Saver writes; a nil part is written empty, except Stream:
// without it Kept is written (an exporter without --stream.s3.bucket does
// not erase the stream's checkpoint).
type Parts struct {
	// Engine returns the engine's state.
	Engine func() engine.State
	// Days returns the day store of derived windows.
	Days func() []derived.Day
	// Stream returns the event-stream source's snapshot; on an error the
	// save writes the last one taken, else Kept (logged).
	Stream func() (json.RawMessage, error)
	// Kept is the stream section of the file read at start.
	Kept json.RawMessage
}

// NewPartsSaver returns a Saver of the engine's state and the stream's
// snapshot to path ("" disables it).
func NewPartsSaver(path string, parts Parts, logger log.Logger) *Saver {
	logger = cmp.Or(logger, log.NewNopLogger())
	return &Saver{path: path, parts: parts, logger: logger, after: time.AfterFunc}
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
	s.timer = s.after(DefaultDelay, func() {
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
	f := File{SavedAt: time.Now()}
	if s.parts.Engine != nil {
		f.State = s.parts.Engine()
	}
	if s.parts.Days != nil {
		f.Days = s.parts.Days()
	}
	f.Stream = s.streamSection()
	if err := Write(s.path, f); err != nil {
		level.Error(s.logger).Log("msg", "could not save the cache file", "file", s.path, "err", err)
	}
}

// streamSection is the stream part's snapshot, else the last one written;
// the caller holds s.writes.
func (s *Saver) streamSection() json.RawMessage {
	if s.parts.Stream == nil {
		return s.parts.Kept
	}
	b, err := s.parts.Stream()
	if err != nil {
		level.Error(s.logger).Log("msg", "could not take the event stream's snapshot; the cache file keeps the previous one", "err", err)
		return s.parts.Kept
	}
	s.parts.Kept = b
	return b
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
