package statusline_test

import (
	"os"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/statusline"
)

// A display with verbose on a writer that is not a terminal writes plain
// lines, at most one a second; es.Minimize calls Update after every
// generation when it is the Options.Progress callback.
func ExampleNew() {
	s, err := es.New("hees", es.Config{Dim: 3, Seed: 1})
	if err != nil {
		return
	}
	d := statusline.New(os.Stdout, false, true)
	d.Update(es.Progress{Strategy: s, Generation: 1, Evals: 7, Best: 1.5, Elapsed: 20 * time.Millisecond})
	d.Finish()
	// Output:
	// evals 7  gen 1  best 1.5  sigma 2  cond 1  0.0s
}
