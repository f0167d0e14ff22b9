package statefile_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/statefile"
)

// TestLockRefusesASecondHolder: while one holder has the cache file's
// lock, another is refused with one line naming the lock file and the PID
// holding it; once released, the lock can be taken again. flock(2) locks
// belong to the open file, so a second open in the same process is
// refused as another process would be.
func TestLockRefusesASecondHolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock on Windows: the lock only records the PID")
	}
	path := filepath.Join(t.TempDir(), "state.json")
	first, err := statefile.Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path + statefile.LockSuffix)
	if err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("the lock file holds %q (%v), want this PID %d", b, err, os.Getpid())
	}
	_, err = statefile.Lock(path)
	if !errors.Is(err, statefile.ErrLocked) || !strings.Contains(err.Error(), path+statefile.LockSuffix) ||
		!strings.Contains(err.Error(), "PID "+strconv.Itoa(os.Getpid())) || strings.Contains(err.Error(), "\n") {
		t.Errorf("second lock: %v, want one line naming the lock file and PID %d", err, os.Getpid())
	}
	if err := first.Unlock(); err != nil {
		t.Fatal(err)
	}
	again, err := statefile.Lock(path)
	if err != nil {
		t.Fatalf("after the first holder let go: %v", err)
	}
	again.Unlock()
	var none *statefile.FileLock
	if err := none.Unlock(); err != nil {
		t.Errorf("nil lock: %v", err)
	}
}

// TestLockRefusesAFIFO: a FIFO in place of the lock file is refused, not
// waited on.
func TestLockRefusesAFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := syscall.Mkfifo(path+statefile.LockSuffix, 0o600); err != nil {
		t.Skip(err)
	}
	if _, err := statefile.Lock(path); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a FIFO as the lock file: %v", err)
	}
}

// TestLockNeverWritesThroughALink: a lock file or budget journal that is a
// hard link to another file (the key file here) or a symbolic link is
// refused with one line naming it, and the other file keeps its content; a
// lock file left with another PID is replaced, not truncated.
func TestLockNeverWritesThroughALink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no link counts on Windows")
	}
	const secret = "mint_secretkey\n"
	for _, tc := range []struct {
		name, file string
		link       func(old, new string) error
		want       string
	}{
		{"hard link as the lock file", statefile.LockSuffix, os.Link, "hard link"},
		{"symbolic link as the lock file", statefile.LockSuffix, os.Symlink, "not a regular file"},
		{"hard link as the journal", statefile.JournalSuffix, os.Link, "hard link"},
		{"symbolic link as the journal", statefile.JournalSuffix, os.Symlink, "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			key := filepath.Join(dir, "api-key")
			if err := os.WriteFile(key, []byte(secret), 0o600); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "state.json")
			if err := tc.link(key, path+tc.file); err != nil {
				t.Skip(err)
			}
			lock, err := statefile.Lock(path)
			if err == nil {
				defer lock.Unlock()
				var j *statefile.Journal
				j, _, err = statefile.OpenJournal(path+statefile.JournalSuffix, time.Now)
				if err == nil {
					j.Spent(time.Now())
					j.Close()
				}
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path+tc.file) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err %v, want one line naming %s and saying %q", err, path+tc.file, tc.want)
			}
			if b, _ := os.ReadFile(key); string(b) != secret {
				t.Errorf("the key file now holds %q", b)
			}
		})
	}
	t.Run("a stale PID is replaced", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.json")
		if err := os.WriteFile(path+statefile.LockSuffix, []byte("999999999\nmore\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		lock, err := statefile.Lock(path)
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Unlock()
		if b, _ := os.ReadFile(path + statefile.LockSuffix); string(b) != strconv.Itoa(os.Getpid())+"\n" {
			t.Errorf("lock file holds %q, want this PID", b)
		}
		if _, err := statefile.Lock(path); !errors.Is(err, statefile.ErrLocked) {
			t.Errorf("a second lock after the replacement: %v", err)
		}
	})
}

// TestLockSurvivesItsFileRemoved: with the lock file removed (a cleaner
// taking it for stale) or replaced while an exporter runs, a second one
// on the same --cache.file is refused at its journal, which the first
// keeps locked; the first takes a removed lock file again, and stops
// recording (so sending) requests when another process took it.
func TestLockSurvivesItsFileRemoved(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock on Windows: the lock only records the PID")
	}
	start := func(t *testing.T, path string) (*statefile.FileLock, *statefile.Journal, error) {
		lock, err := statefile.Lock(path)
		if err != nil {
			return nil, nil, err
		}
		j, _, err := statefile.OpenJournal(path+statefile.JournalSuffix, time.Now)
		if err != nil {
			lock.Unlock()
			return nil, nil, err
		}
		j.Held = lock.Held
		t.Cleanup(func() { j.Close(); lock.Unlock() })
		return lock, j, nil
	}
	t.Run("removed, a second exporter starts", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.json")
		_, j, err := start(t, path)
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Spent(time.Now()); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(path + statefile.LockSuffix); err != nil {
			t.Fatal(err)
		}
		if _, _, err := start(t, path); !errors.Is(err, statefile.ErrLocked) || !strings.Contains(err.Error(), path+statefile.JournalSuffix) {
			t.Fatalf("a second exporter with the lock file removed: %v, want ErrLocked naming the journal", err)
		}
		// The second took the new lock file before its journal failed and
		// let go: the first takes it again at its next request.
		if err := j.Spent(time.Now()); err != nil {
			t.Errorf("the first exporter's next request: %v", err)
		}
		if _, err := statefile.Lock(path); !errors.Is(err, statefile.ErrLocked) {
			t.Errorf("a third exporter after the lock was taken again: %v", err)
		}
	})
	t.Run("lock file and journal removed", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.json")
		_, j, err := start(t, path)
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(path + statefile.LockSuffix)
		os.Remove(path + statefile.JournalSuffix)
		if _, _, err := start(t, path); err != nil {
			t.Fatal(err) // nothing tells it of the first
		}
		if err := j.Spent(time.Now()); !errors.Is(err, statefile.ErrLockLost) || strings.Contains(err.Error(), "\n") {
			t.Errorf("the first exporter's next request: %v, want one line wrapping ErrLockLost", err)
		}
	})
	t.Run("replaced", func(t *testing.T) {
		for _, held := range []bool{false, true} {
			path := filepath.Join(t.TempDir(), "state.json")
			lock, _, err := start(t, path)
			if err != nil {
				t.Fatal(err)
			}
			other := path + ".other"
			os.WriteFile(other, []byte("1\n"), 0o600)
			f, err := os.Open(other)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if held {
				if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Rename(other, path+statefile.LockSuffix); err != nil {
				t.Fatal(err)
			}
			err = lock.Held()
			switch {
			case held && !errors.Is(err, statefile.ErrLockLost):
				t.Errorf("Held after the lock file was replaced by one another process holds: %v", err)
			case !held && err != nil:
				t.Errorf("Held after the lock file was replaced by one nobody holds: %v", err)
			case !held:
				if _, err := statefile.Lock(path); !errors.Is(err, statefile.ErrLocked) {
					t.Errorf("after the replaced lock file was taken: %v", err)
				}
			}
		}
	})
	t.Run("removed, nobody else", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.json")
		lock, _, err := start(t, path)
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(path + statefile.LockSuffix)
		if err := lock.Held(); err != nil {
			t.Fatal(err)
		}
		if _, err := statefile.Lock(path); !errors.Is(err, statefile.ErrLocked) {
			t.Errorf("after the lock file was made again: %v", err)
		}
		if names, _ := filepath.Glob(path + "*.tmp-*"); len(names) != 0 {
			t.Errorf("left %v", names)
		}
	})
}
