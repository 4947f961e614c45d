package doccheck

import (
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// citedDoc matches the name of a document cited in text: a Markdown file
// whose base name starts with a capital letter (README.md, docs/ALGORITHMS.md,
// docs/BBOB.md), optionally with a relative directory. Lower-case *.md
// names are files the programs write (ert_ratio_d2.md), not documents.
var citedDoc = regexp.MustCompile(`(?:^|[^\w/.-])((?:[\w.-]+/)*[A-Z][\w-]*\.md)\b`)

// mdLink matches the target of a Markdown link or image, [text](target).
var mdLink = regexp.MustCompile(`\]\(([^()\s]+)\)`)

// trackerRef matches an issue-tracker number such as "issue N" or
// "issues N and M" with digits for N (group 2); group 1 is the word before
// it, if any.
var trackerRef = regexp.MustCompile(`(?i)(?:([\w/]+)\s+)?\b(issues?\s+#?\d+)`)

// otherProjects are the words that may precede "issue N" because they name
// another project's tracker, as in "gonum issue 1812".
var otherProjects = []string{"gonum", "go", "golang", "golang/go", "pycma", "numpy", "coco"}

// check walks the tree under root (skipping testdata directories and
// hidden ones) and returns one line per problem, "path:line: what",
// sorted: a cited document or a Markdown link target that is not in the
// tree, and an issue-tracker number. It reads Go files (only their
// comments and string literals), Markdown files and plain text files
// (*.txt, such as the help texts that cmd/hees embeds). A cited name
// resolves against root or against the citing file's directory; a link
// target against the file's directory.
func check(root string) ([]string, error) {
	var problems []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		switch filepath.Ext(path) {
		case ".go":
			texts, err := goTexts(path)
			if err != nil {
				return err
			}
			for _, t := range texts {
				problems = append(problems, checkText(root, rel, t.line, t.text, false)...)
			}
		case ".md", ".txt":
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			problems = append(problems, checkText(root, rel, 1, string(data), filepath.Ext(path) == ".md")...)
		}
		return nil
	})
	slices.SortStableFunc(problems, byPosition)
	return problems, err
}

// byPosition orders "path:line: what" lines by path, then line number.
func byPosition(a, b string) int {
	pa, la := position(a)
	pb, lb := position(b)
	if c := strings.Compare(pa, pb); c != 0 {
		return c
	}
	return la - lb
}

// position splits "path:line: what" into path and line.
func position(problem string) (string, int) {
	path, rest, _ := strings.Cut(problem, ":")
	var line int
	fmt.Sscanf(rest, "%d", &line)
	return path, line
}

// lineText is a piece of a file's text and the line it starts on.
type lineText struct {
	line int
	text string
}

// goTexts returns the comments and string literals of a Go file.
func goTexts(path string) ([]lineText, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	file := fset.AddFile(path, -1, len(src))
	var s scanner.Scanner
	var scanErr error
	s.Init(file, src, func(pos token.Position, msg string) {
		scanErr = fmt.Errorf("%s: %s", pos, msg)
	}, scanner.ScanComments)
	var out []lineText
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.COMMENT || tok == token.STRING {
			out = append(out, lineText{fset.Position(pos).Line, lit})
		}
	}
	return out, scanErr
}

// checkText returns the problems of text, which starts on line first of
// the file rel (relative to root); markdown says whether to check link
// targets too.
func checkText(root, rel string, first int, text string, markdown bool) []string {
	var problems []string
	dir := filepath.Dir(filepath.Join(root, rel))
	at := func(offset int) string {
		return fmt.Sprintf("%s:%d", filepath.ToSlash(rel), first+strings.Count(text[:offset], "\n"))
	}
	var links [][]int
	if markdown {
		links = mdLink.FindAllStringSubmatchIndex(text, -1)
	}
	inLink := func(offset int) bool {
		return slices.ContainsFunc(links, func(m []int) bool { return m[2] <= offset && offset < m[3] })
	}
	for _, m := range citedDoc.FindAllStringSubmatchIndex(text, -1) {
		name := text[m[2]:m[3]]
		if inLink(m[2]) {
			continue // checked as a link target below
		}
		if !exists(filepath.Join(root, name)) && !exists(filepath.Join(dir, name)) {
			problems = append(problems, fmt.Sprintf("%s: cites %s, which is not in the repository", at(m[2]), name))
		}
	}
	for _, m := range links {
		target := text[m[2]:m[3]]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		target, _, _ = strings.Cut(target, "#")
		if !exists(filepath.Join(dir, target)) {
			problems = append(problems, fmt.Sprintf("%s: links to %s, which is not in the repository", at(m[2]), target))
		}
	}
	for _, m := range trackerRef.FindAllStringSubmatchIndex(text, -1) {
		if m[2] >= 0 && slices.Contains(otherProjects, strings.ToLower(text[m[2]:m[3]])) {
			continue
		}
		problems = append(problems, fmt.Sprintf("%s: %q is an issue-tracker number; cite the document that holds the decision", at(m[4]), text[m[4]:m[5]]))
	}
	return problems
}

// exists reports whether path names a file or directory.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// moduleRoot returns the directory of the go.mod above the working
// directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if exists(filepath.Join(dir, "go.mod")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// TestCitationsResolve checks the whole repository: every document cited
// in Go source, Markdown or plain text is in it, and no tracker numbers
// appear.
func TestCitationsResolve(t *testing.T) {
	problems, err := check(moduleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestCheckFindsProblems runs the checker on the small tree in
// testdata/tree, which cites present and missing documents in every way
// the checker reads, and checks that it reports exactly the problems
// listed in testdata/tree.want.
func TestCheckFindsProblems(t *testing.T) {
	got, err := check(filepath.Join("testdata", "tree"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "tree.want"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if !slices.Equal(got, want) {
		t.Errorf("check(testdata/tree) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
