// Package worker evaluates the candidates of an ask/tell run (package
// session) with an external program (package extproc) until the run
// stops: the engine of hees worker. Each of its evaluation loops claims a
// candidate, evaluates it in its own process of the program, tells the
// value and claims the next candidate in the same locked operation; a
// heartbeat renews the leases of the candidates being evaluated, and the
// worker slots of the loops, every third of the lease, and abandons the
// evaluation of a candidate that someone else has told. A failed
// evaluation is told session.FailedWord, with its error, and the program
// is started again.
//
// Each loop holds a worker slot of the run (session.Store.TakeSlots): its
// program finds it in HEES_WORKER, an index unique among the programs
// evaluating the run at once, on every machine.
//
// A worker stops claiming when the time left (Until) is shorter than the
// longest evaluation it has seen, and gives its leases back at once when
// its context is canceled (SIGTERM: Slurm's time limit, a preemption,
// scancel).
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

// IdleNotice is how long a loop waits for a candidate before the worker
// says what it waits for (and again every IdleNotice while it waits); a
// variable for the tests.
var IdleNotice = 10 * time.Second

// ErrUntil is returned by Run when the worker stopped claiming because the
// time left before Until was shorter than its evaluations take.
var ErrUntil = errors.New("the time left is shorter than an evaluation")

// Worker evaluates the candidates of the run in a state file. Set its
// fields before Run.
type Worker struct {
	Path    string          // the state file
	Command string          // the program, as extproc.Start takes it
	Lease   time.Duration   // session.MinLease to session.MaxLease; renewed every third of it
	Options extproc.Options // of each process of the program
	// Until, when not zero, is when the worker must be done (the end of
	// its Slurm allocation): a loop claims no candidate once the time left
	// is shorter than the longest evaluation it has seen.
	Until time.Time
	// Poll is the longest wait between two looks at the journal of an
	// idle loop (session.Poller.Max); 0: session.PollMax.
	Poll time.Duration
	// Warn, when not nil, hears of what does not stop the worker: a failed
	// evaluation, a failed renewal, a told value that was refused, what an
	// idle loop waits for. It is called from one goroutine at a time.
	Warn func(msg string)

	// StopDetail is what stopped the run, when the failure policy did
	// (set by Run).
	StopDetail string

	warnMu sync.Mutex
	evals  atomic.Int64
	// longest is the longest evaluation seen, in nanoseconds.
	longest atomic.Int64

	activeMu sync.Mutex
	active   map[session.ID]*evaluation // the candidates being evaluated
	telling  map[session.ID]bool        // the candidates evaluated, being told
	slots    []int
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

// store is the worker's run.
func (w *Worker) store() session.Store {
	return session.Store{Path: w.Path, Background: true, Own: w.owns, Warn: func(msg string) { w.warnf("%s", msg) },
		Waiting: func(lock, holder string) { w.warnf("waiting for %s, the lock of %s, held by %s", lock, w.Path, holder) }}
}

// Run runs k evaluation loops until the run stops (its reason) or one of
// them fails, which stops the others. When ctx is done, the loops give
// back the leases of the candidates they evaluate and Run returns an
// error.
func (w *Worker) Run(ctx context.Context, k int) (es.Reason, error) {
	if err := session.CheckLease(w.Lease); err != nil {
		return "", err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w.active = map[session.ID]*evaluation{}
	w.telling = map[session.ID]bool{}
	slots, err := w.store().TakeSlots(ctx, k, w.Lease, session.Self(0))
	if err != nil {
		return "", err
	}
	w.slots = slots
	defer w.releaseSlots()
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
			reasons[i], errs[i] = w.loop(ctx, slots[i])
			if errs[i] != nil && !errors.Is(errs[i], ErrUntil) {
				cancel()
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, e := range errs {
			if e != nil && !errors.Is(e, ErrUntil) {
				return "", err
			}
		}
		return "", ErrUntil
	}
	return reasons[0], nil
}

// releaseSlots gives the worker slots back, best effort.
func (w *Worker) releaseSlots() {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if err := w.store().Release(ctx, nil, w.slots); err != nil {
		w.warnf("giving the worker slots back: %v", err)
	}
}

// loop claims, evaluates and tells until the run stops.
func (w *Worker) loop(ctx context.Context, slot int) (es.Reason, error) {
	var (
		pool    *extproc.Pool
		told    []session.Line // the result of the last evaluation, to tell
		telling session.ID     // its candidate
		why     map[session.ID]string
		byPool  []session.ID // the candidates told with values of pool's process
		holder  = session.Self(slot)
		poll    = session.Poller{Store: w.store(), Max: w.Poll, IdleAfter: IdleNotice, Idle: func(what string) { w.warnf("worker %d waits: %s", slot, what) }}
		options = w.Options
	)
	options.WorkerBase = slot
	closePool := func() error {
		if pool == nil {
			return nil
		}
		err := pool.Close()
		pool = nil
		if errors.Is(err, extproc.ErrProtocol) {
			return fmt.Errorf("%w; the values told of %v came from this process and may belong to other candidates", err, byPool)
		}
		byPool = nil
		return nil
	}
	defer closePool()
	defer poll.Close()
	for {
		if pool == nil {
			var err error
			if pool, err = extproc.Start(ctx, w.Command, 1, options); err != nil {
				return "", err
			}
		}
		n := 1
		if left := time.Until(w.Until); !w.Until.IsZero() && left < time.Duration(w.longest.Load()) {
			n = 0 // tell what is left, claim nothing
		}
		got, err := w.store().Claim(ctx, told, why, n, w.Lease, holder)
		if telling != (session.ID{}) {
			w.told(telling)
			telling = session.ID{}
		}
		if err != nil {
			return "", err
		}
		for _, b := range got.Bad {
			if b.Problem != session.Repeat && b.Problem != session.Stopped {
				w.warnf("%s", b.Msg)
			}
		}
		told, why = nil, nil
		if len(got.Candidates) == 0 {
			if got.Stop != "" {
				w.warnMu.Lock()
				w.StopDetail = got.StopDetail
				w.warnMu.Unlock()
				return got.Stop, closePool()
			}
			if n == 0 {
				return "", ErrUntil
			}
			if err := poll.Wait(ctx); err != nil {
				return "", err
			}
			continue
		}
		c := got.Candidates[0]
		start := time.Now()
		v, done, err := w.evaluate(ctx, pool, c)
		took := time.Since(start)
		telling = c.ID
		switch {
		case ctx.Err() != nil:
			w.release(c.ID)
			w.told(c.ID)
			return "", ctx.Err()
		case done:
			w.told(c.ID)
			telling = session.ID{}
			pool.Close() // the evaluation was abandoned, and its process killed
			pool, byPool = nil, nil
			continue
		case err != nil:
			w.warnf("%s: %v", c.ID, err)
			pool.Close()
			told = []session.Line{session.FailedLine(c.ID)}
			why = map[session.ID]string{c.ID: err.Error()}
			if errors.Is(err, extproc.ErrProtocol) && len(byPool) > 0 {
				// The program printed more lines than it was given points:
				// the values told from this process may have been answers
				// to other points. As hees run, the worker fails rather
				// than go on as if they were right.
				suspects := byPool
				pool, byPool = nil, nil
				if _, err := w.store().Claim(ctx, told, why, 0, w.Lease, holder); err != nil {
					w.warnf("%s: telling the failure: %v", c.ID, err)
				}
				w.told(c.ID)
				return "", fmt.Errorf("%s: %w; the values told of %v came from the same process and may belong to other candidates", c.ID, err, suspects)
			}
			pool, byPool = nil, nil
		default:
			w.evals.Add(1)
			told = []session.Line{session.ValueLine(c.ID, v)}
			byPool = append(byPool, c.ID)
		}
		for {
			old := w.longest.Load()
			if int64(took) <= old || w.longest.CompareAndSwap(old, int64(took)) {
				break
			}
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
	w.telling[c.ID] = true // until the loop has told it (Worker.owns)
	w.activeMu.Unlock()
	return v, e.abandoned.Load(), err
}

// heartbeat renews the leases of the candidates being evaluated and the
// worker slots every third of the lease, in one write for all the
// worker's loops, and abandons the evaluations of candidates that are no
// longer pending.
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
		pending, err := w.store().Renew(ctx, ids, w.slots, w.Lease, session.Self(w.slots[0]))
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
	if err := w.store().Release(ctx, []session.ID{id}, nil); err != nil {
		w.warnf("%s: giving the lease back: %v", id, err)
	}
}

// owns reports whether id is a candidate that one of the worker's loops
// evaluates or is telling: alive, whatever its lease says.
func (w *Worker) owns(id session.ID) bool {
	w.activeMu.Lock()
	defer w.activeMu.Unlock()
	return w.active[id] != nil || w.telling[id]
}

// told forgets id as being told: its tell was applied (or refused), or
// it needs none.
func (w *Worker) told(id session.ID) {
	w.activeMu.Lock()
	delete(w.telling, id)
	w.activeMu.Unlock()
}
