//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package statefile

import (
	"io/fs"
	"os"
	"syscall"
)

// openFlags make an open fail on a symbolic link, and keep the open of a
// FIFO in the file's place from blocking.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

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

// links is the file's hard link count.
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
