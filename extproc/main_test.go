package extproc

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The tests use their own binary as the external program: with
// helperEnv=1 in its environment, TestMain acts as the helper named by its
// first argument instead of running tests.
const helperEnv = "HEES_EXTPROC_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		if err := runHelper(os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// sphere is the objective the "sphere" helper computes; the tests compute
// it too and expect the very same bits back.
func sphere(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += float64(v * v)
	}
	return s
}

func parsePoint(line string) ([]float64, error) {
	var x []float64
	for _, field := range strings.Fields(line) {
		v, err := strconv.ParseFloat(field, 64)
		if err != nil {
			return nil, err
		}
		x = append(x, v)
	}
	return x, nil
}

// runHelper acts as an external program. args[0] is the mode:
//
//	sphere         answers sphere(x) for every line, exits 0 at end of input
//	crash-after N  answers N points, then says "boom" on stderr and exits 3
//	garbage        answers "hello"
//	empty          answers an empty line
//	special        answers line x[0] of specialAnswers
//	eof            reads one point and exits 0 without answering
//	hang           reads one point, says "waiting" on stderr, never answers
//	noread         never reads its input
//	spam           writes 10000 bytes to stderr, then "final words", exits 3
//	longline       answers with a line of 100000 digits
//	linger         like sphere, but does not exit at end of input
//	fail-on-eof    like sphere, but says "bye" on stderr and exits 2 at end of input
//	exit-at-once   says "usage: sim FILE" on stderr and exits 64 without reading
//	grandchild     starts a "noread" helper that shares its stdout and stderr,
//	               says "grandchild pid N" on stderr, then acts like sphere
//	orphan-exit    starts a "noread" helper that shares its stdout and stderr,
//	               reads one point and exits 3 without answering
//	two-lines      answers sphere(x), then sphere(x)+1000 in a second write
//	two-at-once    answers sphere(x) and sphere(x)+1000 in one write
//	extra-at-eof   like sphere, but prints "late" at end of input
//	late-extra     like sphere, but prints "late extra" 20 ms after each answer
//	slow           like sphere, but waits 300 ms before each answer
//	worker         waits 300 ms before each answer, then answers $HEES_WORKER
//	pool-parent    starts a pool of one "noread" helper, prints its pid on
//	               stdout and waits
func runHelper(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("no mode")
	}
	mode := args[0]
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 16<<20)
	switch mode {
	case "noread":
		time.Sleep(time.Hour)
		return nil
	case "exit-at-once":
		fmt.Fprintln(os.Stderr, "usage: sim FILE")
		os.Exit(64)
	case "spam":
		for i := 0; i < 10000; i += len("noise 0000\n") {
			fmt.Fprintf(os.Stderr, "noise %04d\n", i)
		}
		fmt.Fprintln(os.Stderr, "final words")
		os.Exit(3)
	case "grandchild", "orphan-exit":
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		child := exec.Command(exe, "noread")
		child.Stdout, child.Stderr = os.Stdout, os.Stderr
		if err := child.Start(); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "grandchild pid %d\n", child.Process.Pid)
	case "pool-parent":
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		p, err := Start(context.Background(), "'"+exe+"' noread", 1, Options{})
		if err != nil {
			return err
		}
		fmt.Println(p.procs[0].cmd.Process.Pid)
		time.Sleep(time.Hour)
	}
	answered := 0
	for in.Scan() {
		x, err := parsePoint(in.Text())
		if err != nil {
			return err
		}
		switch mode {
		case "sphere", "linger", "fail-on-eof", "grandchild", "extra-at-eof":
			fmt.Println(strconv.FormatFloat(sphere(x), 'g', -1, 64))
		case "worker":
			time.Sleep(300 * time.Millisecond)
			fmt.Println(os.Getenv(WorkerEnv))
		case "slow":
			time.Sleep(300 * time.Millisecond)
			fmt.Println(strconv.FormatFloat(sphere(x), 'g', -1, 64))
		case "late-extra":
			fmt.Println(strconv.FormatFloat(sphere(x), 'g', -1, 64))
			time.Sleep(20 * time.Millisecond)
			fmt.Println("late extra")
		case "two-lines":
			fmt.Println(strconv.FormatFloat(sphere(x), 'g', -1, 64))
			fmt.Println(strconv.FormatFloat(sphere(x)+1000, 'g', -1, 64))
		case "two-at-once":
			fmt.Printf("%s\n%s\n", strconv.FormatFloat(sphere(x), 'g', -1, 64), strconv.FormatFloat(sphere(x)+1000, 'g', -1, 64))
		case "orphan-exit":
			os.Exit(3)
		case "crash-after":
			n, err := strconv.Atoi(args[1])
			if err != nil {
				return err
			}
			if answered == n {
				fmt.Fprintf(os.Stderr, "boom: cannot evaluate %s\n", in.Text())
				os.Exit(3)
			}
			fmt.Println(strconv.FormatFloat(sphere(x), 'g', -1, 64))
		case "garbage":
			fmt.Println("hello")
		case "empty":
			fmt.Println()
		case "special":
			fmt.Println(specialAnswers[int(x[0])])
		case "eof":
			return nil
		case "hang":
			fmt.Fprintln(os.Stderr, "waiting")
			time.Sleep(time.Hour)
		case "longline":
			fmt.Println(strings.Repeat("1", 100000))
		default:
			return fmt.Errorf("unknown mode %q", mode)
		}
		answered++
	}
	switch mode {
	case "linger":
		time.Sleep(time.Hour)
	case "fail-on-eof":
		fmt.Fprintln(os.Stderr, "bye")
		os.Exit(2)
	case "extra-at-eof":
		fmt.Println("late")
	}
	return in.Err()
}

// specialAnswers are answers that read as values: NaN, infinities, a
// number beyond the float64 range and one with blanks and a carriage
// return around it.
var specialAnswers = []string{"nan", "inf", "-Inf", "1e400", " 2.5 \r", "0x1p-2"}

// helperCommand is the command line that runs this test binary as the
// helper in the given mode, with arguments.
func helperCommand(t testing.TB, mode ...string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"'" + strings.ReplaceAll(exe, "'", `'\''`) + "'"}
	return strings.Join(append(words, mode...), " ")
}

// startHelper starts a pool of procs helpers in the given mode and
// arranges, in this order, for Close to be called and for a check that no
// goroutine outlives the pool.
func startHelper(t *testing.T, ctx context.Context, procs int, opts Options, mode ...string) *Pool {
	t.Helper()
	checkNoGoroutineLeak(t)
	opts.Env = append(opts.Env, helperEnv+"=1", noRaceExitDelay())
	p, err := Start(ctx, helperCommand(t, mode...), procs, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// noRaceExitDelay returns the GORACE setting that stops a helper built
// with -race from sleeping a second when it exits (the race detector's
// default atexit_sleep_ms), which would slow the tests down.
func noRaceExitDelay() string {
	return "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")
}

// waitForStderr waits until the stderr of every process of p holds want.
func waitForStderr(t *testing.T, p *Pool, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, pr := range p.procs {
		for !strings.Contains(string(pr.tail.snapshot()), want) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d did not say %q on stderr", pr.index, want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// checkNoGoroutineLeak records the number of goroutines now and, when the
// test ends, fails it if more are left after a short settling time.
func checkNoGoroutineLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if after := runtime.NumGoroutine(); after > before {
			buf := make([]byte, 1<<20)
			t.Errorf("%d goroutines before, %d after:\n%s", before, after, buf[:runtime.Stack(buf, true)])
		}
	})
}
