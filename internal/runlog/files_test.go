package runlog

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/linalg"
)

// TestFiles checks the log of a resumed run: the comment, the rows of a
// generation with a failure, those of a batch of known points after it
// (generation -1), the closing comment on the best value (not the failed
// row's), and the open error of a missing directory.
func TestFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.csv")
	meta := []Field{{Name: "strategy", Value: "hees"}}
	f, err := OpenFiles(FilesConfig{LogPath: path, Dim: 2, Resumed: true, ResumedAfter: 3, ResumedEvals: 6, Meta: meta, SyncEvery: 2})
	if err != nil {
		t.Fatal(err)
	}
	x := linalg.NewDense(2, 2, []float64{0.5, -1, 2, 0})
	pr := es.Progress{Generation: 4, Evals: 8, Candidates: x, Values: []float64{1.25, 4}, Failed: []bool{false, true}}
	if err := f.AfterGeneration(pr); err != nil {
		t.Fatal(err)
	}
	known := es.Progress{Generation: 4, Evals: 9, Candidates: linalg.NewDense(1, 2, []float64{3, 1}), Values: []float64{0.5}, Injected: true}
	if err := f.AfterGeneration(known); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "# strategy: hees\n" + LogHeader(2) + "\n# resumed after generation: 3\n" +
		"7,3,0,ok,1.25,0.5,-1\n8,3,1,failed,4,2,0\n9,-1,0,ok,0.5,3,1\n# best value of this invocation: 0.5 (evaluation 9)\n"
	if string(data) != want {
		t.Errorf("log\n%s\nwant\n%s", data, want)
	}

	_, err = OpenFiles(FilesConfig{LogPath: filepath.Join(t.TempDir(), "no-such-dir", "log.csv"), Dim: 2})
	if oe := (*OpenLogError)(nil); !errors.As(err, &oe) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenFiles in a missing directory: %v, want an *OpenLogError of a missing file", err)
	}
}
