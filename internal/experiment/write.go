package experiment

import (
	"os"
	"path/filepath"

	"github.com/hees-dev/hees/internal/atomicfile"
)

// WriteFiles creates the directory dir if needed and writes each of files
// in it atomically, calling wrote with the path of each file written.
func WriteFiles(dir string, files []File, wrote func(path string)) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		path := filepath.Join(dir, f.Name)
		if err := atomicfile.WriteFile(path, f.Data, 0o644); err != nil {
			return err
		}
		wrote(path)
	}
	return nil
}
