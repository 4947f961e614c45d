package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// UnmarshalJSON decodes the JSON object of a payload into v, rejecting
// unknown fields and anything after the object.
func UnmarshalJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON object")
	}
	return nil
}

// RemoveStaleTemps removes the temporary files that a process killed while
// replacing the file at path left behind (atomicfile.WriteFile names them
// .NAME.*.tmp). The caller holds the lock of path, under which every write
// of path happens, so no other process is writing one of them.
func RemoveStaleTemps(path string) {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // best effort: a leftover is harmless, only clutter
	}
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, "."+name+".") && strings.HasSuffix(n, ".tmp") && e.Type().IsRegular() {
			os.Remove(filepath.Join(dir, n))
		}
	}
}
