// Package leakcheck lets tests check that the goroutines they started ended.
package leakcheck

import (
	"runtime"
	"testing"
	"time"
)

// Slack tolerates goroutines of the runtime and testing package.
const Slack = 2

// Wait fails t unless the goroutines started since base end within 5 s.
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
