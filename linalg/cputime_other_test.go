//go:build !linux

package linalg

import "time"

// threadCPUTime reports that per-thread CPU time is not available here.
func threadCPUTime() (time.Duration, bool) { return 0, false }
