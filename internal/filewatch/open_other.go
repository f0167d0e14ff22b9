//go:build !unix

package filewatch

import "os"

const openFlags = os.O_RDONLY
