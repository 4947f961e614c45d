//go:build unix

package extproc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// processGone reports whether pid names no running process: none at all,
// or on Linux a zombie that its new parent has yet to reap (the init of a
// container may never do so).
func processGone(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return true
	}
	if runtime.GOOS == "linux" {
		// The state is the first field after the ")" that ends the name.
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if i := bytes.LastIndexByte(stat, ')'); err == nil && i >= 0 && i+2 < len(stat) {
			return stat[i+2] == 'Z'
		}
	}
	return false
}

// checkGone fails the test unless the process pid is gone within a few
// seconds.
func checkGone(t *testing.T, pid int, what string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if processGone(pid) {
			return
		}
	}
	t.Errorf("%s (pid %d) still runs after Close", what, pid)
}

func TestCloseLeavesNoProcess(t *testing.T) {
	for _, c := range []struct {
		name string
		opts Options
		mode []string
		run  func(p *Pool, cancel context.CancelFunc)
	}{
		{"exit at end of input", Options{}, []string{"sphere"}, func(p *Pool, _ context.CancelFunc) { p.Eval([]float64{1}) }},
		{"ignores end of input", Options{CloseTimeout: 50 * time.Millisecond}, []string{"linger"}, func(p *Pool, _ context.CancelFunc) { p.Eval([]float64{1}) }},
		{"crash", Options{}, []string{"crash-after", "0"}, func(p *Pool, _ context.CancelFunc) { p.Eval([]float64{1}) }},
		{"timeout", Options{EvalTimeout: 50 * time.Millisecond}, []string{"hang"}, func(p *Pool, _ context.CancelFunc) { p.Eval([]float64{1}) }},
		{"cancel", Options{}, []string{"hang"}, func(p *Pool, cancel context.CancelFunc) {
			time.AfterFunc(50*time.Millisecond, cancel)
			p.Eval([]float64{1})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p := startHelper(t, ctx, 3, c.opts, c.mode...)
			c.run(p, cancel)
			p.Close()
			for _, pr := range p.procs {
				checkGone(t, pr.cmd.Process.Pid, fmt.Sprintf("process %d", pr.index))
			}
		})
	}
}

// TestGrandchildKilled: a helper that the program started and that holds
// its output open dies with the program's process group.
func TestGrandchildKilled(t *testing.T) {
	p := startHelper(t, context.Background(), 1, Options{}, "grandchild")
	if _, err := p.Eval([]float64{1}); err != nil {
		t.Fatal(err)
	}
	pidLine := regexp.MustCompile(`grandchild pid (\d+)`)
	var pid int
	for deadline := time.Now().Add(5 * time.Second); pid == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := pidLine.FindSubmatch(p.procs[0].tail.snapshot()); m != nil {
			pid, _ = strconv.Atoi(string(m[1]))
		}
	}
	if pid == 0 {
		t.Fatalf("helper did not report its child; stderr %q", p.procs[0].tail.snapshot())
	}
	if processGone(pid) {
		t.Fatal("grandchild gone before Close: the test proves nothing")
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	checkGone(t, pid, "grandchild")
}
