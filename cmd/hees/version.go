package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/hees-dev/hees/internal/version"
)

const versionHelp = `Usage: hees version

Prints the version of hees: the release number, followed, for a binary
built by go build from a git checkout, by "+" and the first 12 hex digits
of the commit, and ".dirty" when the checkout had uncommitted changes
(such as 0.1.0+0123456789ab). hees run -json, hees bench's summary files
and the COCO .info files carry the same string.

`

// runVersion is the version command.
func runVersion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hees version", flag.ContinueOnError)
	if status, done := parseFlags(fs, args, versionHelp, stdout, stderr); done {
		return status
	}
	fmt.Fprintln(stdout, version.String())
	return exitOK
}
