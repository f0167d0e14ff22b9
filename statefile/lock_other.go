//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package statefile

import (
	"errors"
	"io/fs"
	"os"
)

const openFlags = 0

var errWouldBlock = errors.New("locked")

// lockFile does nothing without flock(2) (Windows; docs/operations.md).
func lockFile(*os.File) error { return nil }

// links is 1: the count is not read here.
func links(fs.FileInfo) uint64 { return 1 }
