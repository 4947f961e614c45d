//go:build unix

package bench

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestGridRunRefusesFIFORecord puts a named pipe that no one writes where a
// record belongs: Run refuses it at once instead of waiting for a writer.
func TestGridRunRefusesFIFORecord(t *testing.T) {
	out := t.TempDir()
	g := tinyGrid(out)
	dir := filepath.Join(out, "runs", "hees")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "f1_d2_i1.txt"), 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { done <- g.Run(context.Background(), io.Discard) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "a named pipe") {
			t.Errorf("got %v, want an error saying the record is a named pipe", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run is still reading the named pipe after 10 s")
	}
}
