// Package logbuf is a buffer for tests to capture output written concurrently.
package logbuf

import (
	"bytes"
	"slices"
	"strings"
	"sync"
)

// Buffer is a bytes.Buffer safe for concurrent use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// CountLines returns the number of lines that contain every one of parts.
func (b *Buffer) CountLines(parts ...string) int {
	n := 0
	for _, line := range strings.Split(b.String(), "\n") {
		if line != "" && !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(line, p) }) {
			n++
		}
	}
	return n
}
