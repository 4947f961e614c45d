// Package doccheck holds tests of the repository's documentation, run by
// go test ./... like any other test: every document that Go source (its
// comments, help texts and other strings) or a Markdown file cites exists
// in the repository, no issue-tracker numbers stand in for a reason, and
// the README's commands run as written. It has no API.
package doccheck
