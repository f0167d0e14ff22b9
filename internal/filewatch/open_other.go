//go:build !unix

package filewatch

import "os"

// openFlags are the flags Read opens a file with.
const openFlags = os.O_RDONLY
