//go:build !linux

package atomicfile

// LocalFS reports false: outside Linux hees does not tell a local file
// system from a network one, and treats every file system as shared.
func LocalFS(path string) bool { return false }
