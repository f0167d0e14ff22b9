//go:build unix

package filewatch

import (
	"os"
	"syscall"
)

// openFlags opens without blocking on a FIFO that has no writer.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
