package logbuf

import (
	"fmt"
	"sync"
	"testing"
)

func TestBufferConcurrentWritesAndCountLines(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				fmt.Fprintf(&b, "level=info writer=%d line=%d\n", i, j)
			}
		}()
	}
	wg.Wait()
	if n := b.CountLines("level=info"); n != 400 {
		t.Fatalf("CountLines(level=info) = %d, want 400", n)
	}
	if n := b.CountLines("writer=3", "line=7"); n != 1 {
		t.Fatalf("CountLines(writer=3, line=7) = %d, want 1", n)
	}
	if n := b.CountLines("level=error"); n != 0 {
		t.Fatalf("CountLines(level=error) = %d, want 0", n)
	}
}
