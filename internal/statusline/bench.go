package statusline

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hees-dev/hees/bench"
)

// Bench shows how a BBOB bench is going: a status line redrawn at most 4
// times a second on a terminal, or elsewhere (verbose) a line at most once
// a second. Its methods other than Begin and End may be called from any
// goroutine.
type Bench struct {
	w        io.Writer
	terminal bool
	total    int
	earlier  int          // runs finished before this command
	done     atomic.Int64 // runs finished, earlier ones included
	mu       sync.Mutex
	running  map[bench.Job]bool
	last     bench.Job
	start    time.Time
	quit     chan struct{}
	exited   chan struct{}
	enabled  bool
}

// NewBench returns the progress report of a bench on w; it is off with
// quiet, and when w is not a terminal unless verbose.
func NewBench(w io.Writer, quiet, verbose bool) *Bench {
	p := &Bench{w: w, running: map[bench.Job]bool{}, terminal: IsTerminal(w)}
	p.enabled = !quiet && (p.terminal || verbose)
	return p
}

// Begin starts the report (a goroutine) of total runs, earlier of them
// finished before this command.
func (p *Bench) Begin(total, earlier int) {
	p.total, p.earlier, p.start = total, earlier, time.Now()
	p.done.Store(int64(earlier))
	if !p.enabled {
		return
	}
	every := refresh(p.terminal)
	p.quit, p.exited = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.exited)
		tick := time.NewTicker(every)
		defer tick.Stop()
		lastDone := int64(-1)
		for {
			select {
			case <-p.quit:
				return
			case <-tick.C:
				if d := p.done.Load(); p.terminal || d != lastDone {
					p.show()
					lastDone = d
				}
			}
		}
	}()
}

// Started records that run j started.
func (p *Bench) Started(j bench.Job) {
	p.mu.Lock()
	p.running[j] = true
	p.last = j
	p.mu.Unlock()
}

// Finished records that run j finished.
func (p *Bench) Finished(j bench.Job) {
	p.mu.Lock()
	delete(p.running, j)
	p.mu.Unlock()
	p.done.Add(1)
}

// show writes the status: runs done, the run started last, elapsed time
// and a rough estimate of the time left from this command's pace.
func (p *Bench) show() {
	p.mu.Lock()
	last, running := p.last, len(p.running)
	p.mu.Unlock()
	done := int(p.done.Load())
	elapsed := time.Since(p.start)
	line := fmt.Sprintf("bench: %d/%d runs", done, p.total)
	if p.earlier > 0 {
		line += fmt.Sprintf(" (%d from before)", p.earlier)
	}
	if running > 0 {
		line += fmt.Sprintf(", %d running, latest %s f%d d%d i%d", running, last.Label, last.Function, last.Dim, last.Instance)
	}
	line += fmt.Sprintf(", %s", elapsed.Round(time.Second))
	if now := done - p.earlier; now > 0 && done < p.total {
		left := time.Duration(float64(elapsed) / float64(now) * float64(p.total-done))
		line += fmt.Sprintf(", ~%s left", left.Round(time.Second))
	}
	writeLine(p.w, p.terminal, line)
}

// End ends the report: it clears the status line of a terminal, and
// writes a last line elsewhere.
func (p *Bench) End() {
	if !p.enabled {
		return
	}
	close(p.quit)
	<-p.exited
	if p.terminal {
		io.WriteString(p.w, EraseLine)
	} else {
		p.show()
	}
}
