//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package statefile

import (
	"errors"
	"os"
)

// lockOpenFlags are the flags the lock file is opened with besides
// O_RDWR|O_CREATE.
const lockOpenFlags = 0

// errWouldBlock is never returned here.
var errWouldBlock = errors.New("locked")

// lockFile does nothing on platforms without flock(2) (Windows): nothing
// stops two exporters on one cache file there (docs/operations.md).
func lockFile(*os.File) error { return nil }
