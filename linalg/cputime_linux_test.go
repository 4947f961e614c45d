package linalg

import (
	"syscall"
	"time"
)

// threadCPUTime returns the CPU time (user + system) the calling OS thread
// has consumed. On a machine shared with other jobs it measures the work
// itself, where wall time also counts the waiting.
func threadCPUTime() (time.Duration, bool) {
	const rusageThread = 1 // RUSAGE_THREAD, Linux only
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
