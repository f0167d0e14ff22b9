//go:build unix

package filewatch

import (
	"os"
	"syscall"
)

// openFlags does not block on a FIFO put there since the Stat.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
