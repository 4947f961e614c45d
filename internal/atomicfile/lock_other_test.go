//go:build !(unix && !solaris && !aix)

package atomicfile

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestLockUnsupported(t *testing.T) {
	_, err := Lock(context.Background(), filepath.Join(t.TempDir(), "run.lock"))
	if !errors.Is(err, errors.ErrUnsupported) || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("got %v, want an error saying locks are not supported", err)
	}
}
