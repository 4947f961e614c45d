package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/linalg"
)

// Refresh intervals of the progress display: the status line of a terminal
// is redrawn at most 4 times a second; with -v elsewhere
// (a log file), one line is written at most once a second.
const (
	terminalRefresh = 250 * time.Millisecond
	logRefresh      = time.Second
)

// maxCondDim is the largest dimension for which the status line shows
// cond(C): computing it takes an eigendecomposition, O(d^3), which stays
// well below a millisecond up to here and is done at most 4 times a second.
const maxCondDim = 100

// progress shows how a run is going on standard error: one status line
// redrawn in place on a terminal, or plain lines elsewhere.
type progress struct {
	w        io.Writer
	terminal bool // redraw one line in place
	every    time.Duration
	now      func() time.Time
	next     time.Time // earliest time of the next line
	shown    bool      // a status line is on the terminal
	c        linalg.Dense
}

// newProgress returns the progress display of a run that writes to stderr,
// or nil when nothing is to be shown: with quiet, and when stderr is not a
// terminal unless verbose.
func newProgress(stderr io.Writer, quiet, verbose bool) *progress {
	if quiet {
		return nil
	}
	terminal := isTerminal(stderr)
	if !terminal && !verbose {
		return nil
	}
	p := &progress{w: stderr, terminal: terminal, every: logRefresh, now: time.Now}
	if terminal {
		p.every = terminalRefresh
	}
	return p
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// update is the es.Options.Progress callback: it shows the state after a
// generation unless the last line is more recent than the refresh interval.
func (p *progress) update(pr es.Progress) {
	now := p.now()
	if now.Before(p.next) {
		return
	}
	p.next = now.Add(p.every)
	line := p.line(pr)
	if p.terminal {
		// \r returns to the start of the line, ESC[K erases what is left of
		// a longer previous line.
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
		p.shown = true
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// line formats the status: evaluations, generations, restarts, the best
// value, sigma, cond(C) when cheap, and the elapsed time.
func (p *progress) line(pr es.Progress) string {
	s := fmt.Sprintf("evals %d  gen %d", pr.Evals, pr.Generation)
	if pr.Restarts > 0 {
		s += fmt.Sprintf("  restarts %d", pr.Restarts)
	}
	s += fmt.Sprintf("  best %.6g  sigma %.3g", pr.Best, pr.Strategy.Sigma())
	if pr.Strategy.Dim() <= maxCondDim {
		p.c.MulAAT(pr.Strategy.Transform()) // C = A A^T
		if cond, err := linalg.CondSym(&p.c); err == nil {
			s += fmt.Sprintf("  cond %.3g", cond)
		}
	}
	return s + fmt.Sprintf("  %.1fs", pr.Elapsed.Seconds())
}

// finish erases the status line from the terminal, so that what the command
// prints next starts on a clean line.
func (p *progress) finish() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}
