// Package version is the version of hees: the release number, and the
// revision of the source when the binary was built from a version-control
// checkout (go build stamps it; go test and go run of a file do not).
package version

import (
	"runtime/debug"
	"sync"
)

// Number is the release number of hees (semantic versioning).
const Number = "0.1.0"

// String returns the version: Number, followed when the build recorded it
// by "+" and the first 12 hex digits of the VCS revision, and ".dirty" when
// the checkout had uncommitted changes, such as "0.1.0+0123456789ab.dirty"
// (semantic versioning's build metadata).
func String() string { return stringOnce() }

var stringOnce = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Number
	}
	return withBuild(Number, info.Settings)
})

// withBuild appends the revision and the modified flag found in the build
// settings to number.
func withBuild(number string, settings []debug.BuildSetting) string {
	var revision string
	var dirty bool
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if revision == "" {
		return number
	}
	v := number + "+" + revision[:min(12, len(revision))]
	if dirty {
		v += ".dirty"
	}
	return v
}
