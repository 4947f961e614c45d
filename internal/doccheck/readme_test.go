package doccheck

import (
	"bufio"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// codeBlocks returns the fenced code blocks of Markdown text whose info
// string is lang, in order.
func codeBlocks(text, lang string) []string {
	var blocks []string
	var cur *strings.Builder
	for _, line := range strings.Split(text, "\n") {
		switch {
		case cur == nil && strings.TrimSpace(line) == "```"+lang:
			cur = new(strings.Builder)
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
	}
	return blocks
}

// goCommand runs the go command in dir and fails the test on an error.
func goCommand(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// bestValue returns the number on the last "best value" line of the
// output of hees run or hees status.
func bestValue(t *testing.T, out string) float64 {
	t.Helper()
	v, found := 0.0, false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "best value"); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err != nil {
				t.Fatalf("best value line %q: %v", sc.Text(), err)
			}
			v, found = f, true
		}
	}
	if !found {
		t.Fatalf("no best value in the output:\n%s", out)
	}
	return v
}

// TestREADMECommands runs the shell blocks of README.md as written, in a
// temporary directory, and the library example as a program. The first
// block (go run, go test) is left out: it is the test suite itself. The
// README's go install and go build lines are run by the test in the module
// root, with their output in the temporary directory (hees goes to a
// directory put first on PATH, as go install would); every other line runs
// with sh. The -cmd run and the ask/tell loop must find the optimum of
// the example program (the bounded run its corner), and the library example
// must reach its target.
func TestREADMECommands(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh on PATH")
	}
	root := moduleRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	if err := os.Symlink(filepath.Join(root, "examples"), filepath.Join(tmp, "examples")); err != nil {
		t.Fatal(err)
	}

	ran := map[string]bool{}
	for _, block := range codeBlocks(readme, "sh") {
		if strings.Contains(block, "go test ./...") {
			continue
		}
		var script strings.Builder
		for _, line := range strings.Split(block, "\n") {
			words := strings.Fields(line)
			switch {
			case len(words) >= 2 && words[0] == "go" && words[1] == "install":
				pkg := words[2]
				goCommand(t, root, "build", "-o", filepath.Join(bin, filepath.Base(pkg)), pkg)
				ran["go install"] = true
			case len(words) >= 5 && words[0] == "go" && words[1] == "build" && words[2] == "-o":
				goCommand(t, root, "build", "-o", filepath.Join(tmp, words[3]), words[4])
				ran["go build"] = true
			default:
				script.WriteString(line + "\n")
			}
		}
		cmd := exec.Command("sh", "-e", "-c", script.String())
		cmd.Dir = tmp
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("README block failed: %v\n%s\noutput:\n%s", err, script.String(), out)
		}
		switch {
		case strings.Contains(block, "-lower "):
			// The bounded example: the sphere's minimum at (5, 5, 5) lies
			// outside the box [0, 1] x [0, 10] x [0, 2], so the best point
			// is (1, 5, 2), with the value 4² + 3² = 25.
			ran["bounds"] = true
			if f := bestValue(t, string(out)); !(math.Abs(f-25) < 1e-6) {
				t.Errorf("hees run -cmd with a box: best value %g, want 25:\n%s", f, out)
			}
		case strings.Contains(block, "-cmd "):
			ran["-cmd"] = true
			if f := bestValue(t, string(out)); !(f < 1e-6) {
				t.Errorf("hees run -cmd: best value %g, want below 1e-6:\n%s", f, out)
			}
		case strings.Contains(block, "hees tell"):
			ran["ask/tell"] = true
			if !strings.Contains(string(out), "stopped") {
				t.Errorf("the ask/tell loop ended before the run stopped:\n%s", out)
			}
			if f := bestValue(t, string(out)); !(f < 1e-6) {
				t.Errorf("ask/tell loop: best value %g, want below 1e-6:\n%s", f, out)
			}
		}
	}
	for _, what := range []string{"go install", "go build", "-cmd", "bounds", "ask/tell"} {
		if !ran[what] {
			t.Errorf("README.md has no %s command in its sh blocks", what)
		}
	}

	// The library example, wrapped into a program of its own module that
	// uses this one.
	snippets := codeBlocks(readme, "go")
	if len(snippets) != 1 {
		t.Fatalf("README.md has %d go blocks, want 1", len(snippets))
	}
	prog := filepath.Join(tmp, "library")
	if err := os.Mkdir(prog, 0o755); err != nil {
		t.Fatal(err)
	}
	mod := "module example\n\ngo 1.24\n\nrequire github.com/hees-dev/hees v0.0.0\n\nreplace github.com/hees-dev/hees => " + root + "\n"
	src := "package main\n\nimport (\n\t\"context\"\n\t\"fmt\"\n\t\"log\"\n\t\"math\"\n\n\t\"github.com/hees-dev/hees/es\"\n)\n\nfunc main() {\n" + snippets[0] + "}\n"
	if err := os.WriteFile(filepath.Join(prog, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(prog, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := goCommand(t, prog, "run", ".")
	if !strings.HasPrefix(out, "target reached ") {
		t.Errorf("the library example printed %q, want the reason \"target reached\" first", out)
	}
}
