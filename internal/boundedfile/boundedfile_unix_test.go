//go:build unix

package boundedfile

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadRefusesEndlessAndBlockingFiles: /dev/zero and /dev/urandom never
// end, and a named pipe without a writer blocks at open; Read refuses them
// at once.
func TestReadRefusesEndlessAndBlockingFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/dev/zero":    "a character device",
		"/dev/urandom": "a character device",
		fifo:           "a named pipe",
	} {
		done := make(chan error, 1)
		go func() {
			_, err := Read(path, 1<<30)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
				t.Errorf("Read(%s): %v, want an error saying it is %s", path, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Read(%s) has not returned after 5 s", path)
		}
	}
}
