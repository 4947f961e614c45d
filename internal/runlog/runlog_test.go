package runlog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/linalg"
)

// TestLogAppend writes a log, cuts its last line in the middle as a crash
// could, opens it again and checks that the partial line is no longer a
// row but a comment that keeps its text (before: it was deleted, also a
// complete row that only lacked its newline), that no second header is
// written, and that a log of another dimension is refused.
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
	if got := readString(t, path); got != want+PartialComment+"3,1,0,ok,1\n# strategy: hees\n3,1,0,ok,0,0,0\n" {
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

// TestResumeLog: a resumed run's log keeps the rows up to the checkpoint,
// turns the later ones (which the run evaluates again) into comments, and
// refuses a log that lacks rows the checkpoint has; a log longer than a
// chunk of the backward scan works the same.
func TestResumeLog(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, rows int) string {
		path := filepath.Join(dir, name)
		var b strings.Builder
		b.WriteString("# strategy: hees\n" + LogHeader(1) + "\n")
		for i := 1; i <= rows; i++ {
			fmt.Fprintf(&b, "%d,%d,0,ok,%d.5,0.%d\n", i, i-1, i, i)
			if i == 3 {
				b.WriteString("# resumed after generation: 2\n")
			}
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	path := write("log.csv", 12)
	l, err := ResumeLog(path, 1, []Field{{Name: "resumed", Value: "yes"}}, 8)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	data := readAll(t, path)
	if !strings.Contains(data, "8,7,0,ok,8.5,0.8\n"+RedoneComment+"9,8,0,ok,9.5,0.9\n") ||
		!strings.HasSuffix(data, RedoneComment+"12,11,0,ok,12.5,0.12\n# resumed: yes\n") || strings.Count(data, RedoneComment) != 4 {
		t.Errorf("resumed after evaluation 8:\n%s", data)
	}
	// Resumed again at the same point: nothing more to change.
	before := readAll(t, path)
	if l, err = ResumeLog(path, 1, nil, 8); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if after := readAll(t, path); after != before {
		t.Errorf("a second resume at 8 changed the log:\n%s", after)
	}
	// A checkpoint ahead of the log: refused, the file unchanged.
	if _, err := ResumeLog(path, 1, nil, 9); err == nil || !strings.Contains(err.Error(), "its last row is evaluation 8, but the checkpoint was taken after 9") {
		t.Errorf("resume at 9 of a log that ends at 8: %v", err)
	}
	if after := readAll(t, path); after != before {
		t.Error("a refused resume changed the log")
	}
	// A log of many chunks.
	long := write("long.csv", 20000)
	if l, err = ResumeLog(long, 1, nil, 12345); err != nil {
		t.Fatal(err)
	}
	l.Close()
	data = readAll(t, long)
	if strings.Count(data, RedoneComment) != 20000-12345 || !strings.Contains(data, "\n12345,12344,0,ok,12345.5,0.12345\n"+RedoneComment+"12346,") {
		t.Errorf("the long log: %d rows commented", strings.Count(data, RedoneComment))
	}
	// An empty file starts afresh; a header without rows lacks them.
	empty := filepath.Join(dir, "empty.csv")
	if l, err = ResumeLog(empty, 1, nil, 5); err != nil {
		t.Errorf("a new log of a resumed run: %v", err)
	} else {
		l.Close()
	}
	if _, err := ResumeLog(write("none.csv", 0), 1, nil, 5); err == nil || !strings.Contains(err.Error(), "last row is evaluation 0") {
		t.Errorf("a log without rows: %v", err)
	}
}

// TestLogRefusesSecondWriter: a log open in one run cannot be opened by
// another (their rows would interleave); it can once the first closes it.
func TestLogRefusesSecondWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.csv")
	first, err := OpenLog(path, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenLog(path, 2, nil); err == nil || !strings.Contains(err.Error(), "another run is writing it") {
		t.Errorf("second OpenLog: %v", err)
	}
	first.Close()
	second, err := OpenLog(path, 2, nil)
	if err != nil {
		t.Fatalf("OpenLog after the first closed: %v", err)
	}
	second.Close()
}

// TestTraceRefusesSecondWriter: a trace file cannot be one that another
// run holds, as its log or its trace (it was emptied and both runs wrote
// into it), and is refused before it is emptied; nor can it be a
// directory.
func TestTraceRefusesSecondWriter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log.csv")
	log, err := OpenLog(path, 2, []Field{{"run", "first"}})
	if err != nil {
		t.Fatal(err)
	}
	before := readAll(t, path)
	if _, err := CreateTrace(path, nil); err == nil || !strings.Contains(err.Error(), "another run is writing it") || !strings.Contains(err.Error(), path) {
		t.Errorf("a trace on an open log: %v", err)
	}
	if got := readAll(t, path); got != before {
		t.Errorf("the refused trace changed the log:\n%q\nwant\n%q", got, before)
	}
	log.Close()
	trace := filepath.Join(dir, "trace.csv")
	first, err := CreateTrace(trace, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CreateTrace(trace, nil); err == nil || !strings.Contains(err.Error(), "another run is writing it") {
		t.Errorf("a second trace on an open trace: %v", err)
	}
	first.Close()
	if again, err := CreateTrace(trace, nil); err != nil {
		t.Errorf("a trace after the first closed: %v", err)
	} else {
		again.Close()
	}
	if _, err := CreateTrace(dir, nil); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a trace on a directory: %v", err)
	}
}

// readAll returns the content of the file at path.
func readAll(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestLogColumns: a log with named columns writes its points with the
// columns' Append, and refuses a file whose header names other columns.
func TestLogColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.csv")
	cols := Columns{Names: []string{"lr", "act"}, Append: func(dst []byte, x []float64) []byte {
		return fmt.Appendf(dst, "%g,%s", x[0], []string{"relu", "tanh"}[int(x[1])])
	}}
	f, err := OpenFiles(FilesConfig{LogPath: path, Dim: 2, Columns: cols})
	if err != nil {
		t.Fatal(err)
	}
	x := linalg.NewDense(2, 2, []float64{0.001, 1, 0.5, 0})
	if err := f.log.Generation(1, 0, x, []float64{3, 4}, nil); err != nil {
		t.Fatal(err)
	}
	f.Close()
	want := "evaluation,generation,row,status,f,lr,act\n1,0,0,ok,3,0.001,tanh\n2,0,1,ok,4,0.5,relu\n"
	if got := string(readTestFile(t, path)); got != want {
		t.Errorf("log\n%s\nwant\n%s", got, want)
	}
	cols.Names = []string{"lr", "activation"}
	if _, err := OpenFiles(FilesConfig{LogPath: path, Dim: 2, Columns: cols}); err == nil || !strings.Contains(err.Error(), "not the one of a log of this space's parameters") {
		t.Errorf("other columns: %v", err)
	}
	if _, err := OpenFiles(FilesConfig{LogPath: path, Dim: 3, Columns: cols}); err == nil {
		t.Error("3 dimensions with 2 names")
	}
}

// readTestFile returns the content of path.
func readTestFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
