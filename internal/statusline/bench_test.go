package statusline

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hees-dev/hees/bench"
)

// TestBench checks the last line of a bench's report with -v on a file, and
// that -q shows nothing.
func TestBench(t *testing.T) {
	var buf bytes.Buffer
	p := NewBench(&buf, false, true)
	p.Begin(3, 1)
	j := bench.Job{Label: "hees", Function: 2, Dim: 5, Instance: 1}
	p.Started(j)
	p.Started(bench.Job{Label: "hees", Function: 3, Dim: 5, Instance: 1})
	p.Finished(j)
	p.End()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	last := lines[len(lines)-1]
	if want := "bench: 2/3 runs (1 from before), 1 running, latest hees f3 d5 i1, "; !strings.HasPrefix(last, want) || !strings.HasSuffix(last, " left") {
		t.Errorf("last line %q, want %q..., ~T left", last, want)
	}

	buf.Reset()
	p = NewBench(&buf, true, true)
	p.Begin(1, 0)
	p.Finished(j)
	p.End()
	if buf.Len() != 0 {
		t.Errorf("-q wrote %q", buf.String())
	}
}
