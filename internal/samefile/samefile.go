// Package samefile tells whether two paths name the same file, including
// a file that does not exist yet (an output that a run is about to create).
package samefile

import (
	"os"
	"path/filepath"
)

// Same reports whether the paths a and b name the same file: the same
// absolute path once the links among their directories are resolved, or,
// when both exist, the same file reached through other names (hard or
// symbolic links).
func Same(a, b string) bool {
	if canonical(a) == canonical(b) {
		return true
	}
	infoA, errA := os.Stat(a)
	infoB, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(infoA, infoB)
}

// canonical returns path as an absolute path whose directory has its
// symbolic links resolved when it exists; the file itself need not exist.
func canonical(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}
