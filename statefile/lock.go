package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// LockSuffix names the lock file: a file of its own, because the journal and
// the cache file are replaced by rename, which a lock would not survive.
const LockSuffix = ".lock"

// ErrLocked is wrapped by Lock's error when another process holds the lock.
var ErrLocked = errors.New("in use by another exporter")

// ErrLockLost is wrapped by Held's error when the lock file was removed or
// replaced and another process took the new one.
var ErrLockLost = errors.New("the cache file's lock was lost")

// FileLock is a cache file's lock, held until Unlock or the process's exit.
type FileLock struct {
	name string
	mu   sync.Mutex
	f    *os.File
}

// lockAttempts bounds how often Lock starts again when the lock file is
// replaced between its open and its lock.
const lockAttempts = 5

// Lock takes the exclusive lock of the cache file at path and writes this
// process's PID in the lock file: two exporters on one file would each spend
// a budget and replace the journal under the other. A symbolic link, a file
// with other hard links or anything but a regular file is refused; a lock
// file that holds something is replaced by rename, not truncated. Without
// flock(2) it only writes the PID.
func Lock(path string) (*FileLock, error) {
	name := path + LockSuffix
	for range lockAttempts {
		f, err := openRegular(name, os.O_RDWR|os.O_CREATE, "the lock file")
		if err != nil {
			return nil, err
		}
		if err := lockFile(f); err != nil {
			f.Close()
			if errors.Is(err, errWouldBlock) {
				return nil, fmt.Errorf("%w: PID %s holds %s; give each exporter its own --cache.file (two on one file spend two request budgets)", ErrLocked, Holder(name), name)
			}
			return nil, fmt.Errorf("lock %s: %w", name, err)
		}
		// Replaced or removed between the open and the lock: what we
		// locked is not the lock file any more.
		if !namesFile(name, f) {
			f.Close()
			continue
		}
		if f, err = writePID(name, f); err != nil {
			return nil, err
		}
		return &FileLock{name: name, f: f}, nil
	}
	return nil, fmt.Errorf("%s was replaced at every attempt to lock it; is another program rewriting it?", name)
}

// openRegular opens name without following a symbolic link or blocking, and
// refuses anything but a regular file with one link: writes must not reach another file.
func openRegular(name string, flag int, what string) (*os.File, error) {
	notRegular := fmt.Errorf("%s (%s) is not a regular file; remove it", name, what)
	if fi, err := os.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return nil, notRegular
	}
	f, err := os.OpenFile(name, flag|openFlags, 0o600)
	switch {
	case errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK): // O_NOFOLLOW on a symbolic link
		return nil, notRegular
	case err != nil:
		return nil, fmt.Errorf("open %s: %w", what, err)
	}
	fi, err := f.Stat()
	switch {
	case err != nil || !fi.Mode().IsRegular():
		f.Close()
		return nil, notRegular
	case links(fi) > 1:
		f.Close()
		return nil, fmt.Errorf("%s (%s) is a hard link to another file (%d links): writing it would change that file; remove it", name, what, links(fi))
	}
	return f, nil
}

// namesFile reports whether name is still the file f has open.
func namesFile(name string, f *os.File) bool {
	a, err := os.Lstat(name)
	b, ferr := f.Stat()
	return err == nil && ferr == nil && os.SameFile(a, b)
}

// pidLine is what a lock file holds: this process's PID.
var pidLine = []byte(strconv.Itoa(os.Getpid()) + "\n")

// writePID writes this process's PID in the lock file name, which f holds
// locked: in place when it is empty (just created), else in a new file
// renamed over it, locked first (the lock of f, held meanwhile, keeps
// others waiting). It returns the file that holds the lock now; f is closed
// when that is another file or on an error.
func writePID(name string, f *os.File) (*os.File, error) {
	if fi, err := f.Stat(); err == nil && fi.Size() == 0 {
		_, _ = f.WriteAt(pidLine, 0)
		return f, nil
	}
	defer f.Close()
	nf, err := replaceLocked(name, pidLine)
	if err != nil {
		return nil, fmt.Errorf("replace the lock file %s: %w", name, err)
	}
	return nf, nil
}

// newLockFile creates a temporary file beside name holding content, locked and synced.
func newLockFile(name string, content []byte) (*os.File, error) {
	return createTemp(name, 0o600, func(f *os.File) error {
		if err := lockFile(f); err != nil {
			return err
		}
		_, err := f.Write(content)
		return err
	})
}

// replaceLocked renames a new file from newLockFile over name and returns it.
func replaceLocked(name string, content []byte) (*os.File, error) {
	f, err := newLockFile(name, content)
	if err != nil {
		return nil, err
	}
	if err := renameOver(f.Name(), name); err != nil {
		os.Remove(f.Name())
		f.Close()
		return nil, err
	}
	return f, nil
}

// Held checks that the lock file is still the file this lock holds; one
// removed, or replaced by a file nobody holds, is taken again. When another
// process holds it now, the error wraps ErrLockLost: stop spending.
func (l *FileLock) Held() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("%w: %s was unlocked", ErrLockLost, l.name)
	}
	if namesFile(l.name, l.f) {
		return nil
	}
	lost := func() error {
		return fmt.Errorf("%w: %s was removed or replaced, and another process holds it now (PID %s); stop the other exporter on this --cache.file, then restart this one", ErrLockLost, l.name, Holder(l.name))
	}
	f, err := openRegular(l.name, os.O_RDWR, "the lock file")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Removed: made again, unless another process makes it first
		// (a link fails where a file already is).
		if f, err = newLockFile(l.name, pidLine); err != nil {
			return fmt.Errorf("%w: %s was removed and cannot be made again: %v", ErrLockLost, l.name, err)
		}
		defer os.Remove(f.Name())
		if err := os.Link(f.Name(), l.name); err != nil {
			f.Close()
			return lost()
		}
	case err != nil:
		return fmt.Errorf("%w: %v", ErrLockLost, err)
	case lockFile(f) != nil || !namesFile(l.name, f):
		f.Close()
		return lost()
	default: // replaced by a file nobody holds: it is the lock file now
		if f, err = writePID(l.name, f); err != nil {
			return fmt.Errorf("%w: %v", ErrLockLost, err)
		}
	}
	l.f.Close()
	l.f = f
	return nil
}

// Holder returns the PID written in the lock file name (the cache file's
// path plus LockSuffix), or "unknown": who holds it, for an error.
func Holder(name string) string {
	b, _ := ReadLimited(name, 64) // nil on an error: no PID
	pid := strings.TrimSpace(string(b))
	if n, err := strconv.Atoi(pid); err != nil || n <= 0 {
		return "unknown"
	}
	return pid
}

// Unlock releases the lock. A nil FileLock does nothing.
func (l *FileLock) Unlock() error {
	if l == nil {
		return nil
	}
	return closeFile(&l.mu, &l.f)
}
