// Package doccheck holds tests of the repository's documentation, run by
// go test ./... like any other test: every document that Go source (its
// comments and strings), a Markdown file or a plain text file (such as the
// help texts of cmd/hees/help) cites exists in the repository, no
// issue-tracker numbers stand in for a reason, and the README's commands
// run as written. It has no API.
package doccheck
