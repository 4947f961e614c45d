package main

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/hees-dev/hees/objectives"
)

// The help texts of the commands live in help/*.txt as plain text: what
// "hees <command> -h" prints before the flags. The ask/tell commands
// (init, ask, tell, status, worker) print their own text and point to
// the one text they share, asktellHelp, which "hees help asktell" prints
// (parseStateFlags); a {problems} line in run and eval stands for the list
// of problems (withProblems).
// asktellTopic is the help topic of what the ask/tell commands share.
const asktellTopic = "asktell"

var (
	//go:embed help/run.txt
	runHelp string
	//go:embed help/resume.txt
	resumeHelp string
	//go:embed help/eval.txt
	evalHelp string
	//go:embed help/init.txt
	initHelp string
	//go:embed help/ask.txt
	askHelp string
	//go:embed help/tell.txt
	tellHelp string
	//go:embed help/status.txt
	statusHelp string
	//go:embed help/worker.txt
	workerHelp string
	//go:embed help/asktell.txt
	asktellHelp string
	// asktellPointer ends the help of each ask/tell command.
	asktellPointer = "How ask/tell runs work, their files and exit statuses: hees help " + asktellTopic + ".\n\n"
	//go:embed help/experiment.txt
	experimentHelp string
	//go:embed help/plot.txt
	plotHelp string
	//go:embed help/bench.txt
	benchHelp string
	//go:embed help/version.txt
	versionHelp string
)

// problemsMarker is the line of a help file that stands for the list of
// problems, which package objectives holds.
const problemsMarker = "{problems}"

// withProblems returns help with problemList in place of problemsMarker.
func withProblems(help string) string {
	return strings.Replace(help, problemsMarker, problemList(), 1)
}

// problemList is the "Problems: ..." paragraph of the help, wrapped to 72
// columns: the classic names, then the range of each COCO suite.
func problemList() string {
	var words, suites []string
	first, last := map[string]string{}, map[string]string{} // "f1" and "f24" per suite
	for _, name := range objectives.Names() {
		suite, fn, ok := strings.Cut(name, "/")
		if !ok {
			words = append(words, name+",")
			continue
		}
		if _, seen := first[suite]; !seen {
			suites = append(suites, suite)
			first[suite] = fn
		}
		last[suite] = fn
	}
	for i, suite := range suites {
		end := ","
		if i == len(suites)-1 {
			end = "."
		}
		words = append(words, fmt.Sprintf("%s/%s … %s/%s%s", suite, first[suite], suite, last[suite], end))
	}
	var b strings.Builder
	col := 0
	for i, w := range append([]string{"Problems:"}, words...) {
		if i > 0 && col+1+len([]rune(w)) > 72 {
			b.WriteByte('\n')
			col = 0
		} else if i > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len([]rune(w))
	}
	return b.String()
}
