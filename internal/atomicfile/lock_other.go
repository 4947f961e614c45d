//go:build !(unix && !solaris && !aix)

package atomicfile

import (
	"fmt"
	"os"
	"runtime"
)

// tryLock fails: this system has no flock(2).
func tryLock(f *os.File) (bool, error) {
	return false, fmt.Errorf("file locks are not supported on %s", runtime.GOOS)
}

// unlockFile is never reached, since tryLock never succeeds here.
func unlockFile(f *os.File) error {
	return fmt.Errorf("file locks are not supported on %s", runtime.GOOS)
}
