package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/checkpoint"
	"github.com/hees-dev/hees/internal/statefile"
	"github.com/hees-dev/hees/objectives"
	"github.com/hees-dev/hees/space"
)

// objectiveInput reads a line of the objective program (objectiveProgram):
// numbers separated by blanks, or the values of a space, a word standing
// for its length, or one JSON object of them (in the object's order).
func objectiveInput(line string) ([]float64, error) {
	var x []float64
	word := func(w string) float64 {
		if v, err := strconv.ParseFloat(w, 64); err == nil {
			return v
		}
		return float64(len(w))
	}
	if strings.HasPrefix(line, "{") {
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return nil, fmt.Errorf("%q", line)
		}
		for dec.More() {
			if _, err := dec.Token(); err != nil { // the name
				return nil, err
			}
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			switch v := tok.(type) {
			case json.Number:
				x = append(x, word(string(v)))
			case string:
				x = append(x, float64(len(v)))
			default:
				return nil, fmt.Errorf("value %v in %q", tok, line)
			}
		}
		return x, nil
	}
	for _, w := range strings.Fields(line) {
		v, err := strconv.ParseFloat(w, 64)
		if err != nil && os.Getenv("HEES_TEST_WORDS") == "" {
			return nil, fmt.Errorf("%q is not a number", w)
		}
		if err != nil {
			v = word(w)
		}
		x = append(x, v)
	}
	return x, nil
}

// testSpace is a space of every kind: a log real, an int, a choice of
// strings, a choice of numbers, a real, a log int.
const testSpace = `{"params": [
  {"name": "lr", "type": "real", "low": 1e-5, "high": 0.1, "log": true},
  {"name": "count", "type": "int", "low": 1, "high": 64},
  {"name": "act", "type": "choice", "values": ["relu", "tanh", "sigmoid"]},
  {"name": "drop", "type": "choice", "values": [0, 0.25, 0.5]},
  {"name": "w", "type": "real", "low": -3, "high": 3},
  {"name": "batch", "type": "int", "low": 16, "high": 512, "log": true}
]}`

// writeSpace writes text to a space file in a new directory.
func writeSpace(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "space.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkSpacePoint checks that values, a JSON array of a testSpace point,
// hold an integer count and batch in range and choices among theirs.
func checkSpacePoint(t *testing.T, values []any) {
	t.Helper()
	if len(values) != 6 {
		t.Fatalf("x_best %v", values)
	}
	lr, count, act, drop, w, batch := values[0].(float64), values[1].(float64), values[2], values[3], values[4].(float64), values[5].(float64)
	switch {
	case lr < 1e-5 || lr > 0.1, count != math.Trunc(count) || count < 1 || count > 64,
		!slices.Contains([]any{"relu", "tanh", "sigmoid"}, act), !slices.Contains([]any{0.0, 0.25, 0.5}, drop),
		w < -3 || w > 3, batch != math.Trunc(batch) || batch < 16 || batch > 512:
		t.Errorf("point out of the space: %v", values)
	}
}

// TestRunSpaceProblem runs a test problem on a space with each kind of
// strategy: the summary and the log speak the space's units.
func TestRunSpaceProblem(t *testing.T) {
	sp := writeSpace(t, testSpace)
	for _, algo := range []string{"hees2", "cmaes", "hees", "es11"} {
		log := filepath.Join(t.TempDir(), "log.csv")
		rep, out := runJSON(t, "-f", "sphere", "-space", sp, "-algo", algo, "-max-evals", "600", "-log", log)
		if rep["dim"] != 6.0 {
			t.Errorf("%s: dim %v", algo, rep["dim"])
		}
		checkSpacePoint(t, rep["x_best"].([]any))
		params := rep["params"].(map[string]any)
		if params["act"] != rep["x_best"].([]any)[2] || !strings.Contains(out, `"params":{"lr":`) {
			t.Errorf("%s: params %v, output %s", algo, params, out)
		}
		data := string(readFile(t, log))
		if !strings.Contains(data, "\nevaluation,generation,row,status,f,lr,count,act,drop,w,batch\n") || !strings.Contains(data, "# space: {") {
			t.Errorf("%s: log head:\n%.600s", algo, data)
		}
		for _, row := range strings.Split(strings.TrimSpace(logRows([]byte(data))), "\n")[1:] {
			cells := strings.Split(row, ",")
			vals := make([]any, 6)
			for i, c := range cells[5:] {
				if v, err := strconv.ParseFloat(c, 64); err == nil {
					vals[i] = v
				} else {
					vals[i] = c
				}
			}
			checkSpacePoint(t, vals)
		}
	}
	// The summary prints the values by name.
	code, out, _ := runCLI("run", "-f", "sphere", "-space", sp, "-max-evals", "300")
	if code != exitOK || !regexpMatch(`best x +lr=[0-9.e-]+ count=\d+ act=(relu|tanh|sigmoid) drop=(0|0\.25|0\.5) w=\S+ batch=\d+\n`, out) {
		t.Errorf("summary:\n%s", out)
	}
}

// regexpMatch reports whether text matches the expression.
func regexpMatch(expr, text string) bool { return regexp.MustCompile(expr).MatchString(text) }

// TestRunSpaceCommand: the program gets the values as words (the default)
// or as JSON objects (-format json), and both runs give the same result;
// -x0 and -inject take the space's values.
func TestRunSpaceCommand(t *testing.T) {
	setObjectiveEnv(t, "sphere", "HEES_TEST_WORDS=1")
	sp := writeSpace(t, testSpace)
	program := selfCommand(t)
	args := []string{"-cmd", program, "-space", sp, "-max-evals", "400", "-seed", "3"}
	text, textOut := runJSON(t, args...)
	jsonRep, jsonOut := runJSON(t, append(args, "-format", "json")...)
	if textOut != jsonOut || fmt.Sprint(text) != fmt.Sprint(jsonRep) {
		t.Errorf("-format text and json differ:\n%s\n%s", textOut, jsonOut)
	}
	checkSpacePoint(t, text["x_best"].([]any))
	// Without a space, -format json names the coordinates x1 ... xd.
	plain := []string{"-cmd", program, "-d", "3", "-max-evals", "300", "-lower", "-2", "-upper", "2"}
	_, textOut = runJSON(t, plain...)
	_, jsonOut = runJSON(t, append(plain, "-format", "json")...)
	if textOut != jsonOut {
		t.Errorf("without a space -format text and json differ:\n%s\n%s", textOut, jsonOut)
	}

	// A start point and known points in the space's values.
	known := filepath.Join(t.TempDir(), "known.txt")
	os.WriteFile(known, []byte("# two known points\n0.001 12 tanh 0.25 0.5 32\n"+`{"lr":0.002,"count":1,"act":"relu","drop":0,"w":0,"batch":16}`+"\n"), 0o644)
	rep, _ := runJSON(t, append(args, "-x0", "0.001,12,tanh,0.25,0.5,32", "-inject", known, "-max-evals", "20")...)
	if rep["evals"].(float64) < 2 {
		t.Errorf("%v", rep)
	}
	rep, _ = runJSON(t, append(args, "-x0", `{"lr":0.001,"count":12,"act":"tanh","drop":0.25,"w":0.5,"batch":32}`, "-max-evals", "20")...)
	checkSpacePoint(t, rep["x_best"].([]any))
}

// TestRunSpaceErrors: bad spaces and flags that do not go with -space are
// refused with one line before anything runs.
func TestRunSpaceErrors(t *testing.T) {
	good := writeSpace(t, testSpace)
	dir := t.TempDir()
	n := 0
	bad := func(text string) string {
		n++
		path := filepath.Join(dir, fmt.Sprintf("bad%d.json", n))
		os.WriteFile(path, []byte(text), 0o644)
		return path
	}
	huge := filepath.Join(dir, "huge.json")
	os.WriteFile(huge, make([]byte, space.MaxFileSize+1), 0o644)
	known := filepath.Join(dir, "known.txt")
	os.WriteFile(known, []byte("0.001 12 swish 0 0 32\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-space", good, "-d", "3"}, "-d 3: the space " + good + " has 6 parameters (lr, count, act, drop, w, batch)"},
		{[]string{"-space", filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{"-space", dir}, "not a regular file"},
		{[]string{"-space", huge}, "file too large"},
		{[]string{"-space", bad(`{"params":[{"name":"a","type":"float","low":0,"high":1}]}`)}, `unknown type "float"`},
		{[]string{"-space", bad(`{"params":[{"name":"a","type":"real","low":1,"high":1}]}`)}, "low = 1 is not below high = 1"},
		{[]string{"-space", bad(`{"params":[{"name":"a","type":"real","low":0,"high":1,"log":true}]}`)}, "a log scale needs low > 0"},
		{[]string{"-space", bad(`{"params":[{"name":"a","type":"int","low":2,"high":2}]}`)}, "holds one value"},
		{[]string{"-space", bad(`{"params":[{"name":"a","type":"int","low":0,"high":2},{"name":"a","type":"real","low":0,"high":1}]}`)}, `the name "a" is taken`},
		{[]string{"-space", bad(`{"params":[{"name":"a","type":"choice","values":["x"]}]}`)}, "at least two"},
		{[]string{"-space", bad(`{"params":[{"name":"a","type":"choice","values":["x","x"]}]}`)}, "are both x"},
		{[]string{"-space", bad(`{"params":[{"name":"a","type":"real","low":0,"high":1}`)}, "not a space file"},
		{[]string{"-space", good, "-lower", "0"}, "leave out -lower"},
		{[]string{"-space", good, "-stds", "1"}, "leave out -lower"},
		{[]string{"-format", "xml", "-cmd", "x", "-d", "2"}, `-format "xml"`},
		{[]string{"-format", "json"}, "-format is the program's protocol"},
		{[]string{"-space", good, "-x0", "0.001,12,swish,0,0,32"}, `-x0: act = "swish" is not one of its values`},
		{[]string{"-space", good, "-x0", "0.001,12"}, "-x0: 2 values for the 6 parameters"},
		{[]string{"-space", good, "-inject", known}, `-inject ` + known + ` line 1: act = "swish"`},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(append([]string{"run"}, c.args...)...)
		if code == exitOK || out != "" || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want one line with %q", c.args, code, out, errOut, c.want)
		}
	}
	if runtime.GOOS == "windows" {
		return
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan string, 1)
	go func() { _, _, errOut := runCLI("run", "-space", fifo); done <- errOut }()
	select {
	case errOut := <-done:
		if !strings.Contains(errOut, "named pipe") {
			t.Errorf("-space FIFO: %q", errOut)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("hees run -space blocks on a named pipe")
	}
}

// TestSpaceCheckpoint: a checkpoint keeps the space, so that hees resume
// gives the uninterrupted run's output without the space file; a
// checkpoint whose space disagrees with its strategy is refused with one
// line.
func TestSpaceCheckpoint(t *testing.T) {
	sp := writeSpace(t, testSpace)
	args := []string{"-f", "sphere", "-space", sp, "-max-evals", "900", "-restarts", "ipop"}
	_, want := runJSON(t, args...)
	path := filepath.Join(t.TempDir(), "run.hees")
	if out := mustCLI(t, "", append([]string{"run", "-json", "-checkpoint", path}, args...)...); out != want {
		t.Errorf("with a checkpoint:\n%s\nwithout:\n%s", out, want)
	}
	os.Remove(sp) // the checkpoint keeps the space
	if out := mustCLI(t, "", "resume", "-json", path); out != want {
		t.Errorf("resumed:\n%s\nuninterrupted:\n%s", out, want)
	}

	// Tamper with the space of a checkpoint of an unfinished run.
	path2 := filepath.Join(t.TempDir(), "run.hees")
	sp2 := writeSpace(t, testSpace)
	mustCLI(t, "", "run", "-json", "-checkpoint", path2, "-max-time", "1ns", "-f", "sphere", "-space", sp2)
	orig := readFile(t, path2)
	for _, c := range []struct {
		space, format, want string
	}{
		{strings.Replace(testSpace, `"high": 64`, `"high": 65`, 1), "", "the run's space (lr, count, act, drop, w, batch) does not give the box its strategy searches"},
		{`{"params":[{"name":"a","type":"real","low":0,"high":1}]}`, "", "the run's space has 1 parameters, its strategy 6 dimensions"},
		{`{"params":[{"name":"a","type":"real","low":1,"high":0}]}`, "", `the run's space: space: parameter "a"`},
		{testSpace, "xml", `format "xml"`},
	} {
		payload, err := statefile.DecodeKind(orig, checkpoint.Kind)
		if err != nil {
			t.Fatal(err)
		}
		var f map[string]any
		json.Unmarshal(payload, &f)
		run := f["run"].(map[string]any)
		run["space"] = json.RawMessage(c.space)
		if c.format != "" {
			run["format"] = c.format
		}
		payload, _ = json.Marshal(f)
		data, err := statefile.Encode(checkpoint.Kind, payload)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(path2, data, 0o644)
		code, out, errOut := runCLI("resume", path2)
		if code == exitOK || out != "" || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("space %.40s: exit %d, stdout %q, stderr %q; want one line with %q", c.space, code, out, errOut, c.want)
		}
	}
	if _, err := os.Stat(path2); errors.Is(err, os.ErrNotExist) {
		t.Error("the refused checkpoint was removed")
	}
}

// TestSpaceOfReals: a space of plain reals runs exactly as the same box
// given by -lower and -upper; only the names (the log's columns, params)
// are new.
func TestSpaceOfReals(t *testing.T) {
	sp := writeSpace(t, `{"params":[{"name":"a","type":"real","low":-1,"high":2},{"name":"b","type":"real","low":0,"high":5},{"name":"c","type":"real","low":-3,"high":3}]}`)
	for _, algo := range []string{"hees2", "cmaes", "es11"} {
		common := []string{"-f", "rosenbrock", "-algo", algo, "-max-evals", "1500", "-seed", "7"}
		withSpace, _ := runJSON(t, append(common, "-space", sp)...)
		withBox, _ := runJSON(t, append(common, "-d", "3", "-lower", "-1,0,-3", "-upper", "2,5,3")...)
		for _, k := range []string{"f_best", "x_best", "evals", "generations", "stop_reason"} {
			if fmt.Sprint(withSpace[k]) != fmt.Sprint(withBox[k]) {
				t.Errorf("%s: %s %v with the space, %v with the box", algo, k, withSpace[k], withBox[k])
			}
		}
	}
}

// TestAskTellSpace drives an ask/tell run of a space (hees init -space
// -log) through hees ask (the values as words, and -format json) and hees
// tell, on a test problem evaluated at the values' numbers: it ends as
// hees run -space with the problem ends, and its log has the same rows;
// status prints the best point by name; -d that disagrees with the space
// and a box with a space are usage errors.
func TestAskTellSpace(t *testing.T) {
	spacePath := writeSpace(t, testSpace)
	sp, err := space.ReadFile(spacePath)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	state, log := filepath.Join(dir, "run.hees"), filepath.Join(dir, "run.log")
	args := []string{"-seed", "5", "-max-evals", "400"}
	mustCLI(t, "", append([]string{"init", "-state", state, "-space", spacePath, "-log", log}, args...)...)
	p, err := objectives.Parse("ellipsoid", sp.Len())
	if err != nil {
		t.Fatal(err)
	}
	for gen := 0; ; gen++ {
		text := mustCLI(t, "", "ask", "-state", state)
		if text == "" {
			break
		}
		objects := strings.Split(strings.TrimSpace(mustCLI(t, "", "ask", "-state", state, "-format", "json")), "\n")
		var in strings.Builder
		for i, line := range strings.Split(strings.TrimSpace(text), "\n") {
			id, values, _ := strings.Cut(line, " ")
			y, err := sp.ParseText(values)
			if err != nil {
				t.Fatalf("ask printed %q: %v", line, err)
			}
			var obj struct {
				ID     string          `json:"id"`
				Params json.RawMessage `json:"params"`
			}
			if err := json.Unmarshal([]byte(objects[i]), &obj); err != nil || obj.ID != id {
				t.Fatalf("ask -format json printed %q for %q: %v", objects[i], line, err)
			}
			if z, err := sp.ParseJSON(obj.Params); err != nil || !slices.Equal(z, y) {
				t.Fatalf("ask -format json printed %q, the words %q: %v", objects[i], values, err)
			}
			fmt.Fprintf(&in, "%s %s\n", id, formatValue(p.Eval(sp.Numbers(nil, y))))
		}
		mustCLI(t, in.String(), "tell", "-state", state)
		if gen > 1000 {
			t.Fatal("no stop after 1000 generations")
		}
	}
	runLog := filepath.Join(dir, "hees-run.log")
	want, _ := runJSON(t, append([]string{"-f", "ellipsoid", "-space", spacePath, "-log", runLog, "-target", "none"}, args...)...)
	sameAsRun(t, "ask/tell", status(t, state), want, "evals", "f_best", "x_best", "params", "stop_reason")
	if g, w := logRows(readFile(t, log)), logRows(readFile(t, runLog)); g != w || !strings.HasPrefix(g, "evaluation,generation,row,status,f,lr,count,act,drop,w,batch\n") {
		t.Errorf("the ask/tell log differs from hees run's:\n%.500s\nhees run:\n%.500s", g, w)
	}
	if out := mustCLI(t, "", "status", "-state", state); !regexpMatch(`best x +lr=[0-9.e-]+ count=\d+ act=(relu|tanh|sigmoid) drop=(0|0\.25|0\.5) w=\S+ batch=\d+\n`, out) {
		t.Errorf("status:\n%s", out)
	}

	// hees worker sends the values to its program as words or as JSON
	// objects (-format json), with the bits of hees run -cmd -space.
	setObjectiveEnv(t, "sphere", "HEES_TEST_WORDS=1")
	want, _ = runJSON(t, append([]string{"-cmd", selfCommand(t), "-space", spacePath}, args...)...)
	for _, format := range []string{"text", "json"} {
		state := filepath.Join(dir, format+".hees")
		mustCLI(t, "", append([]string{"init", "-state", state, "-space", spacePath}, args...)...)
		who := "worker -format " + format
		workerToEnd(t, who, state, workerCommand(t, "sphere", "HEES_TEST_WORDS=1"), "-format", format)
		sameAsRun(t, who, status(t, state), want, "evals", "f_best", "x_best", "params", "stop_reason")
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-d", "3"}, "-d 3: the space " + spacePath + " has 6 parameters"},
		{[]string{"-lower", "0"}, "-space gives the range of every parameter"},
		{[]string{"-x0", "1,2"}, "-x0:"},
	} {
		code, out, errOut := cli("", append([]string{"init", "-state", filepath.Join(dir, "bad.hees"), "-space", spacePath}, c.args...)...)
		if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("init -space %q: exit %d, stdout %q, stderr %q; want %q", c.args, code, out, errOut, c.want)
		}
	}
	for _, args := range [][]string{{"ask", "-state", state, "-format", "xml"}, {"worker", "-state", state, "-cmd", "true", "-format", "xml"}} {
		code, out, errOut := cli("", args...)
		if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, `-format "xml": want text or json`) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// TestRunSpaceWarmStart gives hees run -space -inject the -log of an
// earlier run in the same space: its best points, as many as a
// generation, are evaluated first, in order; a log of another space, or of
// a run without one, is refused with one line that names both sets of
// columns.
func TestRunSpaceWarmStart(t *testing.T) {
	setObjectiveEnv(t, "sphere", "HEES_TEST_WORDS=1")
	sp := writeSpace(t, testSpace)
	program := selfCommand(t)
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first.csv"), filepath.Join(dir, "second.csv")
	args := []string{"-cmd", program, "-space", sp, "-max-evals", "300", "-seed", "3"}
	runJSON(t, append(args, "-log", first)...)
	warm, _ := runJSON(t, append(args, "-inject", first, "-log", second)...)
	checkSpacePoint(t, warm["x_best"].([]any))
	_, _, rows := readLog(t, first)
	var ok [][]string
	for _, r := range rows {
		if r[3] == "ok" {
			ok = append(ok, r)
		}
	}
	slices.SortStableFunc(ok, func(a, b []string) int {
		fa, _ := strconv.ParseFloat(a[4], 64)
		fb, _ := strconv.ParseFloat(b[4], 64)
		return cmp.Compare(fa, fb)
	})
	_, _, got := readLog(t, second)
	s, err := es.New(es.Recommended, es.Config{Dim: 6})
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.PopulationSize() {
		if !slices.Equal(got[i][5:], ok[i][5:]) || got[i][1] != "-1" {
			t.Errorf("known point %d: %v, want the first log's %d-th best %v", i, got[i], i+1, ok[i])
		}
	}

	other := writeSpace(t, strings.Replace(testSpace, `"count"`, `"units"`, 1))
	code, _, errOut := runCLI("run", "-cmd", program, "-space", other, "-max-evals", "300", "-inject", first)
	if code != exitUsage && code != exitFailure || strings.Count(errOut, "\n") != 1 ||
		!strings.Contains(errOut, "the log's columns are lr, count, act, drop, w, batch, this run's lr, units, act, drop, w, batch") {
		t.Errorf("a log of another space: exit %d, %q", code, errOut)
	}
	code, _, errOut = runCLI("run", "-cmd", program, "-d", "6", "-max-evals", "300", "-inject", first)
	if code != exitUsage && code != exitFailure || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "this run's x1, x2, x3, x4, x5, x6") {
		t.Errorf("a space's log without a space: exit %d, %q", code, errOut)
	}
	// A cell that is not a value of its parameter names the line.
	bad := filepath.Join(dir, "bad.csv")
	text := string(readFile(t, first))
	for _, v := range []string{",relu,", ",tanh,", ",sigmoid,"} {
		text = strings.ReplaceAll(text, v, ",gelu,")
	}
	os.WriteFile(bad, []byte(text), 0o644)
	code, _, errOut = runCLI("run", "-cmd", program, "-space", sp, "-max-evals", "300", "-inject", bad)
	if code != exitUsage && code != exitFailure || strings.Count(errOut, "\n") != 1 || !regexpMatch(`bad\.csv:\d+: act = "gelu" is not one of its values`, errOut) {
		t.Errorf("a log with a bad cell: exit %d, %q", code, errOut)
	}
}
