package main

import (
	"io"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/statusline"
)

// Refresh intervals of the progress displays (see package statusline).
const (
	terminalRefresh = statusline.TerminalRefresh
	logRefresh      = statusline.LogRefresh
)

// progress is the status display of a run on standard error.
type progress struct {
	*statusline.Display
	terminal bool // it redraws one line in place
}

// newProgress returns the progress display of a run that writes to stderr,
// or nil when nothing is to be shown: with quiet, and when stderr is not a
// terminal unless verbose.
func newProgress(stderr io.Writer, quiet, verbose bool) *progress {
	d := statusline.New(stderr, quiet, verbose)
	if d == nil {
		return nil
	}
	return &progress{d, d.Terminal()}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool { return statusline.IsTerminal(w) }

// update shows the state after a generation (see statusline.Display.Update).
func (p *progress) update(pr es.Progress) { p.Update(pr) }

// finish erases the status line from the terminal.
func (p *progress) finish() { p.Finish() }
