//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package statefile

import (
	"os"
	"syscall"
)

// lockOpenFlags keep the open of a FIFO put in place of the lock file
// from blocking.
const lockOpenFlags = syscall.O_NONBLOCK

// errWouldBlock is what lockFile returns when another process holds the
// lock.
var errWouldBlock = syscall.EWOULDBLOCK

// lockFile takes an exclusive flock(2) of f without waiting. The lock
// belongs to the open file: it is dropped when f is closed or the process
// ends, however it ends.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err
		}
	}
}
