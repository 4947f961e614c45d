// Package statusline shows how a run of hees (Display) or a BBOB bench
// (Bench) is going on standard error: one status line redrawn in place on
// a terminal, or plain lines elsewhere (a log file), each at most once per
// refresh interval.
package statusline

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/linalg"
)

// Refresh intervals of the display: the status line of a terminal is
// redrawn at most 4 times a second; elsewhere (a log file), one line is
// written at most once a second.
const (
	TerminalRefresh = 250 * time.Millisecond
	LogRefresh      = time.Second
)

// EraseLine erases the status line of a terminal: \r returns to the start
// of the line, ESC[K erases what is left of it. A message written over a
// status line starts with it.
const EraseLine = "\r\x1b[K"

// MaxCondDim is the largest dimension for which the status line shows
// cond(C): computing it takes an eigendecomposition, O(d^3), which stays
// well below a millisecond up to here and is done at most 4 times a second.
const MaxCondDim = 100

// Display shows the state of a run after its generations on a writer.
type Display struct {
	w        io.Writer
	terminal bool // redraw one line in place
	every    time.Duration
	now      func() time.Time
	next     time.Time // earliest time of the next line
	shown    bool      // a status line is on the terminal
	c        linalg.Dense
}

// New returns the display of a run on w, or nil when nothing is to be
// shown: with quiet, and when w is not a terminal unless verbose.
func New(w io.Writer, quiet, verbose bool) *Display {
	if quiet {
		return nil
	}
	terminal := IsTerminal(w)
	if !terminal && !verbose {
		return nil
	}
	return newDisplay(w, terminal, time.Now)
}

// newDisplay returns the display on w that reads the time from now.
func newDisplay(w io.Writer, terminal bool, now func() time.Time) *Display {
	return &Display{w: w, terminal: terminal, every: refresh(terminal), now: now}
}

// refresh returns the refresh interval of a display on a terminal or
// elsewhere.
func refresh(terminal bool) time.Duration {
	if terminal {
		return TerminalRefresh
	}
	return LogRefresh
}

// writeLine writes a status line on w: in place of the last one on a
// terminal (erasing what is left of a longer one), as a line of its own
// elsewhere.
func writeLine(w io.Writer, terminal bool, line string) {
	if terminal {
		fmt.Fprintf(w, "\r%s\x1b[K", line)
	} else {
		fmt.Fprintln(w, line)
	}
}

// IsTerminal reports whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// Terminal reports whether d redraws one line in place on a terminal (so
// that a message written meanwhile must erase it first).
func (d *Display) Terminal() bool { return d.terminal }

// Update is an es.Options.Progress callback: it shows the state after a
// generation unless the last line is more recent than the refresh interval.
func (d *Display) Update(pr es.Progress) {
	now := d.now()
	if now.Before(d.next) {
		return
	}
	d.next = now.Add(d.every)
	writeLine(d.w, d.terminal, d.line(pr))
	d.shown = d.terminal
}

// line formats the status: evaluations, generations, restarts, the best
// value, the recommendation's estimated value (with noise handling),
// sigma, cond(C) when cheap, and the elapsed time.
func (d *Display) line(pr es.Progress) string {
	s := fmt.Sprintf("evals %d  gen %d", pr.Evals, pr.Generation)
	if pr.Restarts > 0 {
		s += fmt.Sprintf("  restarts %d", pr.Restarts)
	}
	s += fmt.Sprintf("  best %.6g", pr.Best)
	if r, ok := pr.Strategy.(es.Recommender); ok {
		// Under noise the best value is the luckiest draw: show the
		// recommendation's estimate too.
		s += fmt.Sprintf("  rec %.6g", r.Recommend().F)
	}
	s += fmt.Sprintf("  sigma %.3g", es.StepSize(pr.Strategy))
	if a := es.TransformOf(pr.Strategy); a != nil && pr.Strategy.Dim() <= MaxCondDim {
		d.c.MulAAT(a) // C = A A^T
		if cond, err := linalg.CondSym(&d.c); err == nil {
			s += fmt.Sprintf("  cond %.3g", cond)
		}
	}
	return s + fmt.Sprintf("  %.1fs", pr.Elapsed.Seconds())
}

// Finish erases the status line from the terminal, so that what is printed
// next starts on a clean line.
func (d *Display) Finish() {
	if d.shown {
		io.WriteString(d.w, EraseLine)
		d.shown = false
	}
}
