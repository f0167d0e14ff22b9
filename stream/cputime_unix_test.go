//go:build unix

package stream

import "syscall"

// cpuSeconds is the process's CPU time (user and system): on a shared
// machine it measures work where wall time measures the neighbours too.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
