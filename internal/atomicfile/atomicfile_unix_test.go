//go:build unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hees-dev/hees/internal/boundedfile"
)

// TestWriteFileNewFileUmask: a new file gets perm less the umask, as with
// os.WriteFile.
func TestWriteFileNewFileUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "state")
	if err := WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != 0o600 {
		t.Errorf("new file with perm 0644 under umask 077 has mode %v, want 0600", got)
	}
}

// TestWriteFileRefusesNonRegular writes over a named pipe and over a
// symbolic link to it: both are left as they are (renaming over /dev/null
// would replace it for the whole system), with an error that names the
// kind of file, and no temporary file is left.
func TestWriteFileRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{fifo: "(it is a named pipe)", link: "(it is a symbolic link to a named pipe)"} {
		err := WriteFile(path, []byte("data"), 0o644)
		if !errors.Is(err, boundedfile.ErrNotRegular) || !strings.Contains(err.Error(), want) {
			t.Errorf("WriteFile(%s): %v, want an error saying %q", path, err, want)
		}
	}
	if info, err := os.Lstat(fifo); err != nil || info.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the named pipe was replaced: %v, %v", info.Mode(), err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", info.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files left: %v", entries)
	}
}
