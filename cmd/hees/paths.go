package main

import (
	"os"

	"github.com/hees-dev/hees/internal/boundedfile"
	"github.com/hees-dev/hees/internal/samefile"
)

// checkOutputs reports a -trace that names a device, a named pipe or
// another file that is not regular (a write would fail only at the end of
// the run), or the -checkpoint file or its lock file (each write of one
// would destroy the other).
func (rf *runFlags) checkOutputs() error {
	if rf.trace == "" {
		return nil
	}
	if info, err := os.Stat(rf.trace); err == nil && !info.Mode().IsRegular() {
		return usagef("-trace %s is %s: give the name of a regular file", rf.trace, boundedfile.Kind(info.Mode()))
	}
	if rf.checkpoint == "" {
		return nil
	}
	for _, other := range []string{rf.checkpoint, rf.checkpoint + ".lock"} {
		if samefile.Same(rf.trace, other) {
			return usagef("-trace %s is the file %s of -checkpoint %s: give the trace another name", rf.trace, other, rf.checkpoint)
		}
	}
	return nil
}
