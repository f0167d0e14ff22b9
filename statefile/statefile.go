// Package statefile persists the exporter's last good visitors snapshots
// and its analytics request ledger (--cache.file), so that a restart serves
// data at once, sends no request until a refresh is due, and keeps counting
// the budget's hour.
//
// The file is JSON with a format name and version. It is written to a
// temporary file in the same directory, synced and renamed over the old one,
// so a crash leaves the old or the new file, never a mix. A file that is
// corrupt, truncated, or of another format or version is ignored with a
// warning.
package statefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/collector"
)

// Format and Version identify the file; a file with other values is ignored.
const (
	Format  = "mintlify_exporter/state"
	Version = 1
)

// State is the content of the file.
type State struct {
	Format      string      `json:"format"`
	Version     int         `json:"version"`
	SavedAt     time.Time   `json:"savedAt"`
	Ledger      []time.Time `json:"ledger"`
	PausedUntil time.Time   `json:"pausedUntil"`
	Snapshots   []Snapshot  `json:"snapshots"`
}

// Snapshot is one persisted visitors snapshot.
type Snapshot struct {
	Project   string                `json:"project"`
	Window    string                `json:"window"`
	DateFrom  string                `json:"dateFrom"`
	DateTo    string                `json:"dateTo"`
	Totals    client.Counts         `json:"totals"`
	Rows      []client.PathVisitors `json:"rows"`
	Returned  int                   `json:"returned"`
	Pages     int                   `json:"pages"`
	Completed time.Time             `json:"completed"`
	Duration  float64               `json:"durationSeconds"`
}

// Write writes st to path atomically: temporary file, fsync, rename.
func Write(path string, st State) error {
	st.Format, st.Version = Format, Version
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write cache file: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	enc := json.NewEncoder(tmp)
	if err := enc.Encode(st); err != nil {
		tmp.Close()
		return fmt.Errorf("write cache file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write cache file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write cache file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write cache file: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // make the rename durable where the filesystem allows
		d.Close()
	}
	return nil
}

// ErrForeign is returned by Read for a file of another format or version.
var ErrForeign = errors.New("not a mintlify_exporter state file of this version")

// Read reads and checks the file at path.
func Read(path string) (State, error) {
	var st State
	b, err := os.ReadFile(path)
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return State{}, fmt.Errorf("corrupt cache file: %w", err)
	}
	if st.Format != Format || st.Version != Version {
		return State{}, fmt.Errorf("%w (format %q, version %d)", ErrForeign, st.Format, st.Version)
	}
	for i, s := range st.Snapshots {
		if _, err := client.ParseDate(s.DateFrom); err != nil {
			return State{}, fmt.Errorf("corrupt cache file: snapshot %d: %w", i, err)
		}
		if _, err := client.ParseDate(s.DateTo); err != nil {
			return State{}, fmt.Errorf("corrupt cache file: snapshot %d: %w", i, err)
		}
		if s.Completed.IsZero() || s.Project == "" || s.Window == "" {
			return State{}, fmt.Errorf("corrupt cache file: snapshot %d is incomplete", i)
		}
	}
	return st, nil
}

// Cache saves and loads the exporter's state at one path. A Cache with an
// empty path does nothing.
type Cache struct {
	path   string
	logger log.Logger
	now    func() time.Time
	mu     sync.Mutex
}

// New returns the cache of the file at path ("" disables it).
func New(path string, logger log.Logger) *Cache {
	if logger == nil {
		logger = log.NewNopLogger()
	}
	return &Cache{path: path, logger: logger, now: time.Now}
}

// Save persists the current snapshots and ledger; a failure is logged.
func (c *Cache) Save(v *collector.Visitors, b *collector.Budget) {
	if c.path == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	sent, paused := b.Ledger()
	st := State{SavedAt: c.now(), Ledger: sent, PausedUntil: paused}
	for _, s := range v.Snapshots() {
		st.Snapshots = append(st.Snapshots, Snapshot{
			Project: s.Project, Window: s.Window,
			DateFrom: s.Range.From.String(), DateTo: s.Range.To.String(),
			Totals: s.Totals, Rows: s.Rows, Returned: s.Returned, Pages: s.Pages,
			Completed: s.Completed, Duration: s.Duration.Seconds(),
		})
	}
	if err := Write(c.path, st); err != nil {
		level.Error(c.logger).Log("msg", "could not save the cache file", "file", c.path, "err", err)
	}
}

// Load restores the file's snapshots and ledger, if the file exists and is
// valid; otherwise it logs why it was ignored.
func (c *Cache) Load(v *collector.Visitors, b *collector.Budget) {
	if c.path == "" {
		return
	}
	st, err := Read(c.path)
	if errors.Is(err, os.ErrNotExist) {
		level.Info(c.logger).Log("msg", "no cache file yet; it will be written after the first refresh", "file", c.path)
		return
	}
	if err != nil {
		level.Warn(c.logger).Log("msg", "ignoring the cache file; starting without it", "file", c.path, "err", err)
		return
	}
	b.Restore(st.Ledger, st.PausedUntil)
	snaps := make([]collector.Snapshot, 0, len(st.Snapshots))
	for _, s := range st.Snapshots {
		from, _ := client.ParseDate(s.DateFrom) // checked by Read
		to, _ := client.ParseDate(s.DateTo)
		snaps = append(snaps, collector.Snapshot{
			Project: s.Project, Window: s.Window, Range: client.DateRange{From: from, To: to},
			Totals: s.Totals, Rows: s.Rows, Returned: s.Returned, Pages: s.Pages,
			Completed: s.Completed, Duration: time.Duration(s.Duration * float64(time.Second)),
		})
	}
	n := v.Restore(snaps)
	level.Info(c.logger).Log("msg", "restored state from the cache file", "file", c.path,
		"snapshots", n, "ledger_requests_last_hour", b.Used(), "saved_at", st.SavedAt.UTC().Format(time.RFC3339))
}
