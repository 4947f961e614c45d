//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestResumeFIFO gives a named pipe that no one writes to hees resume: it
// is refused at once, without opening it (which would wait for a writer
// and leave the first SIGTERM to the signal handler of a run that never
// starts).
func TestResumeFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ck")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	for _, args := range [][]string{{"resume", fifo}, {"status", "-state", fifo}, {"plot", fifo}} {
		code, _, stderr, took := runBounded(t, 20*time.Second, args...)
		if code != exitFailure || !strings.Contains(stderr, "(it is a named pipe)") || took > 10*time.Second {
			t.Errorf("hees %q: exit %d after %v, stderr %q", args, code, took, stderr)
		}
	}
}
