package statefile

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// LockSuffix names the lock file: a file of its own, because the journal and
// the cache file are replaced by rename, which a lock would not survive.
const LockSuffix = ".lock"

// ErrLocked is wrapped by Lock's error when another process holds the lock.
var ErrLocked = errors.New("in use by another exporter")

// FileLock is a cache file's lock, held until Unlock or the process's exit.
type FileLock struct {
	f *os.File
}

// Lock takes the exclusive lock of the cache file at path and writes this
// process's PID in the lock file: two exporters on one file would each spend
// a budget and replace the journal under the other. Without flock(2) it only
// writes the PID.
func Lock(path string) (*FileLock, error) {
	name := path + LockSuffix
	if fi, err := os.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file; remove it", name)
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|lockOpenFlags, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the lock file: %w", err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file; remove it", name)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, fmt.Errorf("%w: PID %s holds %s; give each exporter its own --cache.file (two on one file spend two request budgets)", ErrLocked, holder(name), name)
		}
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &FileLock{f: f}, nil
}

// holder returns the PID written in the lock file, or "unknown".
func holder(name string) string {
	b, err := readLimited(name, 64)
	if err != nil {
		return "unknown"
	}
	pid := strings.TrimSpace(string(b))
	if n, err := strconv.Atoi(pid); err != nil || n <= 0 {
		return "unknown"
	}
	return pid
}

// Unlock releases the lock. A nil FileLock does nothing.
func (l *FileLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
