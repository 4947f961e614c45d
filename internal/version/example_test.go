package version_test

import (
	"fmt"

	"github.com/hees-dev/hees/internal/version"
)

// Example prints the version; a test binary carries no VCS revision, so it
// is the release number alone.
func Example() {
	fmt.Println(version.String())
	// Output: 0.1.0
}
