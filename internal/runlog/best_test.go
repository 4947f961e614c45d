package runlog

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestBestRows reads the best rows of a log of two runs: failed rows and
// values that are not finite are left out, ties keep file order, k bounds
// the rows; a file that is not a log, a log of another dimension and a bad
// row are errors.
func TestBestRows(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	log := write("log.csv", "# strategy: hees2\n"+LogHeader(2)+"\n"+
		"1,0,0,ok,5,1,1\n2,0,1,failed,-7,2,2\n3,0,2,ok,NaN,3,3\n4,0,3,ok,2,4,4\n"+
		"# strategy: hees2\n"+LogHeader(2)+"\n"+
		"1,0,0,ok,2,5,5\n2,0,1,ok,-Inf,6,6\n3,0,2,ok,0.5,7,7\n# resumed after generation: 1\n4,1,0,ok,9,8,8\n")
	rows, err := BestRows(log, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, strconv.FormatFloat(r.F, 'g', -1, 64)+"@"+strconv.FormatFloat(r.X[0], 'g', -1, 64))
	}
	if want := []string{"0.5@7", "2@4", "2@5"}; !slices.Equal(got, want) {
		t.Errorf("the 3 best rows: %v, want %v", got, want)
	}
	if rows, err := BestRows(log, 2, 100); err != nil || len(rows) != 5 {
		t.Errorf("all rows: %d, %v; want the 5 ok rows with a finite value", len(rows), err)
	}
	points := write("points.txt", "1 2\n3 4\n")
	if _, err := BestRows(points, 2, 3); !errors.Is(err, ErrNotLog) {
		t.Errorf("a list of points: %v, want ErrNotLog", err)
	}
	if _, err := BestRows(log, 3, 3); err == nil || !strings.Contains(err.Error(), "2 coordinates, want d = 3") {
		t.Errorf("a log of another dimension: %v", err)
	}
	bad := write("bad.csv", LogHeader(2)+"\n1,0,0,ok,5,1\n")
	if _, err := BestRows(bad, 2, 3); err == nil || !strings.Contains(err.Error(), "bad.csv:2: 6 fields, want 7") {
		t.Errorf("a short row: %v", err)
	}
	if _, err := BestRows(dir, 2, 3); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
}
