//go:build !(unix && !solaris && !aix)

package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
)

// tryLock fails with an error wrapping errors.ErrUnsupported: this system
// has no flock(2).
func tryLock(f *os.File) (bool, error) {
	return false, fmt.Errorf("file locks are not supported on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}

// unlockFile is never reached, since tryLock never succeeds here.
func unlockFile(f *os.File) error {
	return fmt.Errorf("file locks are not supported on %s", runtime.GOOS)
}

// waitLock is never reached, since tryLock never reports a held lock here.
func waitLock(ctx context.Context, f *os.File) (bool, error) {
	return false, errors.ErrUnsupported
}
