package boundedfile_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hees-dev/hees/internal/boundedfile"
)

func ExampleRead() {
	dir, err := os.MkdirTemp("", "boundedfile")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "checkpoint")
	if err := os.WriteFile(path, []byte("saved run"), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	data, err := boundedfile.Read(path, 1<<20)
	fmt.Printf("%q %v\n", data, err)
	_, err = boundedfile.Read(path, 4)
	fmt.Println(errors.Is(err, boundedfile.ErrTooLarge))
	_, err = boundedfile.Read(dir, 1<<20)
	fmt.Println(errors.Is(err, boundedfile.ErrNotRegular))
	// Output:
	// "saved run" <nil>
	// true
	// true
}
