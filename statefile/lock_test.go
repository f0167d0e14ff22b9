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
