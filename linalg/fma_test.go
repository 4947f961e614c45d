package linalg

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

var fmaCheck = flag.Bool("fmacheck", false, "cross-compile linalg and check that no fused multiply-add is emitted")

// fusedOp matches the fused multiply-add instructions of amd64 (VFMADD231SD
// and relatives), arm64, loong64, ppc64, riscv64 and s390x in the compiler's
// assembly listing.
var fusedOp = regexp.MustCompile(`\bV?FN?M(ADD|SUB)\w*`)

// TestNoFusedMultiplyAdd compiles this package for the architectures whose
// compilers fuse x*y + z and checks that no fused instruction was emitted:
// every product that feeds a sum must carry an explicit float64(...)
// conversion, or results would differ between amd64 and arm64 (see the
// package documentation). This is the check gonum issue 1812 describes,
// automated. It needs the go command and, on a cold build cache, about a
// minute to compile the standard library for six targets, so it runs only
// with -fmacheck: go test ./linalg -run NoFused -fmacheck
func TestNoFusedMultiplyAdd(t *testing.T) {
	if !*fmaCheck {
		t.Skip("enable with -fmacheck")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not found")
	}
	targets := [][]string{
		{"GOARCH=amd64", "GOAMD64=v3"},
		{"GOARCH=arm64"},
		{"GOARCH=ppc64le"},
		{"GOARCH=riscv64"},
		{"GOARCH=s390x"},
		{"GOARCH=loong64"},
	}
	for _, env := range targets {
		cmd := exec.Command(goCmd, "build", "-gcflags=-S", "-o", os.DevNull, ".")
		cmd.Env = append(append(os.Environ(), "GOOS=linux", "CGO_ENABLED=0"), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: go build failed: %v\n%s", env, err, out)
		}
		if hits := fusedOp.FindAll(out, -1); len(hits) > 0 {
			for _, line := range regexp.MustCompile(`(?m)^.*\bV?FN?M(ADD|SUB)\w*.*$`).FindAll(out, 10) {
				t.Logf("%s", line)
			}
			t.Errorf("%v: %d fused multiply-add instructions in linalg", env, len(hits))
		}
	}
}

// TestAssemblyHasNoFusedMultiplyAdd checks the hand-written kernels the
// same way: their results equal the Go code's only if they round every
// product before adding it.
func TestAssemblyHasNoFusedMultiplyAdd(t *testing.T) {
	files, err := filepath.Glob("*.s")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no assembly files found in the package directory")
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if hits := fusedOp.FindAll(src, -1); len(hits) > 0 {
			t.Errorf("%s: fused multiply-add instructions %q", name, hits)
		}
	}
}
