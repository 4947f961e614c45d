package main

import (
	"os"
	"path/filepath"

	"github.com/hees-dev/hees/internal/boundedfile"
)

// samePath reports whether the paths a and b name the same file: the same
// absolute path once the links among their directories are resolved, or,
// when both exist, the same file reached through other names (hard or
// symbolic links).
func samePath(a, b string) bool {
	if canonicalPath(a) == canonicalPath(b) {
		return true
	}
	infoA, errA := os.Stat(a)
	infoB, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(infoA, infoB)
}

// canonicalPath returns path as an absolute path whose directory has its
// symbolic links resolved when it exists; the file itself need not exist.
func canonicalPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

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
		if samePath(rf.trace, other) {
			return usagef("-trace %s is the file %s of -checkpoint %s: give the trace another name", rf.trace, other, rf.checkpoint)
		}
	}
	return nil
}
