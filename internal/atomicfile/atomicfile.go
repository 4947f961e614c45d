// Package atomicfile replaces files so that a reader, or the machine after a
// crash, sees either the old content or the new one, never a mix, and
// serialises read-modify-write cycles between processes with a lock file.
//
// The command line uses it for checkpoints and for the ask/tell state file
// (issues 6 and 7: "temp file in the same directory, fsync, rename, fsync of
// the directory"), where several `hees tell` processes may run at once.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile replaces the file at path with data, atomically and durably.
//
// It writes data to a new temporary file in the directory of path, sets its
// permission bits to perm (exactly: the umask is not applied), flushes it to
// stable storage, renames it over path and then flushes the directory, so
// that once WriteFile returns nil the new content survives a power loss, and
// at no time does path hold partial content. A symbolic link at path is
// replaced by a regular file, not followed.
//
// On error before the rename, path is unchanged and the temporary file is
// removed. A crash during WriteFile can leave a temporary file named
// ".NAME.*.tmp" next to path; it never takes the place of path.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	dir, name := filepath.Split(path)
	if name == "" {
		return fmt.Errorf("atomicfile: %q names a directory, not a file", path)
	}
	if dir == "" {
		dir = "."
	}
	tmpName, err := writeTemp(dir, "."+name+".*.tmp", data, perm)
	if err != nil {
		return fmt.Errorf("atomicfile: writing %s: %w", path, err)
	}
	if err := os.Rename(tmpName, path); err != nil {
		os.Remove(tmpName) // best effort; the rename error is the one to report
		return fmt.Errorf("atomicfile: writing %s: %w", path, err)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("atomicfile: %s was replaced but its directory was not flushed to disk: %w", path, err)
	}
	return nil
}

// writeTemp writes data to a new file in dir whose name follows pattern (as
// in os.CreateTemp), with permission bits perm, flushed to stable storage
// and closed. It returns the file's name, or removes the file on error.
func writeTemp(dir, pattern string, data []byte, perm os.FileMode) (name string, err error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			f.Close() // may already be closed; the first error is the one to report
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		return "", err
	}
	if err := f.Chmod(perm); err != nil {
		return "", err
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return f.Name(), nil
}
