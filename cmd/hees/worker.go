package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/extproc"
	"github.com/hees-dev/hees/internal/session"
)

const workerHelp = `Usage: hees worker -state FILE -cmd PROGRAM [-lease DURATION] [-workers K]

Evaluates the candidates of the ask/tell run in FILE with the external
PROGRAM until the run stops: it claims a candidate, evaluates it, tells its
value (and claims the next one under the same lock), and so on. Start as
many workers as there are processors to use, on one machine or on several
sharing the file system (srun -n 64 hees worker ...): the result is the
one of hees run with the same settings, bit for bit, whatever the number
of workers and the order of their tells.

PROGRAM speaks the protocol of hees run -cmd (see hees help run); each of
the K evaluation loops of a worker keeps one process of it running. While
an evaluation runs, the worker renews its lease every third of -lease, so
-lease need not outlast an evaluation: it bounds what a killed worker (or a
lost machine) costs, after which its candidate is claimed again. A failed
evaluation (a crash, an answer that is not a number, -eval-timeout) is told
"failed" and the program is started again; the run's -retries and
-on-error (hees init) say what happens to a candidate that keeps failing.
When another worker tells the candidate being evaluated first, the
evaluation is abandoned. Ctrl-C or SIGTERM gives the leases back and exits
with status 1; the end of the run exits with status 0.

` + asktellHelp + `Flags:
`

// runWorker is the worker command.
func runWorker(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "hees worker"
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	path := stateFlag(fs)
	command := fs.String("cmd", "", "evaluate with the external `PROGRAM` (required; see hees help run)")
	lease := leaseFlag(fs, defaultWorkerLease, "lease each candidate for `DURATION`, renewed every third of it while it is evaluated")
	workers := fs.Int("workers", 1, "run `K` evaluation loops, each with its own process of the program")
	evalTimeout := fs.Duration("eval-timeout", 0, "fail an evaluation that takes longer than `TIME` (0: no limit)")
	if status, done := parseFlags(fs, args, workerHelp, stdout, stderr); done {
		return status
	}
	switch {
	case requireState(*path) != nil:
		return report(stderr, name, requireState(*path))
	case *command == "":
		return report(stderr, name, usagef("-cmd PROGRAM is required"))
	case *workers < 1 || *workers > extproc.MaxProcs:
		return report(stderr, name, usagef("-workers %d: want 1 to %d", *workers, extproc.MaxProcs))
	case *evalTimeout < 0:
		return report(stderr, name, usagef("-eval-timeout %v: want a positive duration, or 0 for no limit", *evalTimeout))
	}
	if err := checkLease(*lease); err != nil {
		return report(stderr, name, err)
	}
	if _, err := loadSession(*path); err != nil {
		return report(stderr, name, err)
	}
	ctx, stop := signalContext()
	defer stop()
	w := &worker{path: *path, command: *command, lease: *lease, opts: extproc.Options{EvalTimeout: *evalTimeout}, stderr: stderr}
	reason, err := w.run(ctx, *workers)
	if err != nil && ctx.Err() != nil {
		return report(stderr, name, fmt.Errorf("interrupted after %d evaluations; the candidates being evaluated were given back", w.evals.Load()))
	}
	if err != nil {
		return report(stderr, name, err)
	}
	fmt.Fprintf(stderr, "%s: the run has stopped (%s); %d evaluations here\n", name, reason, w.evals.Load())
	return exitOK
}

// worker is one hees worker process.
type worker struct {
	path    string
	command string
	lease   time.Duration
	opts    extproc.Options
	stderr  io.Writer

	mu    sync.Mutex // serialises the messages on stderr
	evals atomic.Int64

	activeMu sync.Mutex
	active   map[session.ID]*evaluation // the candidates being evaluated
}

// warnf writes a message on stderr.
func (w *worker) warnf(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Fprintf(w.stderr, "hees worker: "+format+"\n", args...)
}

// run runs k evaluation loops until the run stops (its reason) or one of
// them fails, which stops the others.
func (w *worker) run(ctx context.Context, k int) (es.Reason, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w.active = map[session.ID]*evaluation{}
	beat := make(chan struct{})
	beatCtx, stopBeat := context.WithCancel(ctx)
	go func() {
		defer close(beat)
		w.heartbeat(beatCtx)
	}()
	defer func() {
		stopBeat()
		<-beat
	}()
	var (
		wg      sync.WaitGroup
		reasons = make([]es.Reason, k)
		errs    = make([]error, k)
	)
	for i := range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reasons[i], errs[i] = w.loop(ctx)
			if errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	return reasons[0], nil
}

// loop claims, evaluates and tells until the run stops.
func (w *worker) loop(ctx context.Context) (es.Reason, error) {
	var (
		pool *extproc.Pool
		told []session.Line // the result of the last evaluation, to tell
		poll poller
	)
	defer func() {
		if pool != nil {
			pool.Close()
		}
	}()
	for {
		if pool == nil {
			var err error
			if pool, err = extproc.Start(ctx, w.command, 1, w.opts); err != nil {
				return "", err
			}
		}
		got, reason, bad, err := claimState(ctx, w.path, told, 1, w.lease)
		if err != nil {
			return "", err
		}
		for _, b := range bad {
			if b.Problem != session.Repeat && b.Problem != session.Stopped {
				w.warnf("%s", b.Msg)
			}
		}
		told = nil
		if len(got) == 0 {
			if reason != "" {
				return reason, nil
			}
			if err := poll.wait(ctx, w.path); err != nil {
				return "", err
			}
			continue
		}
		c := got[0]
		v, done, err := w.evaluate(ctx, pool, c)
		switch {
		case ctx.Err() != nil:
			w.release(c.id)
			return "", ctx.Err()
		case done:
			pool.Close() // the evaluation was abandoned, and its process killed
			pool = nil
			continue
		case err != nil:
			w.warnf("%s: %v", c.id, err)
			pool.Close()
			pool = nil
			told = tellLine(c.id, session.FailedWord)
		default:
			w.evals.Add(1)
			told = tellLine(c.id, formatValue(v))
		}
	}
}

// tellLine returns the line that tells value of id.
func tellLine(id session.ID, value string) []session.Line {
	lines, _, _ := session.ReadTold(strings.NewReader(id.String() + " " + value))
	return lines
}

// evaluation is a candidate being evaluated, for the heartbeat.
type evaluation struct {
	cancel    context.CancelFunc
	abandoned atomic.Bool // told by another worker first: the evaluation was canceled
}

// evaluate evaluates the candidate c in pool while the heartbeat renews
// its lease; done reports that the candidate was told by another worker
// (or its generation ended) first, and the evaluation abandoned.
func (w *worker) evaluate(ctx context.Context, pool *extproc.Pool, c claimed) (v float64, done bool, err error) {
	evalCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	e := &evaluation{cancel: cancel}
	w.activeMu.Lock()
	w.active[c.id] = e
	w.activeMu.Unlock()
	v, err = pool.EvalContext(evalCtx, c.x)
	w.activeMu.Lock()
	delete(w.active, c.id)
	w.activeMu.Unlock()
	return v, e.abandoned.Load(), err
}

// heartbeat renews the leases of the candidates being evaluated every
// third of the lease, in one write for all the worker's loops, and
// abandons the evaluations of candidates that are no longer pending.
func (w *worker) heartbeat(ctx context.Context) {
	tick := time.NewTicker(w.lease / 3)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		w.activeMu.Lock()
		ids := make([]session.ID, 0, len(w.active))
		for id := range w.active {
			ids = append(ids, id)
		}
		w.activeMu.Unlock()
		if len(ids) == 0 {
			continue
		}
		pending, err := w.renew(ctx, ids)
		if err != nil {
			if ctx.Err() == nil {
				w.warnf("renewing the leases: %v", err)
			}
			continue
		}
		w.activeMu.Lock()
		for i, id := range ids {
			if e := w.active[id]; e != nil && !pending[i] {
				e.abandoned.Store(true)
				e.cancel()
			}
		}
		w.activeMu.Unlock()
	}
}

// renew renews the leases of ids and reports which are still pending.
func (w *worker) renew(ctx context.Context, ids []session.ID) ([]bool, error) {
	var pending []bool
	err := session.WithLock(ctx, w.path, func() error {
		ss, err := loadSession(w.path)
		if err != nil {
			return err
		}
		pending = ss.Renew(time.Now(), ids, w.lease)
		return ss.Save(w.path)
	})
	return pending, err
}

// release gives the lease of id back, best effort: the worker is being
// stopped, so the lock is waited for a short while only.
func (w *worker) release(id session.ID) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := session.WithLock(ctx, w.path, func() error {
		ss, err := loadSession(w.path)
		if err != nil {
			return err
		}
		ss.Release([]session.ID{id})
		return ss.Save(w.path)
	})
	if err != nil {
		w.warnf("%s: giving the lease back: %v", id, err)
	}
}
