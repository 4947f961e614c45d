package version

import (
	"runtime/debug"
	"testing"
)

func TestWithBuild(t *testing.T) {
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "649636a0123456789abcdef0123456789abcdef0"}
	for _, c := range []struct {
		settings []debug.BuildSetting
		want     string
	}{
		{nil, "0.1.0"},
		{[]debug.BuildSetting{{Key: "vcs.modified", Value: "true"}}, "0.1.0"},
		{[]debug.BuildSetting{{Key: "-compiler", Value: "gc"}, rev}, "0.1.0+649636a01234"},
		{[]debug.BuildSetting{rev, {Key: "vcs.modified", Value: "false"}}, "0.1.0+649636a01234"},
		{[]debug.BuildSetting{rev, {Key: "vcs.modified", Value: "true"}}, "0.1.0+649636a01234.dirty"},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}, "0.1.0+abc"},
	} {
		if got := withBuild("0.1.0", c.settings); got != c.want {
			t.Errorf("withBuild(%v) = %q, want %q", c.settings, got, c.want)
		}
	}
}

// TestString: a test binary has no VCS stamp, so String is Number.
func TestString(t *testing.T) {
	if got := String(); got != Number {
		t.Errorf("String() = %q in a test binary, want %q", got, Number)
	}
}
