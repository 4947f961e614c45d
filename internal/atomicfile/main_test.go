package atomicfile

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The tests re-run their own binary as helper processes: with
// helperModeEnv set, TestMain does one job and exits instead of testing.
const (
	helperModeEnv  = "HEES_ATOMICFILE_HELPER" // "write", "count" or "hold"
	helperPathEnv  = "HEES_ATOMICFILE_PATH"   // the file to write, or the lock file
	helperDataEnv  = "HEES_ATOMICFILE_DATA"   // the counter file, for "count"
	helperIDEnv    = "HEES_ATOMICFILE_ID"     // writer id, for "write"
	helperCountEnv = "HEES_ATOMICFILE_N"      // number of writes or increments
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperModeEnv); mode != "" {
		if err := runHelper(mode); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runHelper(mode string) error {
	path := os.Getenv(helperPathEnv)
	n, _ := strconv.Atoi(os.Getenv(helperCountEnv))
	switch mode {
	case "write":
		id, err := strconv.Atoi(os.Getenv(helperIDEnv))
		if err != nil {
			return err
		}
		for seq := range n {
			if err := WriteFile(path, payload(id, seq), 0o644); err != nil {
				return err
			}
		}
		return nil
	case "count":
		for range n {
			if err := increment(path, os.Getenv(helperDataEnv)); err != nil {
				return err
			}
		}
		return nil
	case "hold":
		if _, err := Lock(context.Background(), path); err != nil {
			return err
		}
		fmt.Println("locked")
		time.Sleep(time.Hour) // until the test kills this process
		return nil
	case "filecount":
		for range n {
			if err := incrementFileLock(path, os.Getenv(helperDataEnv)); err != nil {
				return err
			}
		}
		return nil
	case "filehold":
		if _, err := LockFile(context.Background(), path, FileLockOptions{Stale: time.Hour, Holder: "helper"}); err != nil {
			return err
		}
		fmt.Println("locked")
		time.Sleep(time.Hour) // until the test kills this process
		return nil
	}
	return fmt.Errorf("unknown helper mode %q", mode)
}

// helperCommand returns a command that runs this test binary as a helper
// with the extra environment env, and the buffer that collects its stderr.
func helperCommand(t *testing.T, env ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	// A helper built with -race would sleep a second at exit (the race
	// detector's default atexit_sleep_ms); the tests have no use for that.
	cmd.Env = append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	return cmd, &stderr
}

// payloadLines is the number of lines in a payload: enough (about 100 KB)
// that a non-atomic write is visible half-done to a concurrent reader.
const payloadLines = 4000

// payload is the content writer id writes in its write number seq: one
// line naming both, repeated payloadLines times.
func payload(id, seq int) []byte {
	line := fmt.Sprintf("writer %d version %d\n", id, seq)
	return bytes.Repeat([]byte(line), payloadLines)
}

// checkPayload returns an error unless data is exactly one complete
// payload of one writer.
func checkPayload(data []byte) error {
	first, _, ok := bytes.Cut(data, []byte("\n"))
	if !ok {
		return fmt.Errorf("torn file: %d bytes without a complete line", len(data))
	}
	var id, seq int
	if _, err := fmt.Sscanf(string(first), "writer %d version %d", &id, &seq); err != nil {
		return fmt.Errorf("torn file: first line %q: %v", first, err)
	}
	if !bytes.Equal(data, payload(id, seq)) {
		return fmt.Errorf("torn file: %d bytes starting %q are not writer %d's version %d", len(data), first, id, seq)
	}
	return nil
}

// increment adds one to the decimal counter in the file counter (a
// missing file counts as 0) under the lock lockPath. It rewrites the
// counter with os.WriteFile, which truncates first: without the lock,
// concurrent increments would lose updates or read an empty file.
func increment(lockPath, counter string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	unlock, err := Lock(ctx, lockPath)
	if err != nil {
		return err
	}
	n := 0
	data, err := os.ReadFile(counter)
	switch {
	case err == nil:
		if n, err = strconv.Atoi(string(data)); err != nil {
			unlock()
			return fmt.Errorf("counter file holds %q: %v", data, err)
		}
	case !os.IsNotExist(err):
		unlock()
		return err
	}
	if err := os.WriteFile(counter, []byte(strconv.Itoa(n+1)), 0o644); err != nil {
		unlock()
		return err
	}
	return unlock()
}
