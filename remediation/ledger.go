package remediation

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"

	"github.com/mintlify-exporter/mintlify_exporter/statefile"
)

// LedgerSuffix is appended to --cache.file to name the ledger's file.
const LedgerSuffix = ".remediation"

// MaxLedgerBytes caps what is read of the ledger: tens of thousands of keys of about 300 bytes.
const MaxLedgerBytes = 16 << 20

const (
	ledgerFormat  = "mintlify_exporter/remediation"
	ledgerVersion = 1
)

// Entry is what the ledger remembers of one key: the job created for it
// and when the key last acted.
type Entry struct {
	Key     string `json:"key"`
	Rule    string `json:"rule"`
	Project string `json:"project"`
	// JobID is the job created for the key; "" when the creation's answer
	// never came (then Ended is set and the cooldown applies).
	JobID string `json:"jobId,omitempty"`
	// Created is when the job was asked for.
	Created time.Time `json:"created"`
	// Pending is true from just before the create request until its answer
	// is recorded: an entry still pending after a restart may have created
	// a job, so it is treated as ended at Created.
	Pending bool `json:"pending,omitempty"`
	// Messaged is when the last follow-up message was sent (zero: none).
	Messaged time.Time `json:"messaged"`
	// Ended is when the job was first seen completed, archived or failed
	// (zero while it is active).
	Ended time.Time `json:"ended"`
	// Values fingerprints the alert's annotations last acted on: a
	// follow-up needs new values.
	Values string `json:"values"`
}

func (e *Entry) lastAction() time.Time {
	return slices.MaxFunc([]time.Time{e.Created, e.Messaged}, time.Time.Compare)
}

// action is one job created or message sent, for the caps.
type action struct {
	Project string    `json:"project"`
	At      time.Time `json:"at"`
}

type ledgerFile struct {
	Format  string   `json:"format"`
	Version int      `json:"version"`
	Entries []*Entry `json:"entries"`
	Actions []action `json:"actions"`
}

// ledger holds the entries by key and the actions of the last day; with
// a path, every change is written before the next request is sent.
type ledger struct {
	path    string
	entries map[string]*Entry
	actions []action
}

// openLedger reads the ledger at path ("" keeps it in memory only), after
// removing the temporary files a kill during a save left. A missing file is
// empty; an unreadable one is an error, since starting without it could create a second
// job for a key. Times after now (a wrong clock) are clamped to now, so an action dated
// years ahead cannot keep a project capped until then.
func openLedger(path string, now time.Time, logger log.Logger) (*ledger, error) {
	l := &ledger{path: path, entries: map[string]*Entry{}}
	if path == "" {
		return l, nil
	}
	statefile.CleanTemp(path, " of the remediation ledger", logger)
	b, err := statefile.ReadLimited(path, MaxLedgerBytes)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return l, nil
	case err != nil:
		return nil, err
	}
	var f ledgerFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: corrupt remediation ledger: %v; move it away to start with an empty one (the jobs it lists may then be created again)", path, err)
	}
	if f.Format != ledgerFormat || f.Version != ledgerVersion {
		return nil, fmt.Errorf("%s: not a remediation ledger of this version (format %q, version %d)", path, f.Format, f.Version)
	}
	var times []*time.Time // to clamp
	for _, e := range f.Entries {
		if e == nil || e.Key == "" {
			continue
		}
		if e.Pending && e.Ended.IsZero() { // the answer of its create request was never recorded
			e.Ended = e.Created
		}
		e.Pending = false
		l.entries[e.Key] = e
		times = append(times, &e.Created, &e.Messaged, &e.Ended)
	}
	l.actions = f.Actions
	for i := range l.actions {
		times = append(times, &l.actions[i].At)
	}
	clamped := 0
	for _, t := range times {
		if t.After(now) {
			*t, clamped = now, clamped+1
		}
	}
	if clamped > 0 {
		level.Warn(logger).Log("msg", "times from the future in the remediation ledger were set to now (was the clock wrong?)", "file", path, "times", clamped)
	}
	l.prune(now)
	return l, nil
}

func (l *ledger) prune(now time.Time) {
	l.actions = slices.DeleteFunc(l.actions, func(a action) bool { return now.Sub(a.At) >= 24*time.Hour })
}

func (l *ledger) count(project string, now time.Time, d time.Duration) int {
	n := 0
	for _, a := range l.actions {
		if a.Project == project && now.Sub(a.At) < d {
			n++
		}
	}
	return n
}

func (l *ledger) save() error {
	if l.path == "" {
		return nil
	}
	f := ledgerFile{Format: ledgerFormat, Version: ledgerVersion, Actions: l.actions, Entries: l.sorted()}
	if err := statefile.WriteJSON(l.path, f); err != nil {
		return fmt.Errorf("write remediation ledger: %w", err)
	}
	return nil
}

func (l *ledger) sorted() []*Entry {
	return slices.SortedFunc(maps.Values(l.entries), func(a, b *Entry) int { return strings.Compare(a.Key, b.Key) })
}
