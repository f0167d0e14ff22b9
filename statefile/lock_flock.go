//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package statefile

import (
	"os"
	"syscall"
)

// lockOpenFlags keep the open of a FIFO in the lock file's place from blocking.
const lockOpenFlags = syscall.O_NONBLOCK

var errWouldBlock = syscall.EWOULDBLOCK

// lockFile takes flock(2) without waiting; it is dropped when f is closed or
// the process ends, however it ends.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err
		}
	}
}
