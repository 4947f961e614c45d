//go:build !race

package objectives

// raceEnabled reports a -race build, where sync.Pool drops items on purpose
// and Eval may allocate.
const raceEnabled = false
