package samefile_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hees-dev/hees/internal/samefile"
)

// Two names of one output file that does not exist yet.
func ExampleSame() {
	dir, err := os.MkdirTemp("", "samefile")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	fmt.Println(samefile.Same(filepath.Join(dir, "trace.csv"), filepath.Join(dir, ".", "trace.csv")))
	fmt.Println(samefile.Same(filepath.Join(dir, "trace.csv"), filepath.Join(dir, "run.ckpt")))
	// Output:
	// true
	// false
}
