//go:build !windows

package atomicfile

import "os"

// syncDir flushes the directory dir, and with it the entries a rename
// changed, to stable storage (fsync(2) on the directory).
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		d.Close()
		return err
	}
	return d.Close()
}
