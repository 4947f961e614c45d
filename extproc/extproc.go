// Package extproc evaluates an objective function in external programs, so
// that hees can optimise a simulator it cannot link against (`hees run -cmd
// "./sim --fast" -d 7`).
//
// # Protocol
//
// A Pool starts the command several times and keeps every process running
// for the whole optimisation. To evaluate a point it writes one line to the
// standard input of an idle process: the coordinates formatted with
// strconv.FormatFloat(v, 'g', -1, 64), separated by single spaces, ending in
// "\n" (or the text Options.Encode writes for the point, such as one JSON
// object of named values, and "\n"). It then reads one line from the process's standard output: the
// objective value, a number as strconv.ParseFloat reads it (surrounding
// blanks and a "\r" are ignored). "nan", "inf" and "-inf" are values, not
// errors: the strategy ranks them by its own rules. A number too large for
// a float64 reads as ±Inf. The program must print exactly one line per
// point, answer each line before it reads the next, read its input line by
// line and flush its output after each answer: one that reads its input in
// blocks (mawk without -W interactive) or buffers its output (C's stdio,
// Python without flush=True) waits forever, and Options.Warn hears of a
// wait longer than Options.WarnAfter. Output that comes before its point
// was written (a second line for the previous point, say) is a protocol
// error (ErrProtocol): it is not taken as an answer. The pipe carries no
// timing, so an extra line that reaches hees only after the next point was
// written is taken as that point's answer; but then the program has
// printed more lines than it was given points, and the pool finds a line
// no point asked for, at the latest when it is closed, whose error then
// says that answers may have gone to the wrong points.
// At the end the pool closes the standard inputs, and the program is
// expected to exit when it reads end of file. Each process finds its index
// in the pool, 0 to procs-1, in the environment variable HEES_WORKER
// (WorkerEnv), for scratch files of its own.
//
// # Failures
//
// The process crashing or exiting (noticed even when a process it started
// still holds its output open), an answer that is not a number (an empty
// line included), a protocol error and an evaluation that outlasts
// Options.EvalTimeout are errors of type *EvalError, which names the point, the process and the
// last 2 KiB of the process's standard error. A failure stops the pool: the
// failed process is killed and not restarted, and every later Eval
// returns the same error; with Options.Restart the failed process is
// replaced by a fresh one instead and the pool goes on. Canceling the
// context given to Start kills all processes and unblocks every Eval;
// canceling the context given to EvalContext kills the process of that
// evaluation (and stops the pool).
//
// # With es.Minimize
//
// es.FuncContext(pool.EvalContext) is an objective for es.Minimize: a
// failed evaluation stops the run with an *es.ObjectiveError that wraps the
// *EvalError, and when the run stops for any reason (another evaluation's
// failure, Options.MaxTime, a cancel) the programs still evaluating are
// killed. Give the pool as many processes as Options.Workers. A run that
// goes on after a failure (es.Options.OnError, es.Options.Retries) needs
// Options.Restart here, so that the next point gets a live program.
//
// On Unix each process runs in its own process group, and killing it kills
// the group, so helpers a program started ("sh -c", Python workers) do not
// outlive it. A helper that leaves the group (setsid, or a daemon that
// detaches) is out of reach and may outlive the pool. On Linux and FreeBSD
// each process also gets SIGKILL when the program that started the pool
// dies, even by SIGKILL (its parent-death signal; helpers in its group are
// not covered).
// Linux sends that signal when the operating-system thread that started the
// process ends; Go ends a thread only when a goroutine locked to it with
// runtime.LockOSThread returns without unlocking, which a program using
// extproc must not do.
package extproc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hees-dev/hees/internal/points"
)

// MaxProcs bounds the number of processes of a pool, which Start forks
// all at once.
const MaxProcs = 4096

// DefaultCloseTimeout is how long Close waits for the processes to exit
// after closing their input, when Options.CloseTimeout is zero.
const DefaultCloseTimeout = 5 * time.Second

const (
	// stderrTailSize is how many of the last bytes of each process's
	// standard error are kept for error messages.
	stderrTailSize = 2048
	// maxAnswerLine bounds one line of a process's standard output.
	maxAnswerLine = 64 << 10
	// exitGrace is how long an evaluation whose process closed its output
	// waits for the process to exit, so that the error can carry the exit
	// status, before it kills the process.
	exitGrace = time.Second
	// stderrGrace is how long to wait, once a process is dead, for the end
	// of its standard error, which a stray descendant may hold open.
	stderrGrace = 500 * time.Millisecond
	// maxQuotedAnswer bounds how much of a bad answer an error quotes.
	maxQuotedAnswer = 200
	// answerGrace is how long an evaluation whose process has exited waits
	// for an answer still in the pipe; a process the program started may
	// hold the pipe open, so its end never comes.
	answerGrace = 200 * time.Millisecond
	// maxWarnPoint bounds how much of a point a warning quotes.
	maxWarnPoint = 200
)

// DefaultWarnAfter is how long an evaluation waits for its answer before
// Options.Warn hears of it, when Options.WarnAfter is zero.
const DefaultWarnAfter = 10 * time.Second

// WorkerEnv is the environment variable that tells each process of a pool
// its index, 0 to procs-1 ("HEES_WORKER=2"), so that a program can keep
// per-worker scratch files. It overrides a variable of the same name in
// Options.Env or in the calling program's environment. A process started
// again in the place of another (a restart after a failure) gets the same
// index.
const WorkerEnv = "HEES_WORKER"

// Options adjusts a Pool. The zero value is ready to use.
type Options struct {
	// Env lists extra environment variables, as "KEY=value", given to every
	// process on top of the environment of the calling program (and below
	// WorkerEnv).
	Env []string
	// WorkerBase is added to the index of each process in WorkerEnv, for a
	// caller whose pools must give indices unique among several pools
	// (hees worker's loops, which each have a pool of one process).
	WorkerBase int
	// Dir is the working directory of every process, against which a
	// relative program path such as "./sim" is resolved too; "" means the
	// calling program's.
	Dir string
	// EvalTimeout bounds one evaluation, from writing the point to reading
	// the answer, and an evaluation that takes longer fails with ErrTimeout.
	// Zero means no limit.
	EvalTimeout time.Duration
	// CloseTimeout is how long Close waits for the processes to exit after
	// closing their input before it kills them. Zero means
	// DefaultCloseTimeout.
	CloseTimeout time.Duration
	// Warn, if not nil, is called once per pool with a one-line message
	// when an evaluation has waited WarnAfter for its answer: what is being
	// waited for and what to check. It must not block for long; the
	// evaluation goes on waiting.
	Warn func(message string)
	// WarnAfter is the wait before Warn is called; zero means
	// DefaultWarnAfter.
	WarnAfter time.Duration
	// Encode, when not nil, writes the line of a point instead of the
	// numbers: it appends the text for x to dst, without the newline, and
	// returns it (such as one JSON object of named values, hees run
	// -format json). The text must not contain a newline. Errors and
	// warnings then quote that text.
	Encode func(dst []byte, x []float64) []byte
	// Restart, when true, replaces the process of a failed evaluation by a
	// fresh one of the same index instead of stopping the pool: the Eval
	// still returns its *EvalError, and the next Eval gets a new process
	// (for a caller that goes on after a failure, such as es.Minimize with
	// es.OnErrorWorst or Retries). An evaluation whose own context was
	// canceled, and a process that cannot be started again, stop the pool
	// as without Restart.
	Restart bool
}

// Errors that an *EvalError wraps, to be tested with errors.Is. A canceled
// context gives an *EvalError that wraps the context's error instead.
var (
	// ErrNoAnswer: the process exited, or closed its output or input,
	// before answering.
	ErrNoAnswer = errors.New("no answer")
	// ErrBadAnswer: the answer line is not a number.
	ErrBadAnswer = errors.New("answer is not a number")
	// ErrTimeout: the evaluation outlasted Options.EvalTimeout.
	ErrTimeout = errors.New("evaluation timed out")
	// ErrProtocol: the process printed output no point asked for, such as
	// two lines for one point.
	ErrProtocol = errors.New("protocol error")
	// ErrClosed: the pool was closed. Eval returns it, unwrapped, once
	// Close has been called.
	ErrClosed = errors.New("extproc: pool closed")
)

// EvalError reports a failed evaluation.
type EvalError struct {
	Point   []float64 // the point being evaluated
	Line    string    // the line written for it, when Options.Encode wrote it
	Process int       // the process's index in the pool, from 0
	PID     int       // the process's operating-system id
	Err     error     // the cause
	Stderr  string    // the last bytes (up to 2 KiB) of the process's standard error
}

// Error names the point, the process, the cause and the standard error
// tail, which follows on indented lines.
func (e *EvalError) Error() string {
	point := "[" + points.Format(e.Point) + "]"
	if e.Line != "" {
		point = e.Line
	}
	return fmt.Sprintf("extproc: evaluating %s in process %d (pid %d): %v%s",
		point, e.Process, e.PID, e.Err, stderrSection(e.Stderr))
}

// Unwrap returns the cause.
func (e *EvalError) Unwrap() error { return e.Err }

// stderrSection formats a standard error tail for the end of a message.
func stderrSection(tail string) string {
	tail = strings.TrimRight(tail, "\n")
	if tail == "" {
		return "; its stderr is empty"
	}
	return "; its stderr ends with:\n\t" + strings.ReplaceAll(tail, "\n", "\n\t")
}

// parseAnswer reads an answer line as a float64. A number out of the
// float64 range is ±Inf, as strconv.ParseFloat returns it.
func parseAnswer(line string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(line), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%w: %s", ErrBadAnswer, quoteLine(line))
	}
	return v, nil
}

// quoteLine quotes the first maxQuotedAnswer bytes of a line of output.
func quoteLine(line string) string {
	if len(line) > maxQuotedAnswer {
		return strconv.Quote(line[:maxQuotedAnswer]) + "..."
	}
	return strconv.Quote(line)
}

// Pool is a set of long-lived processes of one command that evaluate
// points. Eval is safe for concurrent use; with more concurrent callers
// than processes, the extra callers wait for an idle process.
type Pool struct {
	opts  Options
	words []string      // the command
	procs []*process    // indexed by process index; under mu once started
	idle  chan *process // processes ready for a point

	mu      sync.Mutex
	err     error         // the first failure, returned by every later Eval
	stopped chan struct{} // closed when err is set
	// out marks the processes taken from idle by an Eval that found the
	// pool running: evaluating, or dead after a failed evaluation. Eval sets
	// and clears it under mu together with its check of err, so Close,
	// which sets err first, sees exactly the evaluations it must interrupt.
	out map[*process]bool

	closing    chan struct{}  // closed by Close, to end the context watcher
	watcher    sync.WaitGroup // the context watcher
	goroutines sync.WaitGroup // the processes' waiters and readers
	closeOnce  sync.Once
	closeErr   error

	warned atomic.Bool // Options.Warn was called
}

// Start starts procs processes of command and returns the pool that
// evaluates points with them.
//
// command is split into words like a simple shell command: blanks separate
// words, '...' and "..." quote, and a backslash escapes the next character;
// no shell runs, and there are no variables, globs or redirections. The
// first word is the program, looked up in PATH when it has no slash.
//
// Canceling ctx kills the processes and makes every pending and later Eval
// fail; Close must still be called. Bad arguments, or a program that cannot
// be started, give an error and no pool.
func Start(ctx context.Context, command string, procs int, opts Options) (*Pool, error) {
	words, err := splitCommand(command)
	if err != nil {
		return nil, fmt.Errorf("extproc: %w", err)
	}
	switch {
	case ctx == nil:
		return nil, errors.New("extproc: nil Context (use context.Background())")
	case procs < 1 || procs > MaxProcs:
		return nil, fmt.Errorf("extproc: %d processes requested, want 1 to %d", procs, MaxProcs)
	case opts.EvalTimeout < 0:
		return nil, fmt.Errorf("extproc: negative evaluation timeout %v", opts.EvalTimeout)
	case opts.CloseTimeout < 0:
		return nil, fmt.Errorf("extproc: negative close timeout %v", opts.CloseTimeout)
	case opts.WarnAfter < 0:
		return nil, fmt.Errorf("extproc: negative warning delay %v", opts.WarnAfter)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("extproc: %w", err)
	}
	if opts.CloseTimeout == 0 {
		opts.CloseTimeout = DefaultCloseTimeout
	}
	if opts.WarnAfter == 0 {
		opts.WarnAfter = DefaultWarnAfter
	}
	p := &Pool{
		opts:    opts,
		words:   words,
		idle:    make(chan *process, procs),
		stopped: make(chan struct{}),
		closing: make(chan struct{}),
		out:     make(map[*process]bool, procs),
	}
	for i := range procs {
		pr, err := p.startProcess(i)
		if err != nil {
			for _, started := range p.procs {
				started.abort(ErrClosed)
			}
			p.Close() // reaps the processes; their fate is not news
			return nil, fmt.Errorf("extproc: starting %q: %w", command, err)
		}
		p.procs = append(p.procs, pr)
		p.idle <- pr
	}
	p.watcher.Add(1)
	go func() {
		defer p.watcher.Done()
		select {
		case <-ctx.Done():
			p.stop(fmt.Errorf("extproc: stopped: %w", ctx.Err()))
			for _, pr := range p.procs {
				pr.abort(ctx.Err())
			}
		case <-p.closing:
		}
	}()
	return p, nil
}

// Eval evaluates the objective at x in an idle process, waiting for one if
// all are busy. It returns the value the process answered, which may be
// NaN or ±Inf, or an error: an *EvalError for a failed evaluation, after
// which the pool is stopped and every later Eval returns that same error;
// ErrClosed after Close; an error wrapping the context's error after the
// context given to Start was canceled.
func (p *Pool) Eval(x []float64) (float64, error) {
	return p.EvalContext(context.Background(), x)
}

// EvalContext is Eval that gives up when ctx is canceled: waiting for an
// idle process, it returns ctx's error; evaluating, it kills the process
// and fails with an *EvalError that wraps ctx's error, which stops the pool
// like any failed evaluation. es.FuncContext(pool.EvalContext) is an
// objective for es.Minimize, which cancels the evaluations in progress
// when the run stops.
func (p *Pool) EvalContext(ctx context.Context, x []float64) (float64, error) {
	if err := p.stopErr(); err != nil {
		return 0, err
	}
	var pr *process
	select {
	case pr = <-p.idle:
	case <-p.stopped:
		return 0, p.stopErr()
	case <-ctx.Done():
		return 0, fmt.Errorf("extproc: %w", ctx.Err())
	}
	p.mu.Lock()
	if err := p.err; err != nil {
		p.mu.Unlock()
		p.idle <- pr
		return 0, err
	}
	p.out[pr] = true
	p.mu.Unlock()
	v, err := pr.eval(ctx, x, p)
	if err != nil {
		// The process is dead and stays out of the idle set.
		if !p.opts.Restart || ctx.Err() != nil || !p.restart(pr) {
			p.stop(err)
		}
		return 0, err
	}
	p.mu.Lock()
	delete(p.out, pr)
	p.mu.Unlock()
	p.idle <- pr
	return v, nil
}

// Close closes the standard input of every process, waits up to
// Options.CloseTimeout for them to exit, kills those still running (and on
// Unix whatever else is left in their process groups), and returns once
// every process has been reaped and every goroutine of the pool has ended.
// Its error reports the processes that had to be killed or that exited with
// a failure status, except those an earlier error already reported, and
// output that no point asked for (wrapping ErrProtocol) that no Eval
// reported: then answers may have gone to the wrong points. Eval
// calls still in progress are interrupted and fail with an *EvalError
// wrapping ErrClosed; later ones return ErrClosed. Calling Close again
// returns the same result.
func (p *Pool) Close() error {
	p.closeOnce.Do(func() { p.closeErr = p.shutdown() })
	return p.closeErr
}

func (p *Pool) shutdown() error {
	p.stop(ErrClosed)
	close(p.closing)
	p.watcher.Wait()

	// Evaluations in progress end now; a process that is out is evaluating,
	// or is dead and reported already. The others are idle, or are being
	// handed back by an Eval that finished: they get their end of input.
	p.mu.Lock()
	for _, pr := range p.procs {
		if p.out[pr] {
			pr.abort(ErrClosed)
		}
	}
	p.mu.Unlock()
	// Close reports on the others.
	healthy := make([]bool, len(p.procs))
	for i, pr := range p.procs {
		healthy[i] = pr.abortCause() == nil
		pr.stdin.Close() // end of file tells the program to exit
	}

	deadline := time.NewTimer(p.opts.CloseTimeout)
	defer deadline.Stop()
	expired := false
	var errs []error
	for i, pr := range p.procs {
		if !expired {
			select {
			case <-pr.exited:
				continue
			case <-deadline.C:
				expired = true
			}
		}
		select {
		case <-pr.exited:
		default:
			if healthy[i] {
				errs = append(errs, fmt.Errorf("extproc: process %d (pid %d) did not exit within %v after its input was closed; killed it",
					pr.index, pr.cmd.Process.Pid, p.opts.CloseTimeout))
				healthy[i] = false
			}
			pr.abort(ErrClosed)
			<-pr.exited
		}
	}
	for i, pr := range p.procs {
		if healthy[i] {
			// Output left unread, or printed after the input was closed, is
			// a protocol error that no evaluation has reported: an answer
			// may have been taken for the wrong point.
			pr.waitOutputEnd()
		}
		pr.abort(ErrClosed) // kills what is left of the process group, closes the pipes
		tail := pr.stderrTail()
		pr.stderr.Close()
		if cause := pr.abortCause(); errors.Is(cause, ErrProtocol) && !pr.causeReported() {
			errs = append(errs, fmt.Errorf("extproc: process %d (pid %d): %w; earlier answers may have gone to the wrong points",
				pr.index, pr.cmd.Process.Pid, cause))
		} else if healthy[i] && pr.waitErr != nil {
			errs = append(errs, fmt.Errorf("extproc: process %d (pid %d) failed after its input was closed: %v%s",
				pr.index, pr.cmd.Process.Pid, pr.waitErr, stderrSection(tail)))
		}
	}
	p.goroutines.Wait()
	return errors.Join(errs...)
}

// restart replaces the dead process pr by a fresh one of the same index,
// which it makes idle, and reaps pr. It reports false, leaving pr for Close,
// when the new process cannot be started. A pool stopped meanwhile gets no
// new process: restart reaps it at once.
func (p *Pool) restart(pr *process) bool {
	fresh, err := p.startProcess(pr.index)
	if err != nil {
		return false
	}
	p.mu.Lock()
	running := p.err == nil
	if running {
		// Close iterates procs once the pool is stopped, so the swap
		// happens before it or not at all.
		p.procs[pr.index] = fresh
		delete(p.out, pr)
	}
	p.mu.Unlock()
	if !running {
		fresh.abort(ErrClosed)
		fresh.reap()
		return true // the pool is stopped with its own error
	}
	pr.reap()
	p.idle <- fresh
	return true
}

// reap waits for the killed process to exit and closes its standard error.
func (pr *process) reap() {
	<-pr.exited
	pr.stderrTail() // waits a little for the end of the standard error
	pr.stderr.Close()
}

// stop records err as the pool's failure, unless one is recorded already.
func (p *Pool) stop(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		p.err = err
		close(p.stopped)
	}
}

// stopErr returns the pool's failure, or nil while it is running.
func (p *Pool) stopErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// process is one running instance of the command.
type process struct {
	index  int
	cmd    *exec.Cmd
	stdin  *os.File // write end of the process's standard input
	stdout *os.File // read end of its standard output
	stderr *os.File // read end of its standard error
	line   []byte   // the point being written, reused by every evaluation
	// encode is Options.Encode.
	encode func(dst []byte, x []float64) []byte

	lines    chan string   // answer lines; closed when the output ends
	readErr  error         // why the output ended (nil at end of file); set before lines is closed
	readDone chan struct{} // closed when the reader of the output has ended

	tail       *tailBuffer   // the end of the standard error
	stderrDone chan struct{} // closed when the standard error has ended

	exited  chan struct{} // closed when the process has exited and was reaped
	waitErr error         // the exit status from cmd.Wait; set before exited is closed

	mu      sync.Mutex
	cause   error         // why the process was killed; nil while it is usable
	aborted chan struct{} // closed when cause is set
	asked   bool          // a point was written and its answer is not yet read
	// reported: report has returned cause to an Eval, so Close need not
	// report it.
	reported bool
}

// startProcess starts one instance of the command, of index index, with
// fresh pipes and the goroutines that watch it.
func (p *Pool) startProcess(index int) (*process, error) {
	cmd := exec.Command(p.words[0], p.words[1:]...)
	cmd.Dir = p.opts.Dir
	cmd.Env = append(os.Environ(), p.opts.Env...)
	cmd.Env = append(cmd.Env, WorkerEnv+"="+strconv.Itoa(p.opts.WorkerBase+index))
	ownProcessGroup(cmd)
	var files []*os.File // every pipe end, for cleanup on failure
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	closeAll := func(fs []*os.File) {
		for _, f := range fs {
			f.Close()
		}
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll(files)
		return nil, err
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll(files)
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	closeAll([]*os.File{inR, outW, errW}) // the child holds its own copies
	if err != nil {
		closeAll([]*os.File{inW, outR, errR})
		return nil, err
	}
	pr := &process{
		encode:     p.opts.Encode,
		index:      index,
		cmd:        cmd,
		stdin:      inW,
		stdout:     outR,
		stderr:     errR,
		lines:      make(chan string),
		readDone:   make(chan struct{}),
		tail:       newTailBuffer(stderrTailSize),
		stderrDone: make(chan struct{}),
		exited:     make(chan struct{}),
		aborted:    make(chan struct{}),
	}
	p.goroutines.Add(3)
	go func() {
		defer p.goroutines.Done()
		pr.waitErr = cmd.Wait()
		close(pr.exited)
	}()
	go func() {
		defer p.goroutines.Done()
		pr.readAnswers()
	}()
	go func() {
		defer p.goroutines.Done()
		io.Copy(pr.tail, errR) // ends at end of file, or when Close closes errR
		close(pr.stderrDone)
	}()
	return pr, nil
}

// readAnswers passes the lines of the process's output to lines until the
// output ends or the process is aborted. A line that no evaluation asked
// for aborts the process with a protocol error.
func (pr *process) readAnswers() {
	defer close(pr.readDone)
	defer close(pr.lines)
	r := bufio.NewReaderSize(pr.stdout, maxAnswerLine)
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			pr.readErr = fmt.Errorf("%w: answer line longer than %d bytes", ErrBadAnswer, maxAnswerLine)
			return
		}
		if len(line) > 0 {
			answer := strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")
			if perr := pr.take(answer, r); perr != nil {
				pr.abort(perr)
				return
			}
			select {
			case pr.lines <- answer:
			case <-pr.aborted:
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				pr.readErr = err
			}
			return
		}
	}
}

// take checks that answer, a line just read from r, is the answer of the
// point being evaluated: such a point was written, and no more output came
// in the same read, which was done before the answer was handed over and so
// before the next point was written. It marks the point answered.
func (pr *process) take(answer string, r *bufio.Reader) error {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if !pr.asked {
		return fmt.Errorf("%w: the program printed the line %s before its point was sent; it must print exactly one line per point",
			ErrProtocol, quoteLine(answer))
	}
	if n := r.Buffered(); n > 0 {
		more, _ := r.Peek(n)
		return fmt.Errorf("%w: the program printed %s after its answer %s, before the next point was sent; it must print exactly one line per point",
			ErrProtocol, quoteLine(string(more)), quoteLine(answer))
	}
	pr.asked = false
	return nil
}

// waitOutputEnd waits a little for the output of an exited process to end,
// so that the reader sees every line the process printed.
func (pr *process) waitOutputEnd() {
	grace := time.NewTimer(answerGrace)
	defer grace.Stop()
	select {
	case <-pr.readDone:
	case <-grace.C:
	}
}

// eval writes x to the process and reads its answer. On failure, and when
// ctx is canceled, the process is killed and the error is an *EvalError.
func (pr *process) eval(ctx context.Context, x []float64, p *Pool) (float64, error) {
	pr.mu.Lock()
	cause := pr.cause
	pr.asked = cause == nil
	pr.mu.Unlock()
	if cause != nil {
		return 0, pr.report(x)
	}
	// A canceled ctx kills the process, which ends the write and the read.
	stopWatch := context.AfterFunc(ctx, func() { pr.abort(ctx.Err()) })
	defer stopWatch()
	var (
		timer      *time.Timer
		timeoutErr error
	)
	if timeout := p.opts.EvalTimeout; timeout > 0 {
		// A write to a program that does not read can block, so the
		// timeout kills the process, which ends both the write and the read.
		timeoutErr = fmt.Errorf("%w after %v", ErrTimeout, timeout)
		timer = time.AfterFunc(timeout, func() { pr.abort(timeoutErr) })
	}
	var (
		answer   string
		answered bool
	)
	pr.line = append(pr.format(pr.line[:0], x), '\n')
	_, writeErr := pr.stdin.Write(pr.line)
	if writeErr == nil {
		answer, answered = pr.await(x, p)
	}
	if timer != nil && !timer.Stop() {
		// The timeout fired: the process is being killed, whatever it said.
		return 0, pr.fail(x, timeoutErr)
	}
	if !stopWatch() {
		// ctx was canceled: the process is being killed, whatever it said.
		return 0, pr.fail(x, ctx.Err())
	}
	if !answered {
		return 0, pr.fail(x, pr.noAnswer(writeErr))
	}
	v, err := parseAnswer(answer)
	if err != nil {
		return 0, pr.fail(x, err)
	}
	return v, nil
}

// await waits for the answer to x. It gives up, answered false, when the
// output ends, or when the process has exited and no answer follows within
// answerGrace: a process the program started may hold the output open
// after the program is gone. After a wait of Options.WarnAfter it warns,
// once per pool, through Options.Warn.
func (pr *process) await(x []float64, p *Pool) (answer string, answered bool) {
	var warn <-chan time.Time
	if p.opts.Warn != nil && !p.warned.Load() {
		t := time.NewTimer(p.opts.WarnAfter)
		defer t.Stop()
		warn = t.C
	}
	for exited := false; !exited; {
		select {
		case answer, answered = <-pr.lines:
			return answer, answered
		case <-warn:
			warn = nil
			if p.warned.CompareAndSwap(false, true) {
				p.opts.Warn(pr.waitMessage(x, p.opts.WarnAfter))
			}
		case <-pr.exited:
			exited = true
		}
	}
	grace := time.NewTimer(answerGrace)
	defer grace.Stop()
	select {
	case answer, answered = <-pr.lines:
		return answer, answered
	case <-grace.C:
		return "", false
	}
}

// waitMessage says that the process has not answered x after waited, and
// what to check.
func (pr *process) waitMessage(x []float64, waited time.Duration) string {
	point := "[" + points.Format(x) + "]"
	if pr.encode != nil {
		point = string(pr.encode(nil, x))
	}
	if len(point) > maxWarnPoint {
		point = point[:maxWarnPoint] + "..."
	}
	return fmt.Sprintf("extproc: process %d (pid %d) has not answered %s after %v and is still being waited for; "+
		"a program must read its input line by line (mawk: -W interactive) and flush each answer "+
		"(Python: print(..., flush=True), C: fflush(stdout)); an evaluation timeout bounds the wait",
		pr.index, pr.cmd.Process.Pid, point, waited)
}

// noAnswer explains why the process gave no answer: the write of the point
// failed with writeErr, or (writeErr == nil) its output ended.
func (pr *process) noAnswer(writeErr error) error {
	if cause := pr.abortCause(); cause != nil {
		return cause
	}
	if writeErr == nil && pr.readErr != nil {
		if errors.Is(pr.readErr, ErrBadAnswer) {
			return pr.readErr
		}
		return fmt.Errorf("%w: reading the answer: %v", ErrNoAnswer, pr.readErr)
	}
	grace := time.NewTimer(exitGrace)
	defer grace.Stop()
	select {
	case <-pr.exited:
		return fmt.Errorf("%w: the process exited (%s)", ErrNoAnswer, exitStatus(pr.waitErr))
	case <-grace.C:
	}
	if writeErr != nil {
		return fmt.Errorf("%w: the process does not read its input (%v)", ErrNoAnswer, writeErr)
	}
	return fmt.Errorf("%w: the process closed its output", ErrNoAnswer)
}

// exitStatus describes the result of cmd.Wait.
func exitStatus(waitErr error) string {
	if waitErr == nil {
		return "exit status 0"
	}
	return waitErr.Error()
}

// format appends the line of x, without its newline: Options.Encode's,
// or the numbers.
func (pr *process) format(dst []byte, x []float64) []byte {
	if pr.encode != nil {
		return pr.encode(dst, x)
	}
	return points.Append(dst, x)
}

// fail aborts the process with cause, unless it was aborted already, and
// returns the error for the evaluation of x.
func (pr *process) fail(x []float64, cause error) *EvalError {
	pr.abort(cause)
	return pr.report(x)
}

// report returns the error for the evaluation of x in the aborted process:
// the reason it was aborted and the end of its standard error.
func (pr *process) report(x []float64) *EvalError {
	pr.mu.Lock()
	pr.reported = true
	pr.mu.Unlock()
	var line string
	if pr.encode != nil {
		line = string(pr.encode(nil, x))
	}
	return &EvalError{
		Point:   append([]float64(nil), x...),
		Line:    line,
		Process: pr.index,
		PID:     pr.cmd.Process.Pid,
		Err:     pr.abortCause(),
		Stderr:  pr.stderrTail(),
	}
}

// abort records cause (not nil) as the reason the process is unusable,
// unless one is recorded already, kills it (and on Unix its process group)
// and closes its input and output, which ends any write or read in
// progress.
func (pr *process) abort(cause error) {
	pr.mu.Lock()
	first := pr.cause == nil
	if first {
		pr.cause = cause
		close(pr.aborted)
	}
	pr.mu.Unlock()
	killProcessGroup(pr.cmd.Process)
	if first {
		pr.stdin.Close()
		pr.stdout.Close()
	}
}

// causeReported reports whether an Eval has returned the reason the
// process was aborted.
func (pr *process) causeReported() bool {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.reported
}

// abortCause returns the reason the process was aborted, or nil.
func (pr *process) abortCause() error {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.cause
}

// stderrTail waits a little for the standard error to end, if it has not,
// and returns its last bytes as valid UTF-8.
func (pr *process) stderrTail() string {
	grace := time.NewTimer(stderrGrace)
	defer grace.Stop()
	select {
	case <-pr.stderrDone:
	case <-grace.C:
	}
	return strings.ToValidUTF8(string(pr.tail.snapshot()), "\uFFFD")
}
