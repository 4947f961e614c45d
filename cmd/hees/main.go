// Command hees is the command line of hees, a derivative-free optimization
// engine built around the Hessian Estimation Evolution Strategy.
//
// Usage:
//
//	hees <command> [flags]
//	hees help [command]
//
// Run "hees help" for the list of commands. Every command exits with status
// 0 on success, 1 when the work failed (bad input data, I/O errors) and 2
// on a usage error (unknown command or flag, bad flag value, unknown
// problem); hees tell and hees ask -claim also exit with 3 when the run
// has stopped and 4 when a value differs from the one told before.
package main

import (
	"fmt"
	"io"
	"os"
)

// Exit statuses shared by every command.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// command is one subcommand: run gets the arguments after the command name
// and returns the exit status.
type command struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands lists the subcommands in the order "hees help" shows them.
var commands = []command{
	{"run", "minimize a test problem or an external program", runRun},
	{"resume", "continue a run from its checkpoint (hees run -checkpoint)", runResume},
	{"eval", "evaluate a test problem at points read from standard input", runEval},
	{"init", "create the state file of an ask/tell run", runInit},
	{"ask", "print the pending candidates of an ask/tell run", runAsk},
	{"tell", "record values of an ask/tell run read from standard input", runTell},
	{"status", "print the progress and best point of an ask/tell run", runStatus},
	{"worker", "evaluate the candidates of an ask/tell run with a program until it stops", runWorker},
	{"experiment", "reproduce a figure: fig2 (the paper's Figure 2) or condition", runExperiment},
	{"plot", "draw a run trace written by hees run -trace as SVG", runPlot},
	{"bench", "benchmark strategies on COCO's suites: COCO data, ERT summary, ECDF plots", runBench},
	{"version", "print the version of hees", runVersion},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches args (without the program name) to a command and returns
// the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch name := args[0]; name {
	case "help", "-h", "-help", "--help":
		return help(args[1:], stdin, stdout, stderr)
	default:
		if c, ok := lookup(name); ok {
			return c.run(args[1:], stdin, stdout, stderr)
		}
		fmt.Fprintf(stderr, "hees: unknown command %q (run 'hees help' for the list)\n", name)
		return exitUsage
	}
}

// help prints the overview, or a command's own help ("hees help eval" is
// "hees eval -h").
func help(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch len(args) {
	case 0:
		usage(stdout)
		return exitOK
	case 1:
		if c, ok := lookup(args[0]); ok {
			return c.run([]string{"-h"}, stdin, stdout, stderr)
		}
		switch args[0] {
		case "help": // "hees help help": the overview, which says how help works
			usage(stdout)
			return exitOK
		case asktellTopic: // what init, ask, tell, status and worker share
			fmt.Fprint(stdout, asktellHelp)
			return exitOK
		}
		fmt.Fprintf(stderr, "hees help: unknown command %q (run 'hees help' for the list)\n", args[0])
		return exitUsage
	}
	fmt.Fprintln(stderr, "hees help: give at most one command name")
	return exitUsage
}

// lookup finds a command by name.
func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// usage writes the overview of the commands.
func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: hees <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "  %-10s %s\n", "help", "show this overview, or a command's help: hees help <command>")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Topics:")
	fmt.Fprintf(w, "  %-10s %s\n", asktellTopic, "ask/tell through a state file, shared by init, ask, tell, status and worker")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Exit status: 0 success, 1 failure (bad input, I/O), 2 usage error; tell and")
	fmt.Fprintln(w, "ask -claim also 3 (the run has stopped) and 4 (a value differs from the one told).")
}
