// Package atomicfile replaces files so that a reader, or the machine after a
// crash, sees either the old content or the new one, never a mix, and
// serialises read-modify-write cycles between processes with a lock file.
//
// The command line uses it for checkpoints and for the ask/tell state file
// (a temp file in the same directory, fsync, rename, fsync of
// the directory), where several `hees tell` processes may run at once.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hees-dev/hees/internal/boundedfile"
)

// WriteFile replaces the file at path with data, atomically and durably.
//
// It writes data to a new temporary file in the directory of path, flushes
// it to stable storage, renames it over path and then flushes the
// directory, so that once WriteFile returns nil the new content survives a
// power loss, and at no time does path hold partial content. A symbolic link
// at path is replaced by a regular file, not followed.
//
// Only a regular file or a symbolic link is replaced: a device, a named
// pipe or a socket at path (such as /dev/null), or a symbolic link to one
// (such as /dev/stdout), is left alone and the error wraps
// boundedfile.ErrNotRegular.
//
// A regular file at path keeps its permission bits; one whose owner may not
// write it (such as mode 0444) is not replaced, and the error wraps
// fs.ErrPermission. A new file gets perm less the process's umask, as with
// os.WriteFile.
//
// On error before the rename, path is unchanged and the temporary file is
// removed. A crash during WriteFile can leave a temporary file named
// ".NAME.X.tmp" next to path, where X is letters and digits; it never takes
// the place of path, and RemoveStaleTemps removes it.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return WriteFiles(File{Path: path, Data: data, Perm: perm})
}

// File is one file for WriteFiles: the content Data for Path, and the
// permission bits Perm for a new file.
type File struct {
	Path string
	Data []byte
	Perm os.FileMode
}

// WriteFiles replaces each of files as WriteFile does, with the renames
// back to back: every new content is written and flushed to stable storage
// before the first rename, and the directories are flushed after the last.
// A reader that depends on several of the files sees them disagree only for
// the time of a rename, not of a write and a flush. A crash or an error
// during the renames leaves a prefix of them done; an error before the
// first rename leaves every file unchanged.
func WriteFiles(files ...File) error {
	type pending struct{ dir, path, tmp string }
	todo := make([]pending, 0, len(files))
	defer func() {
		for _, p := range todo {
			os.Remove(p.tmp) // best effort: the temporary files not renamed
		}
	}()
	for _, file := range files {
		dir, name, err := splitPath(file.Path)
		if err != nil {
			return err
		}
		info, err := checkReplaceable(file.Path)
		if err != nil {
			return err
		}
		keep := os.FileMode(0) // the mode to keep; 0 for a new file
		if info != nil && info.Mode().IsRegular() {
			keep = info.Mode().Perm()
			if keep&0o200 == 0 {
				return fmt.Errorf("atomicfile: not replacing %s: it is read-only (mode %v): %w", file.Path, keep, fs.ErrPermission)
			}
		}
		tmp, err := writeTemp(dir, name, file.Data, file.Perm, keep)
		if err != nil {
			return fmt.Errorf("atomicfile: writing %s: %w", file.Path, err)
		}
		todo = append(todo, pending{dir, file.Path, tmp})
	}
	var renamed []pending // the first file renamed in each directory
	for len(todo) > 0 {
		p := todo[0]
		if err := os.Rename(p.tmp, p.path); err != nil {
			return fmt.Errorf("atomicfile: writing %s: %w", p.path, err)
		}
		todo = todo[1:]
		if !slices.ContainsFunc(renamed, func(q pending) bool { return q.dir == p.dir }) {
			renamed = append(renamed, p)
		}
	}
	for _, p := range renamed {
		if err := syncDir(p.dir); err != nil {
			return fmt.Errorf("atomicfile: %s was replaced but its directory was not flushed to disk: %w", p.path, err)
		}
	}
	return nil
}

// splitPath splits path into its directory ("." for none) and the name of
// the file, which must not be empty.
func splitPath(path string) (dir, name string, err error) {
	dir, name = filepath.Split(path)
	if name == "" {
		return "", "", fmt.Errorf("atomicfile: %q names a directory, not a file", path)
	}
	if dir == "" {
		dir = "."
	}
	return dir, name, nil
}

// checkReplaceable reports a path that WriteFile must not replace: an
// existing file other than a regular file or a symbolic link, or a symbolic
// link to such a file. Renaming over a device would replace it for every
// program on the system. It returns what os.Lstat found at path, nil when
// nothing is there.
func checkReplaceable(path string) (fs.FileInfo, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return nil, nil // nothing there (or the write will say what is wrong)
	}
	target, what := info, "it is"
	if info.Mode()&fs.ModeSymlink != 0 {
		if target, err = os.Stat(path); err != nil {
			return info, nil // a dangling link is replaced
		}
		what = "it is a symbolic link to"
	}
	if target.Mode().IsRegular() || target.IsDir() {
		return info, nil // a directory: the rename fails with its own error
	}
	return nil, fmt.Errorf("atomicfile: not replacing %s: %w (%s %s)", path, boundedfile.ErrNotRegular, what, boundedfile.Kind(target.Mode()))
}

// tempName returns the name of a temporary file for the file called name:
// "." + name + "." + token + ".tmp", where token is letters and digits, so
// that the name of the file it stands for can be read back exactly
// (isTempOf).
func tempName(name string) string {
	return "." + name + "." + strconv.FormatUint(rand.Uint64(), 36) + ".tmp"
}

// isTempOf reports whether entry is the name of a temporary file that
// WriteFile made for the file called name.
func isTempOf(entry, name string) bool {
	rest, ok := strings.CutPrefix(entry, "."+name+".")
	if !ok {
		return false
	}
	token, ok := strings.CutSuffix(rest, ".tmp")
	if !ok || token == "" {
		return false
	}
	for _, c := range token {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// RemoveStaleTemps removes the temporary files that WriteFile(path, ...)
// left behind when its process was killed, and no other file: not those of
// another file whose name starts with the same characters ("run.v2" for
// "run"). It must run only while no other process writes path, under the
// lock that serialises its writers, since it cannot tell a leftover from a
// temporary file being written. Files it cannot remove are left; the error
// reports the first failure.
func RemoveStaleTemps(path string) error {
	dir, name, err := splitPath(path)
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("atomicfile: removing stale temporary files of %s: %w", path, err)
	}
	var first error
	for _, e := range entries {
		if e.Type().IsRegular() && isTempOf(e.Name(), name) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && first == nil && !errors.Is(err, fs.ErrNotExist) {
				first = fmt.Errorf("atomicfile: removing a stale temporary file of %s: %w", path, err)
			}
		}
	}
	return first
}

// writeTemp writes data to a new temporary file for the file called name in
// dir, flushed to stable storage and closed, and returns the file's path, or
// removes the file on error. The file gets the permission bits keep, or
// perm less the umask if keep is 0.
func writeTemp(dir, name string, data []byte, perm, keep os.FileMode) (tmp string, err error) {
	create := perm
	if keep != 0 {
		create = 0o600 // private until it has its final mode
	}
	var f *os.File
	for range 10000 {
		f, err = os.OpenFile(filepath.Join(dir, tempName(name)), os.O_RDWR|os.O_CREATE|os.O_EXCL, create)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
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
	if keep != 0 {
		if err := f.Chmod(keep); err != nil {
			return "", err
		}
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return f.Name(), nil
}
