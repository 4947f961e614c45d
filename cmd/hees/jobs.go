package main

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// poolSize is the number of goroutines for jobs jobs given -workers
// (0: the number of CPUs), shared by hees experiment and hees bench.
func poolSize(workers, jobs int) int {
	if workers == 0 {
		workers = runtime.NumCPU()
	}
	return max(1, min(workers, jobs))
}

// runJobs calls job(ctx, i) for i in [0, n) on workers goroutines, in
// increasing order of claim. Each job writes only its own results, so the
// outcome does not depend on workers. The first error cancels the context
// passed to the jobs, and no job starts after it or after ctx is done.
// runJobs returns the error of the lowest failing index.
func runJobs(ctx context.Context, n, workers int, job func(ctx context.Context, i int) error) error {
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
