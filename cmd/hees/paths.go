package main

import (
	"os"

	"github.com/hees-dev/hees/internal/boundedfile"
	"github.com/hees-dev/hees/internal/samefile"
)

// checkOutputs reports an output file of hees run (-trace, -log) that names
// a device, a named pipe or another file that is not regular (a write
// would fail only during or at the end of the run), and two output files
// that are one file, by any path: -trace, -log, -checkpoint and the
// checkpoint's lock file (the writes of one would destroy the rows or the
// state of the other).
func (rf *runFlags) checkOutputs() error {
	type output struct{ flag, path string }
	outputs := []output{{"-trace", rf.trace}, {"-log", rf.log}}
	for _, o := range outputs {
		if o.path == "" {
			continue
		}
		if info, err := os.Stat(o.path); err == nil && !info.Mode().IsRegular() {
			return usagef("%s %s is %s: give the name of a regular file", o.flag, o.path, boundedfile.Kind(info.Mode()))
		}
	}
	if rf.checkpoint != "" {
		outputs = append(outputs, output{"-checkpoint", rf.checkpoint}, output{"the lock file of -checkpoint", rf.checkpoint + ".lock"})
	}
	for i, a := range outputs {
		for _, b := range outputs[i+1:] {
			if a.path != "" && b.path != "" && samefile.Same(a.path, b.path) {
				return usagef("%s %s is the file %s of %s: give %s another name", a.flag, a.path, b.path, b.flag, a.flag)
			}
		}
	}
	return nil
}
