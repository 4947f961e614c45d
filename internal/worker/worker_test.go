package worker

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/extproc"
	"github.com/hees-dev/hees/internal/runspec"
	"github.com/hees-dev/hees/internal/session"
)

// helperEnv makes the test binary the objective program: it answers each
// point with sphere, and exits (a crash, to the worker) after the number
// of answers in crashEnv, if set.
const (
	helperEnv = "HEES_WORKER_TEST_HELPER"
	crashEnv  = "HEES_WORKER_TEST_CRASH_AFTER"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		os.Exit(helper())
	}
	os.Exit(m.Run())
}

// helper is the objective program.
func helper() int {
	crashAfter, _ := strconv.Atoi(os.Getenv(crashEnv))
	sc := bufio.NewScanner(os.Stdin)
	for n := 1; sc.Scan(); n++ {
		var x []float64
		for _, field := range strings.Fields(sc.Text()) {
			v, err := strconv.ParseFloat(field, 64)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			x = append(x, v)
		}
		if n == crashAfter {
			fmt.Fprintln(os.Stderr, "simulated crash")
			return 1
		}
		fmt.Println(strconv.FormatFloat(sphere(x), 'g', -1, 64))
	}
	return 0
}

// sphere is the objective.
func sphere(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += float64(v * v)
	}
	return s
}

// newSession returns a hees run in 3 dimensions with a budget of 70
// evaluations (10 generations).
func newSession(t *testing.T) *session.Session {
	t.Helper()
	s, err := es.New("hees", es.Config{Dim: 3, Seed: 4, Sigma0: 2, Box: 3})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := session.New(session.Settings{RunID: "0123abcd", Spec: runspec.Spec{Algo: "hees", Restarts: "none", Seed: 4, MaxEvals: 70,
		Retries: 3, LostLeases: 3, OnError: es.OnErrorStop}}, s)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// TestWorkerMatchesSequential runs 3 evaluation loops on a run, with a
// program that crashes every few evaluations: the run ends as the same
// run driven generation by generation in memory, bit for bit.
func TestWorkerMatchesSequential(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	want := newSession(t)
	for want.File.Stop == "" {
		told := session.Told{Values: map[int]float64{}}
		for row := range want.Rows() {
			told.Values[row] = sphere(want.Candidate(row))
		}
		if err := want.Apply(told); err != nil {
			t.Fatal(err)
		}
	}

	path := filepath.Join(t.TempDir(), "run.hees")
	if err := (session.Store{Path: path}).Create(context.Background(), newSession(t), false); err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		warns []string
	)
	w := &Worker{Path: path, Command: strconv.Quote(self), Lease: time.Hour,
		Options: extproc.Options{Env: []string{helperEnv + "=1", crashEnv + "=9"}},
		Warn: func(msg string) {
			mu.Lock()
			defer mu.Unlock()
			warns = append(warns, msg)
		}}
	reason, err := w.Run(context.Background(), 3)
	if err != nil || reason != es.ReasonMaxEvals {
		t.Fatalf("Run = %q, %v; want %q", reason, err, es.ReasonMaxEvals)
	}
	got, err := session.Store{Path: path}.LoadSession()
	if err != nil {
		t.Fatal(err)
	}
	gx, gf := got.Best()
	wx, wf := want.Best()
	if got.Evals() != want.Evals() || got.Strategy().Generation() != want.Strategy().Generation() ||
		math.Float64bits(gf) != math.Float64bits(wf) || fmt.Sprint(gx) != fmt.Sprint(wx) {
		t.Errorf("worker: %d evaluations, generation %d, best %v at %v; in memory %d, %d, %v at %v",
			got.Evals(), got.Strategy().Generation(), gf, gx, want.Evals(), want.Strategy().Generation(), wf, wx)
	}
	if w.Evals() != int64(want.Evals()) {
		t.Errorf("Evals = %d, want %d", w.Evals(), want.Evals())
	}
	if len(warns) == 0 || !strings.Contains(strings.Join(warns, "\n"), "simulated crash") {
		t.Errorf("no warning of the crashes: %q", warns)
	}
}
