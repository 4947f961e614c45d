// Package worker evaluates the candidates of an ask/tell run (package
// session) with an external program (package extproc) until the run
// stops: the engine of hees worker. Each of its evaluation loops claims a
// candidate, evaluates it in its own process of the program, tells the
// value and claims the next candidate under the same lock; a heartbeat
// renews the leases of the candidates being evaluated every third of the
// lease, and abandons the evaluation of a candidate that someone else has
// told. A failed evaluation is told session.FailedWord and the program is
// started again.
package worker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/extproc"
	"github.com/hees-dev/hees/internal/session"
)

// releaseTimeout bounds the wait for the lock when a stopped worker gives
// a lease back.
const releaseTimeout = 2 * time.Second

// Worker evaluates the candidates of the run in a state file. Set its
// fields before Run.
type Worker struct {
	Path    string          // the state file
	Command string          // the program, as extproc.Start takes it
	Lease   time.Duration   // positive; renewed every third of it
	Options extproc.Options // of each process of the program
	// Warn, when not nil, hears of what does not stop the worker: a failed
	// evaluation, a failed renewal, a told value that was refused. It is
	// called from one goroutine at a time.
	Warn func(msg string)

	warnMu sync.Mutex
	evals  atomic.Int64

	activeMu sync.Mutex
	active   map[session.ID]*evaluation // the candidates being evaluated
}

// Evals is the number of evaluations the worker has told so far.
func (w *Worker) Evals() int64 { return w.evals.Load() }

// warnf passes a message to Warn.
func (w *Worker) warnf(format string, args ...any) {
	if w.Warn == nil {
		return
	}
	w.warnMu.Lock()
	defer w.warnMu.Unlock()
	w.Warn(fmt.Sprintf(format, args...))
}

// store is the worker's state file.
func (w *Worker) store() session.Store { return session.Store{Path: w.Path} }

// Run runs k evaluation loops until the run stops (its reason) or one of
// them fails, which stops the others. When ctx is done, the loops give
// back the leases of the candidates they evaluate and Run returns an
// error.
func (w *Worker) Run(ctx context.Context, k int) (es.Reason, error) {
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
func (w *Worker) loop(ctx context.Context) (es.Reason, error) {
	var (
		pool *extproc.Pool
		told []session.Line // the result of the last evaluation, to tell
		poll = session.Poller{Path: w.Path}
	)
	defer func() {
		if pool != nil {
			pool.Close()
		}
	}()
	for {
		if pool == nil {
			var err error
			if pool, err = extproc.Start(ctx, w.Command, 1, w.Options); err != nil {
				return "", err
			}
		}
		got, err := w.store().Claim(ctx, told, 1, w.Lease)
		if err != nil {
			return "", err
		}
		for _, b := range got.Bad {
			if b.Problem != session.Repeat && b.Problem != session.Stopped {
				w.warnf("%s", b.Msg)
			}
		}
		told = nil
		if len(got.Candidates) == 0 {
			if got.Stop != "" {
				return got.Stop, nil
			}
			if err := poll.Wait(ctx); err != nil {
				return "", err
			}
			continue
		}
		c := got.Candidates[0]
		v, done, err := w.evaluate(ctx, pool, c)
		switch {
		case ctx.Err() != nil:
			w.release(c.ID)
			return "", ctx.Err()
		case done:
			pool.Close() // the evaluation was abandoned, and its process killed
			pool = nil
			continue
		case err != nil:
			w.warnf("%s: %v", c.ID, err)
			pool.Close()
			pool = nil
			told = []session.Line{session.FailedLine(c.ID)}
		default:
			w.evals.Add(1)
			told = []session.Line{session.ValueLine(c.ID, v)}
		}
	}
}

// evaluation is a candidate being evaluated, for the heartbeat.
type evaluation struct {
	cancel    context.CancelFunc
	abandoned atomic.Bool // told by another worker first: the evaluation was canceled
}

// evaluate evaluates the candidate c in pool while the heartbeat renews
// its lease; done reports that the candidate was told by another worker
// (or its generation ended) first, and the evaluation abandoned.
func (w *Worker) evaluate(ctx context.Context, pool *extproc.Pool, c session.Candidate) (v float64, done bool, err error) {
	evalCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	e := &evaluation{cancel: cancel}
	w.activeMu.Lock()
	w.active[c.ID] = e
	w.activeMu.Unlock()
	v, err = pool.EvalContext(evalCtx, c.X)
	w.activeMu.Lock()
	delete(w.active, c.ID)
	w.activeMu.Unlock()
	return v, e.abandoned.Load(), err
}

// heartbeat renews the leases of the candidates being evaluated every
// third of the lease, in one write for all the worker's loops, and
// abandons the evaluations of candidates that are no longer pending.
func (w *Worker) heartbeat(ctx context.Context) {
	tick := time.NewTicker(w.Lease / 3)
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
		pending, err := w.store().Renew(ctx, ids, w.Lease)
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

// release gives the lease of id back, best effort: the worker is being
// stopped, so the lock is waited for a short while only.
func (w *Worker) release(id session.ID) {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if err := w.store().Release(ctx, []session.ID{id}); err != nil {
		w.warnf("%s: giving the lease back: %v", id, err)
	}
}
