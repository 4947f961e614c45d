// Package workpool runs independent jobs on a pool of goroutines, for the
// benchmark and the experiments, whose results do not depend on the number
// of goroutines: each job writes only its own results.
package workpool

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Size is the number of goroutines for jobs jobs given a requested number
// of workers (0: the number of CPUs).
func Size(workers, jobs int) int {
	if workers == 0 {
		workers = runtime.NumCPU()
	}
	return max(1, min(workers, jobs))
}

// Run calls job(ctx, i) for i in [0, n) on workers goroutines, in
// increasing order of claim. Each job writes only its own results, so the
// outcome does not depend on workers. The first error cancels the context
// passed to the jobs, and no job starts after it or after ctx is done.
// Run returns the error of the lowest failing index.
func Run(ctx context.Context, n, workers int, job func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if errs[i] = job(ctx, i); errs[i] != nil {
					cancel()
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
