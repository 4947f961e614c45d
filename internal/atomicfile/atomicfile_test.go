package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// onlyEntries fails the test unless dir holds exactly the named entries,
// which catches temporary files left behind.
func onlyEntries(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, "\n") != strings.Join(names, "\n") {
		t.Errorf("directory holds %q, want exactly %q", got, names)
	}
}

// TestWriteFileReplacesContentKeepsMode: the content is replaced and the
// file keeps the mode it had, whatever perm says; the umask of a new file
// is tested in atomicfile_unix_test.go.
func TestWriteFileReplacesContentKeepsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state")
	if err := os.WriteFile(path, []byte("made by hand\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil { // beyond the reach of any umask
		t.Fatal(err)
	}
	for _, c := range []struct {
		data string
		perm os.FileMode
	}{
		{"first version\n", 0o644},
		{"second, longer version\n", 0o600},
		{"", 0o666},
	} {
		if err := WriteFile(path, []byte(c.data), c.perm); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.data {
			t.Errorf("content %q, want %q", got, c.data)
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS != "windows" && info.Mode().Perm() != 0o640 {
			t.Errorf("mode %v after a write with perm %v, want the file's own 0640", info.Mode().Perm(), c.perm)
		}
	}
	onlyEntries(t, dir, "state")
}

// TestWriteFileRefusesReadOnly: a file its owner may not write is left as
// it is, even for a process (root) that could write it.
func TestWriteFileRefusesReadOnly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state")
	if err := os.WriteFile(path, []byte("keep me"), 0o444); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, []byte("new"), 0o644)
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), path) {
		t.Errorf("got %v, want a permission error saying %s is read-only", err, path)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "keep me" {
		t.Errorf("content after the refused write: %q, %v", got, err)
	}
	onlyEntries(t, dir, "state")
}

// TestWriteFiles replaces two files together; when the second cannot be
// replaced (read-only), neither is, and no temporary file is left.
func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := WriteFiles(File{a, []byte("a1"), 0o644}, File{b, []byte("b1"), 0o644}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(b, 0o444); err != nil {
		t.Fatal(err)
	}
	err := WriteFiles(File{a, []byte("a2"), 0o644}, File{b, []byte("b2"), 0o644})
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), b) {
		t.Errorf("got %v, want a permission error naming %s", err, b)
	}
	for path, want := range map[string]string{a: "a1", b: "b1"} {
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Errorf("%s after the refused write: %q, %v; want %q", path, got, err, want)
		}
	}
	onlyEntries(t, dir, "a", "b")
}

// TestRemoveStaleTempsExact: only the temporary files of the file named are
// removed, not those of a file whose name extends it, nor anything else.
func TestRemoveStaleTempsExact(t *testing.T) {
	dir := t.TempDir()
	mine := []string{".run.123.tmp", ".run.k3j9x.tmp", ".run.v2.tmp"}
	others := []string{".run.v2.456.tmp", ".run.v2.abc.tmp", ".run..tmp", ".run.A-1.tmp", ".run.1.tmp.bak", "run", "run.v2", ".runx.1.tmp", ".ru.1.tmp"}
	for _, n := range append(append([]string(nil), mine...), others...) {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemoveStaleTemps(filepath.Join(dir, "run")); err != nil {
		t.Fatal(err)
	}
	want := append([]string(nil), others...)
	slices.Sort(want)
	onlyEntries(t, dir, want...)
	for range 100 {
		if n := tempName("run"); !isTempOf(n, "run") || isTempOf(n, "ru") || isTempOf(n, "run.v2") {
			t.Fatalf("temporary name %q is not recognised exactly", n)
		}
	}
}

// TestRemoveStaleTempsSparesOtherWriters: cleaning up after "run" while
// another process writes "run.v2" never breaks a write of "run.v2".
func TestRemoveStaleTempsSparesOtherWriters(t *testing.T) {
	dir := t.TempDir()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			if err := RemoveStaleTemps(filepath.Join(dir, "run")); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := range 300 {
		if err := WriteFile(filepath.Join(dir, "run.v2"), []byte(strconv.Itoa(i)), 0o644); err != nil {
			t.Errorf("write %d of run.v2: %v", i, err)
			break
		}
	}
	close(done)
	wg.Wait()
}

func TestWriteFileRelativePath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := WriteFile("plain", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "plain")); err != nil || string(got) != "x" {
		t.Errorf("read back %q, %v; want \"x\"", got, err)
	}
	onlyEntries(t, dir, "plain")
}

func TestWriteFileErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "keep"), []byte("k"), 0o644); err != nil {
		t.Fatal(err)
	}

	missing := filepath.Join(dir, "no-such-dir", "state")
	err := WriteFile(missing, []byte("x"), 0o644)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing directory: got %v, want a not-exist error naming %s", err, missing)
	}

	// Renaming a file over a non-empty directory fails; the directory and
	// its content must survive and no temporary file may stay behind.
	overDir := filepath.Join(dir, "sub")
	if err := WriteFile(overDir, []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), overDir) {
		t.Errorf("path is a directory: got %v, want an error naming %s", err, overDir)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "sub", "keep")); err != nil || string(got) != "k" {
		t.Errorf("directory content after failed write: %q, %v", got, err)
	}

	trailing := dir + string(filepath.Separator)
	if err := WriteFile(trailing, []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("path with trailing separator: got %v, want an error saying it names a directory", err)
	}
	onlyEntries(t, dir, "sub")
}

func TestCheckPayloadRejectsTornContent(t *testing.T) {
	whole := payload(3, 7)
	if err := checkPayload(whole); err != nil {
		t.Fatalf("complete payload rejected: %v", err)
	}
	mixed := append(append([]byte{}, payload(1, 0)[:len(whole)/2]...), payload(2, 0)[len(whole)/2:]...)
	for name, data := range map[string][]byte{
		"empty":     nil,
		"truncated": whole[:len(whole)-1],
		"half":      whole[:len(whole)/2],
		"mixed":     mixed,
		"doubled":   append(append([]byte{}, whole...), whole...),
	} {
		if err := checkPayload(data); err == nil {
			t.Errorf("%s content accepted as a complete payload", name)
		}
	}
}

// TestConcurrentWritersNeverTear runs writers in goroutines and in other
// processes against one file while a reader checks every version it sees.
func TestConcurrentWritersNeverTear(t *testing.T) {
	const (
		goroutines = 4
		processes  = 4
		writes     = 25
	)
	dir := t.TempDir()
	path := filepath.Join(dir, "shared")
	if err := WriteFile(path, payload(-1, 0), 0o644); err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	var reads atomic.Int64
	var readerErr error
	var readerDone sync.WaitGroup
	readerDone.Add(1)
	go func() {
		defer readerDone.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			data, err := os.ReadFile(path)
			if err == nil {
				err = checkPayload(data)
			}
			if err != nil {
				readerErr = err
				return
			}
			reads.Add(1)
		}
	}()

	var writers sync.WaitGroup
	errs := make(chan error, goroutines+processes)
	for id := range goroutines {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for seq := range writes {
				if err := WriteFile(path, payload(id, seq), 0o644); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for p := range processes {
		id := goroutines + p
		cmd, stderr := helperCommand(t, helperModeEnv+"=write", helperPathEnv+"="+path,
			helperIDEnv+"="+strconv.Itoa(id), helperCountEnv+"="+strconv.Itoa(writes))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		writers.Add(1)
		go func() {
			defer writers.Done()
			if err := cmd.Wait(); err != nil {
				errs <- errors.New("writer process: " + err.Error() + ": " + stderr.String())
			}
		}()
	}
	writers.Wait()
	close(stop)
	readerDone.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if readerErr != nil {
		t.Errorf("reader saw a torn file after %d good reads: %v", reads.Load(), readerErr)
	}
	if reads.Load() == 0 {
		t.Error("reader checked no version at all")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPayload(data); err != nil {
		t.Errorf("final file: %v", err)
	}
	onlyEntries(t, dir, "shared")
	t.Logf("%d concurrent reads checked", reads.Load())
}
