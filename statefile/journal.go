package statefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/filewatch"
)

// JournalSuffix is appended to --cache.file to name the budget journal.
const JournalSuffix = ".ledger"

// maxJournalLines is the least line count that triggers a compaction.
const maxJournalLines = 4096

// MaxJournalBytes caps what is read of a journal: a larger file is not one
// the exporter wrote.
const MaxJournalBytes = 4 << 20

// Journal is the budget's append-only ledger beside the cache file. Every
// request and pause is synced to it before the request is sent, so a crash
// loop cannot exceed the budget. Lines are "s UNIXNANO" (sent), "u UNIXNANO"
// (that request failed before connecting: not spent) and "p UNIXNANO"
// (paused until); others are skipped. It is compacted to the last hour when
// opened and when it grows long.
type Journal struct {
	mu    sync.Mutex
	path  string
	f     *os.File
	now   func() time.Time
	sent  []time.Time // ascending: what a compaction keeps
	pause time.Time
	lines int
	// compactAt is the line count of the next compaction: twice what
	// the last kept, so a large budget does not rewrite at every request.
	compactAt int
	// Held, set to FileLock.Held before use, is checked by every Spent,
	// which refuses to record (so the request is not sent) when it fails:
	// an exporter whose lock file was removed or replaced must not spend.
	Held func() error
}

// JournalState is what a journal held when it was opened.
type JournalState struct {
	Sent        []time.Time
	PausedUntil time.Time
	Skipped     int // unreadable lines
}

// OpenJournal opens or creates the journal at path, returns what it holds
// as written (the budget clamps it), and compacts it.
func OpenJournal(path string, now func() time.Time) (*Journal, JournalState, error) {
	var st JournalState
	// The journal in place is locked while it is read and replaced: an
	// exporter that holds it (its lock file removed under it) keeps it
	// locked, and this one must not run beside it.
	old, err := openRegular(path, os.O_RDONLY, "the budget journal")
	switch {
	case errors.Is(err, fs.ErrNotExist): // none yet
	case err != nil:
		return nil, st, err
	default:
		defer old.Close()
		switch err := lockFile(old); {
		case errors.Is(err, errWouldBlock):
			return nil, st, fmt.Errorf("%w: the budget journal %s is locked by a running exporter (its lock file was removed or replaced); "+
				"stop it, or give each exporter its own --cache.file", ErrLocked, path)
		case err != nil:
			return nil, st, fmt.Errorf("lock the budget journal %s: %w", path, err)
		}
	}
	b, err := ReadLimited(path, MaxJournalBytes)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, st, fmt.Errorf("read the budget journal: %w", err)
	}
	for line := range strings.Lines(string(b)) {
		if line == "\n" {
			continue
		}
		kind, num, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		ns, err := strconv.ParseInt(num, 10, 64)
		if !strings.HasSuffix(line, "\n") || err != nil || (kind != "s" && kind != "p" && kind != "u") {
			st.Skipped++ // a last line without its newline (torn by a crash), or not ours
			continue
		}
		t := time.Unix(0, ns).UTC()
		switch {
		case kind == "s":
			st.Sent = append(st.Sent, t)
		case kind == "u": // after its "s" line
			st.Sent = withoutUnsent(st.Sent, t)
		case t.After(st.PausedUntil):
			st.PausedUntil = t
		}
	}
	slices.SortFunc(st.Sent, time.Time.Compare)
	j := &Journal{path: path, now: now, pause: st.PausedUntil, sent: slices.Clone(st.Sent)}
	if err := j.compactLocked(); err != nil {
		return nil, st, err
	}
	return j, st, nil
}

// ReadLimited reads one of the exporter's own files at path, at most limit
// bytes; a FIFO or device is refused before the open, which could block.
func ReadLimited(path string, limit int64) ([]byte, error) {
	b, _, err := filewatch.New(path).Read(limit)
	switch {
	case errors.Is(err, filewatch.ErrNotRegular):
		return nil, fmt.Errorf("%s is not a regular file; remove it", path)
	case errors.Is(err, filewatch.ErrTooLarge):
		return nil, fmt.Errorf("%s is larger than %d bytes: not a file the exporter wrote; move it away", path, limit)
	}
	return b, err
}

// Spent appends one analytics request sent at t, synced to disk.
func (j *Journal) Spent(t time.Time) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.Held != nil {
		if err := j.Held(); err != nil {
			return err
		}
	}
	j.sent = append(j.sent, t)
	return j.appendLocked('s', t)
}

// Unspent appends that the request of t was not sent after all.
func (j *Journal) Unspent(t time.Time) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.sent = withoutUnsent(j.sent, t)
	return j.appendLocked('u', t)
}

// withoutUnsent removes from sent one entry of the time unsent.
func withoutUnsent(sent []time.Time, unsent time.Time) []time.Time {
	if i := slices.IndexFunc(sent, unsent.Equal); i >= 0 {
		return slices.Delete(sent, i, i+1)
	}
	return sent
}

// Paused appends a rate-limit pause until t, synced to disk.
func (j *Journal) Paused(until time.Time) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if until.After(j.pause) {
		j.pause = until
	}
	return j.appendLocked('p', until)
}

// appendLocked makes durable the line KIND t, which the caller has recorded
// in memory: appended, or, when the journal is long or was removed or
// replaced under this exporter (which holds the lock), written again from
// memory, never appended to a ghost.
func (j *Journal) appendLocked(kind byte, t time.Time) error {
	if j.f == nil {
		return errors.New("the budget journal is closed")
	}
	if !namesFile(j.path, j.f) || j.lines >= j.compactAt {
		return j.compactLocked()
	}
	if _, err := j.f.Write(appendEntry(nil, kind, t)); err != nil {
		return fmt.Errorf("append to the budget journal %s: %w", j.path, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("sync the budget journal %s: %w", j.path, err)
	}
	j.lines++
	return nil
}

// appendEntry appends the journal line "KIND UNIXNANO\n" to buf.
func appendEntry(buf []byte, kind byte, t time.Time) []byte {
	return append(strconv.AppendInt(append(buf, kind, ' '), t.UnixNano(), 10), '\n')
}

// compactLocked rewrites the journal atomically with the last hour's
// requests and a pause not yet over, and reopens it.
func (j *Journal) compactLocked() error {
	now := j.now()
	cut := now.Add(-time.Hour)
	j.sent = slices.DeleteFunc(j.sent, func(t time.Time) bool { return !t.After(cut) })
	var buf []byte
	for _, t := range j.sent {
		buf = appendEntry(buf, 's', t)
	}
	lines := len(j.sent)
	if j.pause.After(now) {
		buf, lines = appendEntry(buf, 'p', j.pause), lines+1
	}
	// The new journal is locked before it takes the old one's place, so
	// that it is never unlocked while this exporter runs, and appends go
	// to the file this exporter made, never through a link.
	f, err := replaceLocked(j.path, buf)
	if err != nil {
		return fmt.Errorf("rewrite the budget journal: %w", err)
	}
	if j.f != nil {
		j.f.Close()
	}
	j.f, j.lines, j.compactAt = f, lines, max(maxJournalLines, 2*lines)
	return nil
}

// Close closes the journal; later appends fail. A nil Journal does nothing.
func (j *Journal) Close() error {
	if j == nil {
		return nil
	}
	return closeFile(&j.mu, &j.f)
}

// closeFile closes *f under mu, once: it leaves *f nil.
func closeFile(mu *sync.Mutex, f **os.File) error {
	mu.Lock()
	defer mu.Unlock()
	if *f == nil {
		return nil
	}
	err := (*f).Close()
	*f = nil
	return err
}

// WriteFile writes path atomically with write: a temporary file beside it
// of mode perm, synced, renamed over path.
func WriteFile(path string, perm os.FileMode, write func(io.Writer) error) error {
	tmp, err := createTemp(path, perm, func(f *os.File) error { return write(f) })
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if err := tmp.Close(); err != nil {
		return err
	}
	return renameOver(tmp.Name(), path)
}

// createTemp creates a temporary file beside path (path.tmp-*, as CleanTemp
// expects) of mode perm, fills it with fill and syncs it; on an error it removes it.
func createTemp(path string, perm os.FileMode, fill func(*os.File) error) (*os.File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	if err = f.Chmod(perm); err == nil {
		err = fill(f)
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// renameOver renames tmp over path, durably where the file system allows.
func renameOver(tmp, path string) error {
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
