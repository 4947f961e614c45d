package atomicfile_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/hees-dev/hees/internal/atomicfile"
)

func ExampleWriteFile() {
	dir, err := os.MkdirTemp("", "atomicfile-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "run.state")

	// Readers see the old content or the new one, never a mix.
	for _, state := range []string{"generation 1\n", "generation 2\n"} {
		if err := atomicfile.WriteFile(path, []byte(state), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(data))
	// Output: generation 2
}

func ExampleLock() {
	dir, err := os.MkdirTemp("", "atomicfile-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "run.state")

	// A read-modify-write under the lock cannot interleave with another
	// process doing the same.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	unlock, err := atomicfile.Lock(ctx, path+".lock")
	if err != nil {
		log.Fatal(err)
	}
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		log.Fatal(err)
	}
	if err := atomicfile.WriteFile(path, append(old, "told 1 value\n"...), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := unlock(); err != nil {
		log.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(data))
	// Output: told 1 value
}
