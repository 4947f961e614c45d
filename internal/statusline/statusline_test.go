package statusline

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hees-dev/hees/es"
)

// fakeClock is a clock that tests move by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestTerminal(t *testing.T) {
	s, err := es.New("hees", es.Config{Dim: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	clock := &fakeClock{t: time.Unix(0, 0)}
	p := newDisplay(&buf, true, clock.now)
	var want strings.Builder
	for i, at := range []time.Duration{0, 100, 249, 250, 300, 499, 700} {
		clock.t = time.Unix(0, 0).Add(at * time.Millisecond)
		p.Update(es.Progress{Strategy: s, Generation: i + 1, Evals: 7 * (i + 1), Best: 1.5, Restarts: i / 4, Elapsed: at * time.Millisecond})
		switch at {
		case 0:
			want.WriteString("\revals 7  gen 1  best 1.5  sigma 2  cond 1  0.0s\x1b[K")
		case 250:
			want.WriteString("\revals 28  gen 4  best 1.5  sigma 2  cond 1  0.2s\x1b[K")
		case 700:
			want.WriteString("\revals 49  gen 7  restarts 1  best 1.5  sigma 2  cond 1  0.7s\x1b[K")
		}
	}
	p.Finish()
	want.WriteString("\r\x1b[K")
	if buf.String() != want.String() {
		t.Errorf("terminal output %q, want %q (at most one line per 250 ms)", buf.String(), want.String())
	}
	p.Finish()
	if buf.String() != want.String() {
		t.Error("a second Finish wrote again")
	}
}

func TestLog(t *testing.T) {
	s, err := es.New("es11", es.Config{Dim: MaxCondDim + 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	clock := &fakeClock{t: time.Unix(0, 0)}
	p := New(&buf, false, true)
	if p == nil || p.Terminal() {
		t.Fatalf("New(buffer, verbose) = %+v, want a log display", p)
	}
	p.now = clock.now
	for _, at := range []time.Duration{0, 500, 999, 1000, 1500} {
		clock.t = time.Unix(0, 0).Add(at * time.Millisecond)
		p.Update(es.Progress{Strategy: s, Generation: 1, Evals: 1, Best: 2, Elapsed: at * time.Millisecond})
	}
	p.Finish()
	// No cond(C) above MaxCondDim.
	want := "evals 1  gen 1  best 2  sigma 2  0.0s\nevals 1  gen 1  best 2  sigma 2  1.0s\n"
	if buf.String() != want {
		t.Errorf("log output %q, want %q", buf.String(), want)
	}
}

func TestNew(t *testing.T) {
	var buf bytes.Buffer
	if p := New(&buf, false, false); p != nil {
		t.Error("a display on a buffer without verbose")
	}
	if p := New(&buf, true, true); p != nil {
		t.Error("a display with quiet")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if IsTerminal(w) {
		t.Error("a pipe is reported as a terminal")
	}
}

// TestRecommendation checks that the line of a run with noise handling
// shows the recommendation's estimate after the best value.
func TestRecommendation(t *testing.T) {
	s, err := es.New("hees2", es.Config{Dim: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	h, err := es.NewNoiseHandler(s, es.NoiseConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	p := newDisplay(&buf, false, (&fakeClock{t: time.Unix(0, 0)}).now)
	p.Update(es.Progress{Strategy: h, Generation: 1, Evals: 8, Best: -0.5})
	if want := "evals 8  gen 1  best -0.5  rec NaN  sigma 2  cond 1  0.0s\n"; buf.String() != want {
		t.Errorf("line %q, want %q", buf.String(), want)
	}
}
