package main

import (
	_ "embed"
	"flag"
	"fmt"
	"io"

	"github.com/hees-dev/hees/internal/version"
)

// versionHelp is the help of hees version.
//
//go:embed help/version.txt
var versionHelp string

// runVersion is the version command.
func runVersion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hees version", flag.ContinueOnError)
	if status, done := parseFlags(fs, args, versionHelp, stdout, stderr); done {
		return status
	}
	fmt.Fprintln(stdout, version.String())
	return exitOK
}
