package extproc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hees-dev/hees/internal/points"
)

func TestSplitCommand(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"./sim", []string{"./sim"}},
		{"  ./sim   --fast\t-n 3\n", []string{"./sim", "--fast", "-n", "3"}},
		{`prog 'a b' "c d"`, []string{"prog", "a b", "c d"}},
		{`prog 'it'\''s'`, []string{"prog", "it's"}},
		{`prog "say \"hi\" \\ \$x \n"`, []string{"prog", `say "hi" \ $x \n`}},
		{`prog a\ b \'q`, []string{"prog", "a b", "'q"}},
		{`prog '' ""`, []string{"prog", "", ""}},
		{`pre'quoted'"joined"post`, []string{"prequotedjoinedpost"}},
		{"prog 'line\nbreak' a\\\nb", []string{"prog", "line\nbreak", "ab"}},
		{`prog '$HOME' *.txt >out`, []string{"prog", "$HOME", "*.txt", ">out"}},
	} {
		got, err := splitCommand(c.in)
		if err != nil {
			t.Errorf("splitCommand(%q): %v", c.in, err)
			continue
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("splitCommand(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for in, want := range map[string]string{
		"":            "empty",
		" \t\n":       "empty",
		"prog 'open":  "unterminated single quote",
		`prog "open`:  "unterminated double quote",
		`prog "\"`:    "unterminated double quote",
		`prog trail\`: "lone backslash",
	} {
		if _, err := splitCommand(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("splitCommand(%q): got error %v, want one saying %q", in, err, want)
		}
	}
}

func TestParseAnswer(t *testing.T) {
	for in, want := range map[string]float64{
		"1.5":                     1.5,
		"-0":                      math.Copysign(0, -1),
		"1e-400":                  0,
		"1e400":                   math.Inf(1),
		"-1e400":                  math.Inf(-1),
		"inf":                     math.Inf(1),
		"-Infinity":               math.Inf(-1),
		" 3\r":                    3,
		"4.9406564584124654e-324": math.SmallestNonzeroFloat64,
	} {
		got, err := parseAnswer(in)
		if err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("parseAnswer(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if got, err := parseAnswer("nan"); err != nil || !math.IsNaN(got) {
		t.Errorf("parseAnswer(\"nan\") = %v, %v; want NaN", got, err)
	}
	for _, in := range []string{"", " ", "hello", "1.5 2", "1,5", "0x", strings.Repeat("7", 300) + "x"} {
		_, err := parseAnswer(in)
		if !errors.Is(err, ErrBadAnswer) {
			t.Errorf("parseAnswer(%q): got %v, want ErrBadAnswer", in, err)
		} else if len(err.Error()) > maxQuotedAnswer+100 {
			t.Errorf("parseAnswer(%q): error of %d bytes, should quote at most %d", in, len(err.Error()), maxQuotedAnswer)
		}
	}
}

func TestTailBuffer(t *testing.T) {
	const size = 16
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		tail := newTailBuffer(size)
		var all []byte
		for range rng.IntN(10) {
			chunk := make([]byte, rng.IntN(3*size))
			for i := range chunk {
				chunk[i] = byte('a' + rng.IntN(26))
			}
			if n, err := tail.Write(chunk); n != len(chunk) || err != nil {
				t.Fatalf("Write returned %d, %v; want %d, nil", n, err, len(chunk))
			}
			all = append(all, chunk...)
		}
		want := all[max(0, len(all)-size):]
		if got := tail.snapshot(); !bytes.Equal(got, want) {
			t.Fatalf("trial %d: tail %q of %q, want %q", trial, got, all, want)
		}
	}
}

// randomPoint draws a point whose coordinates span many magnitudes, so
// that the exact round trip through text is tested.
func randomPoint(rng *rand.Rand, d int) []float64 {
	x := make([]float64, d)
	for i := range x {
		x[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(61)-30))
	}
	return x
}

func TestEvalConcurrent(t *testing.T) {
	const (
		procs   = 4
		callers = 8
		evals   = 100
		dim     = 7
	)
	p := startHelper(t, context.Background(), procs, Options{}, "sphere")
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(3, uint64(c)))
			for range evals {
				x := randomPoint(rng, dim)
				got, err := p.Eval(x)
				if err != nil {
					errs <- err
					return
				}
				if want := sphere(x); math.Float64bits(got) != math.Float64bits(want) {
					errs <- errors.New("wrong value for [" + points.Format(x) + "]")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := p.Eval([]float64{1}); err != ErrClosed {
		t.Errorf("Eval after Close: got %v, want ErrClosed", err)
	}
}

// TestCloseDuringConcurrentEvals closes the pool while eight callers keep
// four processes busy, twenty times. Close reports nothing (the processes
// it had to interrupt are not failures), every caller ends with ErrClosed
// or with an *EvalError wrapping it, at most one per process, and the
// values before that are right.
func TestCloseDuringConcurrentEvals(t *testing.T) {
	const (
		procs   = 4
		callers = 8
		dim     = 5
	)
	for round := range 20 {
		p := startHelper(t, context.Background(), procs, Options{}, "sphere")
		var done atomic.Int64
		var wg sync.WaitGroup
		interrupted := make(chan bool, callers)
		for c := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(round), uint64(c)))
				for {
					x := randomPoint(rng, dim)
					got, err := p.Eval(x)
					var evalErr *EvalError
					switch {
					case err == ErrClosed:
						interrupted <- false
						return
					case errors.As(err, &evalErr) && errors.Is(err, ErrClosed):
						interrupted <- true
						return
					case err != nil:
						t.Errorf("Eval: %v, want ErrClosed or an *EvalError wrapping it", err)
						interrupted <- false
						return
					case math.Float64bits(got) != math.Float64bits(sphere(x)):
						t.Errorf("wrong value for [%s]", points.Format(x))
					}
					done.Add(1)
				}
			}()
		}
		for done.Load() < 50 {
			time.Sleep(time.Millisecond)
		}
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		wg.Wait()
		close(interrupted)
		n := 0
		for i := range interrupted {
			if i {
				n++
			}
		}
		if n > procs {
			t.Errorf("round %d: %d evaluations interrupted by Close, with %d processes", round, n, procs)
		}
	}
}

func TestSpecialValuesAreValues(t *testing.T) {
	p := startHelper(t, context.Background(), 1, Options{}, "special")
	want := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Inf(1), 2.5, 0.25}
	for i, w := range want {
		got, err := p.Eval([]float64{float64(i)})
		if err != nil {
			t.Fatalf("answer %q: %v", specialAnswers[i], err)
		}
		if math.Float64bits(got) != math.Float64bits(w) && !(math.IsNaN(got) && math.IsNaN(w)) {
			t.Errorf("answer %q read as %v, want %v", specialAnswers[i], got, w)
		}
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// evalError evaluates x, expecting an *EvalError that wraps target and
// whose message contains every string in mention.
func evalError(t *testing.T, p *Pool, x []float64, target error, mention ...string) *EvalError {
	t.Helper()
	v, err := p.Eval(x)
	var evalErr *EvalError
	if !errors.As(err, &evalErr) {
		t.Fatalf("Eval = %v, %v; want an *EvalError", v, err)
	}
	if !errors.Is(err, target) {
		t.Errorf("error %q does not wrap %q", err, target)
	}
	if points.Format(evalErr.Point) != points.Format(x) {
		t.Errorf("error names point [%s], want [%s]", points.Format(evalErr.Point), points.Format(x))
	}
	for _, m := range append(mention, "["+points.Format(x)+"]") {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("error %q does not mention %q", err, m)
		}
	}
	return evalErr
}

func TestCrashStopsPool(t *testing.T) {
	p := startHelper(t, context.Background(), 1, Options{}, "crash-after", "2")
	for _, x := range [][]float64{{1, 2}, {3, 4}} {
		if got, err := p.Eval(x); err != nil || got != sphere(x) {
			t.Fatalf("Eval(%v) = %v, %v; want %v", x, got, err, sphere(x))
		}
	}
	x := []float64{0.5, -1.25}
	first := evalError(t, p, x, ErrNoAnswer, "exit status 3", "boom: cannot evaluate 0.5 -1.25", "pid")
	if first.Stderr != "boom: cannot evaluate 0.5 -1.25\n" {
		t.Errorf("stderr tail %q", first.Stderr)
	}
	// The pool is stopped: every later Eval returns the first error.
	if _, err := p.Eval([]float64{1, 1}); err != first {
		t.Errorf("Eval after a crash: got %v, want the crash error again", err)
	}
	// The crash was reported already; Close has nothing to add.
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestRestartAfterCrash checks Options.Restart: a process that crashes, or
// answers garbage, is replaced by a fresh one of the same index, the
// failed Eval returns its *EvalError, and the pool goes on (two processes,
// concurrent callers); Close then reports nothing. With the evaluation's
// own context canceled the pool stops as without Restart.
func TestRestartAfterCrash(t *testing.T) {
	p := startHelper(t, context.Background(), 2, Options{Restart: true}, "crash-after", "1")
	var wg sync.WaitGroup
	var failed, good atomic.Int64
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 6 {
				x := []float64{float64(w), float64(i)}
				v, err := p.Eval(x)
				var evalErr *EvalError
				switch {
				case errors.As(err, &evalErr) && errors.Is(err, ErrNoAnswer):
					failed.Add(1)
				case err == nil && v == sphere(x):
					good.Add(1)
				default:
					t.Errorf("Eval(%v) = %v, %v", x, v, err)
				}
			}
		}()
	}
	wg.Wait()
	// Each process answers once, then crashes on its second point: every
	// crash follows a good answer of its process, and each of the two last
	// processes may have answered once without crashing yet.
	if g, f := good.Load(), failed.Load(); g+f != 12 || g < f || g > f+2 {
		t.Errorf("%d good answers, %d failures; want 12 calls, as many good answers as failures or up to 2 more", g, f)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}

	g := startHelper(t, context.Background(), 1, Options{Restart: true}, "garbage")
	evalError(t, g, []float64{1, 2}, ErrBadAnswer)
	evalError(t, g, []float64{3, 4}, ErrBadAnswer) // a fresh process, same fate
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.EvalContext(ctx, []float64{5, 6}); err == nil {
		t.Error("EvalContext with a canceled context: no error")
	}
	if err := g.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestBadAnswers(t *testing.T) {
	for _, c := range []struct {
		mode    string
		target  error
		mention string
	}{
		{"garbage", ErrBadAnswer, `"hello"`},
		{"empty", ErrBadAnswer, `""`},
		{"longline", ErrBadAnswer, "longer than 65536 bytes"},
		{"eof", ErrNoAnswer, "exited (exit status 0)"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			p := startHelper(t, context.Background(), 2, Options{}, c.mode)
			evalError(t, p, []float64{1e-300, -7, 2.5}, c.target, c.mention)
			if _, err := p.Eval([]float64{1}); !errors.Is(err, c.target) {
				t.Errorf("Eval after the failure: got %v, want the failure again", err)
			}
		})
	}
}

// TestProgramExitsAtOnce: the point is written to a program that is gone
// (or about to go); either way the error carries its exit status and
// message.
func TestProgramExitsAtOnce(t *testing.T) {
	p := startHelper(t, context.Background(), 1, Options{}, "exit-at-once")
	time.Sleep(50 * time.Millisecond) // most likely, the write meets a closed pipe
	evalError(t, p, []float64{2}, ErrNoAnswer, "exited (exit status 64)", "\tusage: sim FILE")
}

func TestStderrTail(t *testing.T) {
	p := startHelper(t, context.Background(), 1, Options{}, "spam")
	e := evalError(t, p, []float64{1}, ErrNoAnswer, "exit status 3", "its stderr ends with:\n\t", "\tfinal words")
	if len(e.Stderr) != stderrTailSize || !strings.HasSuffix(e.Stderr, "noise 9999\nfinal words\n") {
		t.Errorf("stderr tail of %d bytes, want the last %d ending in the last noise and \"final words\": %q",
			len(e.Stderr), stderrTailSize, e.Stderr)
	}
	if strings.Contains(e.Stderr, "noise 0000") {
		t.Error("stderr tail holds the first line of a 10 KB stderr")
	}
}

func TestTimeout(t *testing.T) {
	for _, c := range []struct {
		mode string
		dim  int
	}{
		{"hang", 3},
		// A point larger than a pipe's buffer blocks in the write.
		{"noread", 100000},
	} {
		t.Run(c.mode, func(t *testing.T) {
			p := startHelper(t, context.Background(), 1, Options{EvalTimeout: 100 * time.Millisecond}, c.mode)
			x := make([]float64, c.dim)
			_, err := p.Eval(x)
			var evalErr *EvalError
			if !errors.As(err, &evalErr) || !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "timed out after 100ms") {
				t.Fatalf("got %v, want an *EvalError for a timeout", err)
			}
			if err := p.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}

func TestCancelUnblocksEval(t *testing.T) {
	const procs = 2
	ctx, cancel := context.WithCancel(context.Background())
	p := startHelper(t, ctx, procs, Options{}, "hang")
	// One more caller than processes: it waits for an idle process.
	errs := make(chan error, procs+1)
	for i := range procs + 1 {
		go func() {
			_, err := p.Eval([]float64{float64(i)})
			errs <- err
		}()
	}
	waitForStderr(t, p, "waiting") // every process holds a point
	cancel()
	for range procs + 1 {
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Errorf("Eval after cancel: got %v, want context.Canceled", err)
		}
	}
	if _, err := p.Eval([]float64{1}); !errors.Is(err, context.Canceled) {
		t.Errorf("Eval after cancel: got %v, want context.Canceled", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close after cancel: %v", err)
	}
}

func TestCloseInterruptsEval(t *testing.T) {
	p := startHelper(t, context.Background(), 1, Options{}, "hang")
	done := make(chan error, 1)
	go func() {
		_, err := p.Eval([]float64{4})
		done <- err
	}()
	waitForStderr(t, p, "waiting") // the process holds the point
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	var evalErr *EvalError
	if err := <-done; !errors.As(err, &evalErr) || !errors.Is(err, ErrClosed) {
		t.Errorf("Eval interrupted by Close: got %v, want an *EvalError wrapping ErrClosed", err)
	}
}

func TestCloseReportsProcessesThatFail(t *testing.T) {
	t.Run("exit status", func(t *testing.T) {
		p := startHelper(t, context.Background(), 2, Options{}, "fail-on-eof")
		if _, err := p.Eval([]float64{1}); err != nil {
			t.Fatal(err)
		}
		err := p.Close()
		if err == nil || strings.Count(err.Error(), "exit status 2") != 2 || !strings.Contains(err.Error(), "\tbye") {
			t.Errorf("Close: got %v, want two failures with exit status 2 and stderr \"bye\"", err)
		}
		if again := p.Close(); again != err {
			t.Errorf("second Close: got %v, want the first result again", again)
		}
	})
	t.Run("killed", func(t *testing.T) {
		p := startHelper(t, context.Background(), 1, Options{CloseTimeout: 100 * time.Millisecond}, "linger")
		if _, err := p.Eval([]float64{1}); err != nil {
			t.Fatal(err)
		}
		if err := p.Close(); err == nil || !strings.Contains(err.Error(), "did not exit within 100ms") {
			t.Errorf("Close: got %v, want a report of the killed process", err)
		}
	})
}

func TestStartErrors(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	ok := helperCommand(t, "sphere")
	for _, c := range []struct {
		name    string
		ctx     context.Context
		command string
		procs   int
		opts    Options
		want    string
	}{
		{"empty command", context.Background(), " ", 1, Options{}, "command is empty"},
		{"bad quoting", context.Background(), "sim 'x", 1, Options{}, "unterminated single quote"},
		{"no processes", context.Background(), ok, 0, Options{}, "0 processes requested, want 1 to 4096"},
		{"too many processes", context.Background(), ok, MaxProcs + 1, Options{}, "4097 processes requested"},
		{"negative timeout", context.Background(), ok, 1, Options{EvalTimeout: -1}, "negative evaluation timeout"},
		{"negative close timeout", context.Background(), ok, 1, Options{CloseTimeout: -1}, "negative close timeout"},
		{"negative warning delay", context.Background(), ok, 1, Options{WarnAfter: -1}, "negative warning delay"},
		{"missing program", context.Background(), "/no/such/sim --fast", 2, Options{}, `starting "/no/such/sim --fast"`},
		{"canceled", canceled, ok, 1, Options{}, "context canceled"},
		{"nil context", nil, ok, 1, Options{}, "nil Context"},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkNoGoroutineLeak(t)
			p, err := Start(c.ctx, c.command, c.procs, c.opts)
			if err == nil {
				p.Close()
				t.Fatal("Start succeeded")
			}
			if !strings.HasPrefix(err.Error(), "extproc: ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %q, want an error saying %q", err, c.want)
			}
		})
	}
}

// TestExtraLinesAreProtocolErrors: a program that prints two lines per
// point never has its second line taken as the answer of the next point
// without the pool failing soon after with a protocol error.
func TestExtraLinesAreProtocolErrors(t *testing.T) {
	t.Run("one write", func(t *testing.T) {
		// Both lines come in one read, before the next point is written.
		p := startHelper(t, context.Background(), 1, Options{}, "two-at-once")
		evalError(t, p, []float64{1, 2}, ErrProtocol, `"1005\n"`, `answer "5"`, "exactly one line per point")
	})
	t.Run("two writes", func(t *testing.T) {
		// The second line may come after the next point was written, and
		// be taken as its answer; the program has then printed more lines
		// than it was given points, which the pool finds out at the latest
		// when it is closed.
		p := startHelper(t, context.Background(), 1, Options{}, "two-lines")
		rng := rand.New(rand.NewPCG(1, 2))
		var err error
		for range 4 {
			if _, err = p.Eval(randomPoint(rng, 3)); err != nil {
				break
			}
		}
		if err == nil {
			err = p.Close()
		}
		if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "exactly one line per point") {
			t.Fatalf("got %v, want a protocol error", err)
		}
	})
	t.Run("while idle", func(t *testing.T) {
		// The extra line comes while no evaluation runs, and none follows:
		// Close reports it.
		p := startHelper(t, context.Background(), 1, Options{}, "late-extra")
		if _, err := p.Eval([]float64{1}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
		err := p.Close()
		if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), `"late extra" before its point was sent`) ||
			!strings.Contains(err.Error(), "wrong points") {
			t.Errorf("Close: got %v, want the protocol error", err)
		}
	})
	t.Run("at close", func(t *testing.T) {
		p := startHelper(t, context.Background(), 2, Options{}, "extra-at-eof")
		if _, err := p.Eval([]float64{1}); err != nil {
			t.Fatal(err)
		}
		err := p.Close()
		if !errors.Is(err, ErrProtocol) || strings.Count(err.Error(), `line "late" before its point was sent`) != 2 {
			t.Errorf("Close: got %v, want a protocol error for each process", err)
		}
	})
}

// TestExitNoticedWhileChildHoldsOutput: a program that exits while a
// process it started holds its output open fails with its exit status at
// once, not with a timeout or never.
func TestExitNoticedWhileChildHoldsOutput(t *testing.T) {
	for _, opts := range []Options{{}, {EvalTimeout: 20 * time.Second}} {
		t.Run(fmt.Sprint("timeout ", opts.EvalTimeout), func(t *testing.T) {
			p := startHelper(t, context.Background(), 1, opts, "orphan-exit")
			done := make(chan error, 1)
			go func() {
				_, err := p.Eval([]float64{1})
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, ErrNoAnswer) || !strings.Contains(err.Error(), "exited (exit status 3)") {
					t.Errorf("got %v, want no answer with exit status 3", err)
				}
			case <-time.After(10 * time.Second):
				p.Close()
				t.Fatalf("Eval still waits 10 s after the program exited; after Close: %v", <-done)
			}
		})
	}
}

// TestWarnOnLongWait: an evaluation that waits longer than WarnAfter is
// reported once per pool through Warn, and still gets its answer.
func TestWarnOnLongWait(t *testing.T) {
	var (
		mu       sync.Mutex
		messages []string
	)
	warn := func(m string) {
		mu.Lock()
		defer mu.Unlock()
		messages = append(messages, m)
	}
	p := startHelper(t, context.Background(), 2, Options{Warn: warn, WarnAfter: 50 * time.Millisecond}, "slow")
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := []float64{float64(i), 0.5}
			if got, err := p.Eval(x); err != nil || got != sphere(x) {
				t.Errorf("Eval(%v) = %v, %v; want %v", x, got, err, sphere(x))
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(messages) != 1 {
		t.Fatalf("%d warnings, want 1: %q", len(messages), messages)
	}
	for _, want := range []string{"has not answered [", "after 50ms", "line by line", "mawk: -W interactive", "flush", "timeout"} {
		if !strings.Contains(messages[0], want) {
			t.Errorf("warning %q does not mention %q", messages[0], want)
		}
	}
	if strings.Contains(messages[0], "\n") {
		t.Errorf("warning %q has more than one line", messages[0])
	}
}

// BenchmarkEval measures one round trip through a helper process: write a
// point, read the answer.
func BenchmarkEval(b *testing.B) {
	for _, d := range []int{10, 1000} {
		b.Run("d="+strconv.Itoa(d), func(b *testing.B) {
			p, err := Start(context.Background(), helperCommand(b, "sphere"), 1,
				Options{Env: []string{helperEnv + "=1", noRaceExitDelay()}})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			x := randomPoint(rand.New(rand.NewPCG(5, 5)), d)
			for b.Loop() {
				if _, err := p.Eval(x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDir starts a program by a path relative to Options.Dir, which reads
// a file of that directory: both are found there, not in the caller's
// working directory.
func TestDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the program is an sh script")
	}
	checkNoGoroutineLeak(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sim"), []byte("#!/bin/sh\nwhile read line; do cat value; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "value"), []byte("7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Start(context.Background(), "./sim", 1, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if got, err := p.Eval([]float64{1, 2}); err != nil || got != 7 {
		t.Errorf("Eval = %v, %v; want 7 from the program and file of Dir", got, err)
	}
}

// TestWorkerIndex evaluates three points at once on a pool of three
// processes that answer their HEES_WORKER after a wait, so that each
// process takes one point: the answers are the indices 0, 1 and 2, also
// when the caller's Env sets HEES_WORKER itself.
func TestWorkerIndex(t *testing.T) {
	const procs = 3
	p := startHelper(t, context.Background(), procs, Options{Env: []string{WorkerEnv + "=9"}}, "worker")
	answers := make(chan float64, procs)
	var wg sync.WaitGroup
	for range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := p.Eval([]float64{1, 2})
			if err != nil {
				t.Error(err)
			}
			answers <- v
		}()
	}
	wg.Wait()
	close(answers)
	seen := map[float64]bool{}
	for v := range answers {
		seen[v] = true
	}
	for i := range procs {
		if !seen[float64(i)] {
			t.Errorf("no process answered HEES_WORKER=%d; answers %v", i, seen)
		}
	}
}
