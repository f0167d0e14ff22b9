//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package statefile

import (
	"errors"
	"os"
)

const lockOpenFlags = 0

var errWouldBlock = errors.New("locked")

// lockFile does nothing without flock(2) (Windows; docs/operations.md).
func lockFile(*os.File) error { return nil }
