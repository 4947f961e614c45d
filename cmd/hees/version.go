package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/hees-dev/hees/internal/version"
)

// runVersion is the version command.
func runVersion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hees version", flag.ContinueOnError)
	if status, done := parseFlags(fs, args, versionHelp, stdout, stderr); done {
		return status
	}
	fmt.Fprintln(stdout, version.String())
	return exitOK
}
