package runlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/linalg"
)

// TestLogAppend writes a log, cuts its last line in the middle as a crash
// could, opens it again and checks that the partial line is gone, that no
// second header is written, and that a log of another dimension is refused.
func TestLogAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.csv")
	meta := []Field{{"strategy", "hees"}, {"command", "./sim\n--fast"}}
	l, err := OpenLog(path, 2, meta)
	if err != nil {
		t.Fatal(err)
	}
	x := linalg.NewDense(2, 2, []float64{1, 2, 3, 4})
	if err := l.Generation(1, 0, x, []float64{5, 1e300}, []Status{StatusOK, StatusFailed}); err != nil {
		t.Fatal(err)
	}
	if err := l.Generation(3, 1, x, []float64{7}, nil); err == nil {
		t.Error("a generation with one value for two candidates was written")
	}
	l.Close()
	want := "# strategy: hees\n# command: ./sim --fast\nevaluation,generation,row,status,f,x1,x2\n" +
		"1,0,0,ok,5,1,2\n2,0,1,failed,1e+300,3,4\n"
	if got := readString(t, path); got != want {
		t.Fatalf("log:\n%s\nwant:\n%s", got, want)
	}

	if err := os.WriteFile(path, []byte(want+"3,1,0,ok,1"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err = OpenLog(path, 2, meta[:1])
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Generation(3, 1, linalg.NewDense(1, 2, []float64{0, 0}), []float64{0}, nil); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if got := readString(t, path); got != want+"# strategy: hees\n3,1,0,ok,0,0,0\n" {
		t.Errorf("appended log:\n%s", got)
	}

	if _, err := OpenLog(path, 3, meta); err == nil || !strings.Contains(err.Error(), "3 dimensions") {
		t.Errorf("a log in 2 dimensions opened for 3: %v", err)
	}
}

// TestTraceFile appends the rows of a trace as they come and checks the
// file against WriteCSV after the comment lines.
func TestTraceFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.csv")
	tf, err := CreateTrace(path, []Field{{"d", "2"}})
	if err != nil {
		t.Fatal(err)
	}
	tr := &es.Trace{}
	for g := 1; g <= 3; g++ {
		tr.Rows = append(tr.Rows, es.TraceRow{Generation: g, Evals: 5 * g, FGeneration: 1, FBest: 1, Sigma: 0.5})
		if err := tf.Append(tr); err != nil {
			t.Fatal(err)
		}
	}
	tf.Close()
	var want strings.Builder
	want.WriteString("# d: 2\n")
	tr.WriteCSV(&want)
	if got := readString(t, path); got != want.String() {
		t.Errorf("trace file:\n%s\nwant:\n%s", got, want.String())
	}
	if h, ok := FindHeader([]byte(want.String())); !ok || !strings.HasPrefix(h, "generation,") {
		t.Errorf("FindHeader: %q, %t", h, ok)
	}
}

// readString returns the content of the file at path.
func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	if err := CheckDir("-log", filepath.Join(dir, "log.csv")); err != nil {
		t.Errorf("CheckDir in an existing directory: %v", err)
	}
	missing := filepath.Join(dir, "none", "log.csv")
	want := "-log " + missing + ": no directory " + filepath.Join(dir, "none") + " to write it in"
	if err := CheckDir("-log", missing); err == nil || err.Error() != want {
		t.Errorf("CheckDir in a missing directory = %v, want %s", err, want)
	}
}
