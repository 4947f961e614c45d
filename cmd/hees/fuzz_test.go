package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/hees-dev/hees/internal/checkpoint"
	"github.com/hees-dev/hees/internal/runspec"
	"github.com/hees-dev/hees/internal/session"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/statefile"
	"github.com/hees-dev/hees/objectives"
)

// The fuzz targets of the command line (RELIABILITY.md, Saved state): hees eval's
// input, hees tell's input against a state, and the decoding of checkpoints
// and ask/tell state files. Their seed corpora are in testdata/fuzz;
// TestFuzzSeeds -update rewrites the seeds made of files the command line
// writes. Run one with
//
//	go test -run '^$' -fuzz '^FuzzEvalInput$' -fuzztime 10s ./cmd/hees/

// evalSeeds are inputs of hees eval: good points in every accepted form,
// and each kind of bad line.
var evalSeeds = []string{
	"1 2 3\n",
	"1,2,3\n-1.5, 2, 0.25\n\t7\t0 0 \n",
	"1 2 3\r\n\r\n   \n4 5 6",
	"1 2\n1 2 3 4\n1 x 3\n,1 2 3\n1,,2,3\n1,2,3,\n",
	"1e400 1 1\n-1e400 0 0\n1e-400 0 0\n",
	"NaN 0 0\nInf -Inf +inf\n0x1p-3 1e-200 -0\n",
	"1_000 2 3\n0x_1p0 1 1\n",
	"\u00a01 2 3\u0085\n1\u20032 3\n",
}

// tellSeeds are inputs of hees tell against the state of tellState:
// good lines, special values, and each kind of bad line.
var tellSeeds = []string{
	"g0-2@0123abcd 1.5\n",
	"g0-2@0123abcd 1\ng0-3@0123abcd 2\ng0-4@0123abcd 3\ng0-5@0123abcd 4\ng0-6@0123abcd 5\n",
	"g0-2@0123abcd NaN\ng0-3@0123abcd +Inf\ng0-4@0123abcd 1e999\ng0-5@0123abcd -1e999\ng0-6@0123abcd -0\n",
	"g0-2@0123abcd -Inf\ng0-3@0123abcd 1\ng0-4@0123abcd 1\ng0-5@0123abcd 1\ng0-6@0123abcd 1\n",
	"g0-0@0123abcd 1\n",
	"g0-2@0123abcd 1\ng0-2@0123abcd 2\n",
	"g1-0@0123abcd 1\ng0-99@0123abcd 1\ng-1-0 1\ng00-2@0123abcd 1\nG0-2 1\n",
	"g0-2\ng0-2@0123abcd 1 2\ng0-2@0123abcd x\n\n  \n",
	"g0-2@0123abcd 1\r\ng0-3@0123abcd 0x1p-2\r\n",
	"g0-2@0123abcd failed\ng0-0@0123abcd 3\ng0-1@0123abcd NaN\ng0-0@0123abcd 4\ng1-0@ffffffff 1\ng0-3 1\n",
	"i0-0@0123abcd 1\ni0-2@0123abcd failed\ni1-0@0123abcd 2\nI0-0@0123abcd 1\ni00-1@0123abcd 1\ngi0-1@0123abcd 1\n",
}

// fuzzRunID is the run identity of tellState.
const fuzzRunID = "0123abcd"

// tellState returns the payload of an ask/tell state of hees in 3
// dimensions (7 candidates a generation) with rows 0 and 1 of generation 0
// told.
func tellState(tb testing.TB) []byte {
	tb.Helper()
	sf := strategyFlags{algo: "hees", seed: 1, sigma0: 2, restarts: "none"}
	cfg, err := sf.config(3, commandBox)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := sf.strategy(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	ss, err := session.New(session.Settings{RunID: fuzzRunID, Spec: runspec.Spec{Algo: sf.algo, Restarts: sf.restarts, Seed: sf.seed,
		Target: float(1e-8), Retries: defaultRetries, LostLeases: session.DefaultLostLeases, OnError: es.OnErrorStop}}, s)
	if err != nil {
		tb.Fatal(err)
	}
	if err := ss.Apply(session.Told{Values: map[int]float64{0: 3, 1: math.NaN()}}); err != nil {
		tb.Fatal(err)
	}
	payload, err := ss.Payload()
	if err != nil {
		tb.Fatal(err)
	}
	return payload
}

// nonBlankLines counts the lines of input that are not blank, as
// bufio.ScanLines splits them.
func nonBlankLines(input string) int {
	n := 0
	for line := range strings.Lines(input) {
		if strings.TrimSpace(line) != "" {
			n++
		}
	}
	return n
}

// FuzzEvalInput feeds arbitrary input to hees eval's reader: each
// non-blank line must give exactly one value or one error line, in order;
// a line is accepted only if it holds exactly d numbers (separated by
// spaces or commas), and its value is then the problem's value at them.
func FuzzEvalInput(f *testing.F) {
	for _, s := range evalSeeds {
		f.Add(s)
	}
	const dim = 3
	p, err := objectives.Parse("rosenbrock", dim)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, input string) {
		var out, errOut bytes.Buffer
		w := bufio.NewWriter(&out)
		status := evalLines(strings.NewReader(input), w, &errOut, p)
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		values := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if out.Len() == 0 {
			values = nil
		}
		var errLines []int
		for line := range strings.Lines(errOut.String()) {
			var n int
			if _, err := fmt.Sscanf(line, "hees eval: line %d: ", &n); err != nil || !strings.HasSuffix(line, "\n") {
				t.Fatalf("error line %q", line)
			}
			errLines = append(errLines, n)
		}
		if (status == exitFailure) != (len(errLines) > 0) || (status != exitOK && status != exitFailure) {
			t.Fatalf("exit %d with %d error lines", status, len(errLines))
		}

		// An independent reading of each line.
		next, lineNo := 0, 0
		for line := range strings.Lines(input) {
			lineNo++
			text := strings.TrimSpace(line)
			if text == "" {
				continue
			}
			words := strings.FieldsFunc(text, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
			x := make([]float64, 0, dim)
			for _, w := range words {
				v, err := strconv.ParseFloat(w, 64)
				if err != nil {
					x = nil
					break
				}
				x = append(x, v)
			}
			if len(errLines) > 0 && errLines[0] == lineNo {
				// A bad line prints NaN in its place.
				if next >= len(values) || values[next] != "NaN" {
					t.Fatalf("bad line %d %q: no NaN in its place", lineNo, line)
				}
				errLines = errLines[1:]
				next++
				continue
			}
			if len(x) != dim {
				t.Fatalf("line %d %q was accepted, but it does not hold %d numbers", lineNo, line, dim)
			}
			if next >= len(values) {
				t.Fatalf("line %d %q has neither a value nor an error", lineNo, line)
			}
			got, err := strconv.ParseFloat(values[next], 64)
			if want := p.Eval(x); err != nil || math.Float64bits(got) != math.Float64bits(want) &&
				!(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("line %d %q: printed %q, want %v", lineNo, line, values[next], want)
			}
			next++
		}
		if next != len(values) || len(errLines) > 0 {
			t.Fatalf("%d values for %d non-blank lines; error lines %v left over", len(values), next, errLines)
		}
	})
}

// FuzzTellInput feeds arbitrary input to hees tell's reader and checks
// against a state with 2 of its 7 values told: every non-blank line is
// either a value to apply or reported bad, once; a tell with no bad line
// applies exactly its values (the generation advances when it completes
// one), and the state written after it reads back the same.
func FuzzTellInput(f *testing.F) {
	for _, s := range tellSeeds {
		f.Add(s)
	}
	payload := tellState(f)
	f.Fuzz(func(t *testing.T, input string) {
		ss, err := session.Parse(payload)
		if err != nil {
			t.Fatal(err)
		}
		lines, bad, err := session.ReadTold(strings.NewReader(input))
		if err != nil {
			t.Skip("a line longer than the reader's buffer")
		}
		if len(lines)+len(bad) != nonBlankLines(input) {
			t.Fatalf("%d good and %d bad lines for %d non-blank lines", len(lines), len(bad), nonBlankLines(input))
		}
		told, invalid := ss.Check(lines)
		values := told.Values
		if len(values)+len(told.Failed)+len(invalid) != len(lines) {
			t.Fatalf("%d values, %d failures and %d invalid lines for %d lines", len(values), len(told.Failed), len(invalid), len(lines))
		}
		seen := map[int]bool{}
		for _, b := range append(bad, invalid...) {
			if seen[b.Line] || b.Line < 1 || b.Msg == "" {
				t.Fatalf("bad line %d %q reported twice, out of range or without a message", b.Line, b.Msg)
			}
			seen[b.Line] = true
		}
		if blocking(append(bad, invalid...)) != exitOK || len(values) == 0 || len(told.Failed) > 0 {
			return // hees tell applies nothing, or failures: Apply is tested elsewhere
		}

		gen, rows, toldBefore := ss.Strategy().Generation(), ss.Rows(), ss.NumTold()
		if err := ss.Apply(told); err != nil {
			t.Fatalf("apply: %v", err)
		}
		switch {
		case toldBefore+len(values) < rows:
			if ss.Strategy().Generation() != gen || ss.NumTold() != toldBefore+len(values) {
				t.Fatalf("generation %d with %d told, want %d with %d", ss.Strategy().Generation(), ss.NumTold(), gen, toldBefore+len(values))
			}
			for row, v := range values {
				if got, _ := ss.Told(row); math.Float64bits(got) != math.Float64bits(v) && !(math.IsNaN(got) && math.IsNaN(v)) {
					t.Fatalf("row %d: told %v, applied %v", row, v, got)
				}
			}
		case ss.Strategy().Generation() != gen+1 || ss.NumTold() != 0 || ss.Strategy().Evals() != rows:
			t.Fatalf("a complete generation: generation %d, %d told, %d evaluations; want %d, 0, %d",
				ss.Strategy().Generation(), ss.NumTold(), ss.Strategy().Evals(), gen+1, rows)
		}

		written, err := ss.Payload()
		if err != nil {
			t.Fatal(err)
		}
		back, err := session.Parse(written)
		if err != nil {
			t.Fatalf("the state written after the tell does not read back: %v", err)
		}
		again, err := back.Payload()
		if err != nil || !bytes.Equal(again, written) {
			t.Fatalf("the state does not read back the same (%v)", err)
		}
	})
}

// FuzzCheckpointDecode feeds arbitrary bytes to the decoders of checkpoints
// and ask/tell state files, as whole files and as payloads: they must
// never panic; a file's error must name one of the container's causes or
// say that its content is bad; and what they accept must encode and decode
// again to the same bytes.
//
// The seeds are the files of testdata/fuzz/FuzzCheckpointDecode, which
// TestFuzzSeeds checks and rewrites: making them here would cost each fuzz
// worker a few runs with checkpoints.
func FuzzCheckpointDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecodeError := func(what string, err error) {
			for _, cause := range []error{statefile.ErrForeign, statefile.ErrTruncated, statefile.ErrCorrupt, statefile.ErrVersion, statefile.ErrKind} {
				if errors.Is(err, cause) {
					return
				}
			}
			if !strings.HasPrefix(err.Error(), "bad "+what+": ") {
				t.Fatalf("error %q names no cause", err)
			}
		}
		for _, decode := range []func([]byte) (*checkpoint.State, error){checkpoint.Decode, checkpoint.Parse} {
			st, err := decode(data)
			if err != nil {
				checkDecodeError("checkpoint", err)
				continue
			}
			encoded, err := encodeState(st)
			if err != nil {
				t.Fatalf("a decoded checkpoint does not encode: %v", err)
			}
			back, err := checkpoint.Decode(encoded)
			if err != nil {
				t.Fatalf("an encoded checkpoint does not decode: %v", err)
			}
			again, err := encodeState(back)
			if err != nil || !bytes.Equal(again, encoded) {
				t.Fatalf("a checkpoint does not decode and encode to the same bytes (%v)", err)
			}
		}
		for _, decode := range []func([]byte) (*session.Session, error){session.Decode, session.Parse} {
			ss, err := decode(data)
			if err != nil {
				checkDecodeError("ask/tell state", err)
				continue
			}
			payload, err := ss.Payload()
			if err != nil {
				t.Fatalf("a decoded state does not encode: %v", err)
			}
			back, err := session.Parse(payload)
			if err != nil {
				t.Fatalf("an encoded state does not decode: %v", err)
			}
			again, err := back.Payload()
			if err != nil || !bytes.Equal(again, payload) {
				t.Fatalf("a state does not decode and encode to the same bytes (%v)", err)
			}
		}
	})
}

// decodeSeed is a seed of FuzzCheckpointDecode and whether it decodes.
type decodeSeed struct {
	name  string
	data  []byte
	valid bool
}

// decodeSeeds returns checkpoints written by hees run (of a problem, with
// IPOP and a trace, of an external program, and a finished run), an
// ask/tell state, their payloads alone, and broken variants.
func decodeSeeds(tb testing.TB) []decodeSeed {
	tb.Helper()
	dir := tb.TempDir()
	var seeds []decodeSeed
	add := func(name string, data []byte, valid bool) {
		seeds = append(seeds, decodeSeed{name, data, valid})
		if valid {
			_, payload, err := statefile.Decode(data)
			if err != nil {
				tb.Fatal(err)
			}
			seeds = append(seeds, decodeSeed{name + "_payload", bytes.Clone(payload), true})
		}
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"checkpoint_sphere", []string{"-f", "sphere", "-d", "2", "-max-evals", "100"}},
		{"checkpoint_ipop_trace", []string{"-f", "bbob/f15/i1", "-d", "2", "-restarts", "ipop", "-algo", "cmaes", "-max-evals", "300",
			"-trace", filepath.Join(dir, "trace.csv"), "-trace-every", "4", "-max-time", "1h"}},
		{"checkpoint_finished", []string{"-f", "sphere", "-d", "2", "-algo", "cma11", "-target", "1e-3"}},
	} {
		path := filepath.Join(dir, c.name)
		if code, _, errOut := runCLI(append([]string{"run", "-checkpoint", path, "-checkpoint-every", "1000"}, c.args...)...); code != exitOK {
			tb.Fatalf("%s: exit %d: %s", c.name, code, errOut)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		if c.name != "checkpoint_finished" {
			// A run that can go on, as a signal leaves it.
			st, err := checkpoint.Decode(data)
			if err != nil {
				tb.Fatal(err)
			}
			st.File.Stop = ""
			if data, err = encodeState(st); err != nil {
				tb.Fatal(err)
			}
		}
		add(c.name, data, true)
	}

	// A run of an external program, as createCheckpoint writes it.
	s, err := es.New("hees14", es.Config{Dim: 2, Seed: 4})
	if err != nil {
		tb.Fatal(err)
	}
	rs := checkpoint.Settings{Algo: "hees14", Restarts: "none", Seed: 4, Command: "./sim --fast", Dim: 2, MaxEvals: 50, Workers: 3,
		EvalTimeout: 5e9, TraceEvery: 1}
	cp, err := checkpoint.Create(tb.Context(), filepath.Join(dir, "cmd.hees"), 7, &rs, s, nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	cp.Close()
	data, err := os.ReadFile(filepath.Join(dir, "cmd.hees"))
	if err != nil {
		tb.Fatal(err)
	}
	add("checkpoint_command", data, true)

	state := filepath.Join(dir, "asktell.hees")
	mustRun(tb, "", "init", "-state", state, "-d", "3", "-restarts", "ipop", "-target", "1", "-retries", "2", "-on-error", "nan")
	_, claimedOut, _ := cli("", "ask", "-state", state, "-claim", "2")
	_, run, _ := strings.Cut(strings.Fields(claimedOut)[0], "@")
	mustRun(tb, strings.ReplaceAll("g0-0@R 1\ng0-3@R NaN\ng0-4@R failed\n", "@R", "@"+run), "tell", "-state", state)
	data, err = os.ReadFile(state)
	if err != nil {
		tb.Fatal(err)
	}
	add("asktell", data, true)

	valid := seeds[0].data
	flipped := bytes.Clone(valid)
	flipped[len(flipped)/2] ^= 1
	add("truncated", valid[:len(valid)-5], false)
	add("bit_flip", flipped, false)
	add("foreign", []byte("generation,evals\n"), false)
	add("json_not_object", []byte(`[1,2]`), false)
	return seeds
}

// mustRun runs the command line in-process with stdin and args, and fails
// the test on an exit status other than 0.
func mustRun(tb testing.TB, stdin string, args ...string) {
	tb.Helper()
	if code, _, errOut := cli(stdin, args...); code != exitOK {
		tb.Fatalf("hees %q: exit %d, stderr %s", args, code, errOut)
	}
}

// TestFuzzSeeds checks the seed corpora in testdata/fuzz: the files of
// FuzzCheckpointDecode that must decode still do (the format did not
// change under them), and every target has its seeds. With -update it
// rewrites them from the seeds of this file.
func TestFuzzSeeds(t *testing.T) {
	corpus := map[string][]string{} // target -> Go literals, by name
	names := map[string][]string{}
	for i, s := range evalSeeds {
		corpus["FuzzEvalInput"] = append(corpus["FuzzEvalInput"], "string("+strconv.Quote(s)+")")
		names["FuzzEvalInput"] = append(names["FuzzEvalInput"], "seed_"+strconv.Itoa(i))
	}
	for i, s := range tellSeeds {
		corpus["FuzzTellInput"] = append(corpus["FuzzTellInput"], "string("+strconv.Quote(s)+")")
		names["FuzzTellInput"] = append(names["FuzzTellInput"], "seed_"+strconv.Itoa(i))
	}
	seeds := decodeSeeds(t)
	for _, s := range seeds {
		corpus["FuzzCheckpointDecode"] = append(corpus["FuzzCheckpointDecode"], "[]byte("+strconv.Quote(string(s.data))+")")
		names["FuzzCheckpointDecode"] = append(names["FuzzCheckpointDecode"], s.name)
	}
	for target, literals := range corpus {
		dir := filepath.Join("testdata", "fuzz", target)
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for i, lit := range literals {
				if err := os.WriteFile(filepath.Join(dir, names[target][i]), []byte("go test fuzz v1\n"+lit+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		for _, name := range names[target] {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				t.Errorf("%v (go test -run TestFuzzSeeds -update writes it)", err)
			}
		}
	}
	if *update {
		return
	}
	for _, s := range seeds {
		if !s.valid {
			continue
		}
		path := filepath.Join("testdata", "fuzz", "FuzzCheckpointDecode", s.name)
		text, err := os.ReadFile(path)
		if err != nil {
			continue // reported above
		}
		_, lit, _ := strings.Cut(strings.TrimSpace(string(text)), "\n")
		quoted, ok := strings.CutPrefix(lit, "[]byte(")
		data, err := strconv.Unquote(strings.TrimSuffix(quoted, ")"))
		if !ok || err != nil {
			t.Errorf("%s: not a corpus file of one []byte", path)
			continue
		}
		var decodeErr error
		if strings.HasPrefix(s.name, "asktell") {
			if strings.HasSuffix(s.name, "_payload") {
				_, decodeErr = session.Parse([]byte(data))
			} else {
				_, decodeErr = session.Decode([]byte(data))
			}
		} else if strings.HasSuffix(s.name, "_payload") {
			_, decodeErr = checkpoint.Parse([]byte(data))
		} else {
			_, decodeErr = checkpoint.Decode([]byte(data))
		}
		if decodeErr != nil {
			t.Errorf("%s no longer decodes: %v (go test -run TestFuzzSeeds -update rewrites it)", path, decodeErr)
		}
	}
}
