// Package leakcheck lets tests check that what they started has ended: a
// goroutine count taken before, compared (for a bounded time) after.
package leakcheck

import (
	"runtime"
	"testing"
	"time"
)

// Slack tolerates goroutines of the runtime or the testing package that
// come and go on their own.
const Slack = 2

// Wait waits up to five seconds for the goroutines started since base (a
// runtime.NumGoroutine taken before) to end, and fails t with every
// goroutine's stack if some are left.
func Wait(t testing.TB, base int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base+Slack {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines after Close, %d before:\n%s", runtime.NumGoroutine(), base, buf)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
