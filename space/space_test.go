package space

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hees-dev/hees/internal/boundedfile"
)

// newcomer is the space of the README's example.
const newcomer = `{"params": [
  {"name": "lr", "type": "real", "low": 1e-5, "high": 0.1, "log": true},
  {"name": "count", "type": "int", "low": 1, "high": 64},
  {"name": "x", "type": "real", "low": -3, "high": 3},
  {"name": "y", "type": "real", "low": -3, "high": 3},
  {"name": "z", "type": "real", "low": 0, "high": 1000},
  {"name": "act", "type": "choice", "values": ["relu", "tanh", 0.5]},
  {"name": "batch", "type": "int", "low": 16, "high": 512, "log": true}
]}`

func mustParse(t testing.TB, text string) *Space {
	t.Helper()
	s, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDomain(t *testing.T) {
	s := mustParse(t, newcomer)
	if s.Len() != 7 || !slices.Equal(s.Names(), []string{"lr", "count", "x", "y", "z", "act", "batch"}) {
		t.Fatalf("Len %d, names %v", s.Len(), s.Names())
	}
	lo, hi, steps := s.Domain(true)
	wantLo := []float64{math.Log(1e-5), 1, -3, -3, 0, 0, math.Log(15.5)}
	wantHi := []float64{math.Log(0.1), 64, 3, 3, 1000, 2, math.Log(512.5)}
	for i := range lo {
		if math.Abs(lo[i]-wantLo[i]) > 1e-15*math.Abs(wantLo[i]) || math.Abs(hi[i]-wantHi[i]) > 1e-15*math.Abs(wantHi[i]) {
			t.Errorf("coordinate %d: [%v, %v], want [%v, %v]", i, lo[i], hi[i], wantLo[i], wantHi[i])
		}
	}
	if !slices.Equal(steps, []float64{0, 1, 0, 0, 0, 1, 0}) {
		t.Errorf("steps %v", steps)
	}
	lo, hi, steps = s.Domain(false)
	if steps != nil || lo[1] != 0.5 || hi[1] != 64.5 || lo[5] != -0.5 || hi[5] != 2.5 {
		t.Errorf("without steps: %v %v %v", lo, hi, steps)
	}
	reals := mustParse(t, `{"params":[{"name":"a","type":"real","low":0,"high":1},{"name":"b","type":"int","low":1,"high":9,"log":true}]}`)
	if _, _, steps := reals.Domain(true); steps != nil {
		t.Errorf("a space without discrete coordinates has steps %v", steps)
	}
}

func TestValues(t *testing.T) {
	s := mustParse(t, newcomer)
	y := []float64{math.Log(1e-3), 12, 0.25, -3, 1000, 2, math.Log(100.4)}
	got := string(s.AppendText(nil, y, ' '))
	if want := "0.0010000000000000002 12 0.25 -3 1000 0.5 100"; got != want {
		t.Errorf("AppendText %q, want %q", got, want)
	}
	got = string(s.AppendJSON(nil, y))
	if want := `{"lr":0.0010000000000000002,"count":12,"x":0.25,"y":-3,"z":1000,"act":0.5,"batch":100}`; got != want {
		t.Errorf("AppendJSON %s, want %s", got, want)
	}
	y[5] = 0
	if got := string(s.AppendText(nil, y, ',')); !strings.Contains(got, ",relu,") {
		t.Errorf("choice 0 gives %q", got)
	}
	if n := s.Numbers(nil, y); n[5] != 0 || n[1] != 12 {
		t.Errorf("Numbers %v", n)
	}
	y[5] = 2
	if n := s.Numbers(nil, y); n[5] != 0.5 {
		t.Errorf("a numeric choice gives %v, want its value 0.5", n[5])
	}
	// Rounding halves up and clamping at the widened ends (Domain(false)).
	for _, c := range []struct{ y, want float64 }{{0.5, 1}, {1.49, 1}, {1.5, 2}, {64.5, 64}, {-7, 1}, {1e300, 64}, {math.NaN(), 1}} {
		if v := s.Values([]float64{-5, c.y, 0, 0, 0, 0, 3})[1]; v.Float() != c.want {
			t.Errorf("int at %v: %v, want %v", c.y, v.Float(), c.want)
		}
	}
	if v := s.Values([]float64{100, 1, 0, 0, 0, 0, 3})[0].Float(); v != 0.1 {
		t.Errorf("log real beyond the box: %v, want 0.1", v)
	}
}

func TestRoundTrip(t *testing.T) {
	s := mustParse(t, newcomer)
	lo, hi, _ := s.Domain(false)
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		y := make([]float64, len(lo))
		for i := range y {
			y[i] = lo[i] + r.Float64()*(hi[i]-lo[i])
		}
		vals := s.Values(y)
		text := string(s.AppendText(nil, y, ' '))
		for _, back := range []func() ([]float64, error){
			func() ([]float64, error) { return s.Point(vals) },
			func() ([]float64, error) { return s.ParseText(text) },
			func() ([]float64, error) { return s.ParseJSON(s.AppendJSON(nil, y)) },
		} {
			y2, err := back()
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			v2 := s.Values(y2)
			for i := range vals {
				a, b := vals[i], v2[i]
				if a.IsString() != b.IsString() || a.Text() != b.Text() && !(s.params[i].Log && s.params[i].Kind == Real && math.Abs(a.Float()/b.Float()-1) < 3e-16) {
					t.Fatalf("%s: parameter %d %s comes back as %s", text, i, a.Text(), b.Text())
				}
			}
		}
	}
	// A number may be written otherwise.
	if y, err := s.ParseText("1e-3, 12.0, 0, 0, 1e3, 5e-1, 16"); err != nil || y[5] != 2 || y[1] != 12 {
		t.Errorf("ParseText: %v %v", y, err)
	}
}

func TestParseErrors(t *testing.T) {
	p := func(rest string) string { return `{"params":[{"name":"a",` + rest + `}]}` }
	cases := []struct{ text, want string }{
		{``, "not a space file"},
		{`[]`, "not a space file"},
		{`{}`, `no "params"`},
		{`{"params":[]}`, "no parameters"},
		{`{"params":[{"type":"real","low":0,"high":1}]}`, `no "name"`},
		{p(`"low":0,"high":1`), `no "type"`},
		{p(`"type":"float","low":0,"high":1`), `unknown type "float"`},
		{p(`"type":"real","low":1,"high":1`), "is not below high"},
		{p(`"type":"real","low":2,"high":1`), "is not below high"},
		{p(`"type":"real","low":0,"high":1,"log":true`), "log scale needs low > 0"},
		{p(`"type":"real","low":-1,"high":1,"log":true`), "log scale needs low > 0"},
		{p(`"type":"int","low":3,"high":3`), "holds one value"},
		{p(`"type":"int","low":0.5,"high":3`), "not a whole number"},
		{p(`"type":"int","low":0,"high":1e16`), "2^53"},
		{p(`"type":"real","low":0`), `needs "low" and "high"`},
		{p(`"type":"real","low":0,"high":1e999`), "not a space file"},
		{p(`"type":"real","low":0,"high":"1"`), "a JSON string where a number is expected"},
		{p(`"type":"real","low":0,"high":1,"values":[1,2]`), `has "values"`},
		{p(`"type":"real","low":0,"high":1,"step":1`), "unknown field"},
		{p(`"type":"choice","values":["a"]`), "at least two"},
		{p(`"type":"choice","values":["a","a"]`), "both a"},
		{p(`"type":"choice","values":[1,"1"]`), "both 1"},
		{p(`"type":"choice","values":["a b","c"]`), "a string value is a word"},
		{p(`"type":"choice","values":["a,b","c"]`), "a string value is a word"},
		{p(`"type":"choice","values":["","c"]`), "empty string"},
		{p(`"type":"choice","values":[true,"c"]`), "want a string or a number"},
		{p(`"type":"choice","values":[null,"c"]`), "want a string or a number"},
		{p(`"type":"choice","values":["a","b"],"low":0`), `has "low"`},
		{p(`"type":"choice"`), `no "values"`},
		{`{"params":[{"name":"a","type":"real","low":0,"high":1},{"name":"a","type":"real","low":0,"high":1}]}`, "taken by parameter 1"},
		{`{"params":[{"name":"","type":"real","low":0,"high":1}]}`, "empty name"},
		{`{"params":[{"name":"1x","type":"real","low":0,"high":1}]}`, "starts with a letter"},
		{`{"params":[{"name":"a b","type":"real","low":0,"high":1}]}`, "starts with a letter"},
		{`{"params":[{"name":"a\"","type":"real","low":0,"high":1}]}`, "starts with a letter"},
		{`{"params":[{"name":"f","type":"real","low":0,"high":1}]}`, "column of the evaluation log"},
		{`{"params":[{"name":"` + strings.Repeat("a", 65) + `","type":"real","low":0,"high":1}]}`, "longer than 64"},
		{`{"params":[{"name":"a","name":"b","type":"real","low":0,"high":1}]}`, `the key "name" twice`},
		{`{"params":[{"name":"a","type":"real","low":0,"high":1}]} {}`, "data after"},
		{`{"params":[{"name":"a","type":"real","low":0,"high":1}],"extra":1}`, "unknown field"},
		{strings.Repeat("[", 100) + strings.Repeat("]", 100), "nested deeper"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.text))
		switch {
		case err == nil:
			t.Errorf("%s: no error, want %q", c.text, c.want)
		case !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: %v, want %q", c.text, err, c.want)
		case strings.Contains(err.Error(), "\n"):
			t.Errorf("%s: the error has several lines: %q", c.text, err)
		}
	}
}

func TestPointErrors(t *testing.T) {
	s := mustParse(t, newcomer)
	for _, c := range []struct{ line, want string }{
		{"0.001 12 0 0 0 relu", "6 values for the 7"},
		{"0.2 12 0 0 0 relu 16", "lr = 0.2 lies outside"},
		{"0.001 12.5 0 0 0 relu 16", "count = 12.5 is not a whole number"},
		{"0.001 12 0 0 0 sigmoid 16", `act = "sigmoid" is not one of its values (relu, tanh, 0.5)`},
		{"0.001 12 0 0 nan relu 16", "is not a finite number"},
		{"0.001 12 0 0 0 relu 600", "batch = 600 lies outside"},
	} {
		if _, err := s.ParseText(c.line); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.line, err, c.want)
		}
	}
	for _, c := range []struct{ text, want string }{
		{`{"lr":0.001,"count":12,"x":0,"y":0,"z":0,"act":"relu"}`, "no value for batch"},
		{`{"lr":0.001,"count":12,"x":0,"y":0,"z":0,"act":"relu","batch":16,"w":1}`, `"w" is not a parameter`},
		{`{"lr":0.001,"lr":0.002,"count":12,"x":0,"y":0,"z":0,"act":"relu","batch":16}`, "twice"},
		{`{"lr":"0.001","count":12,"x":0,"y":0,"z":0,"act":"relu","batch":16}`, "is not a number"},
		{`[1,2]`, "not a JSON object"},
	} {
		if _, err := s.ParseJSON([]byte(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.text, err, c.want)
		}
	}
}

func TestMarshalJSON(t *testing.T) {
	s := mustParse(t, newcomer)
	data, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	s2, err := Parse(data)
	if err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	data2, _ := s2.MarshalJSON()
	if !bytes.Equal(data, data2) {
		t.Errorf("not canonical:\n%s\n%s", data, data2)
	}
	if !strings.Contains(string(data), `{"name":"act","type":"choice","values":["relu","tanh",0.5]}`) {
		t.Errorf("%s", data)
	}
}

func TestNew(t *testing.T) {
	s, err := New(Param{Name: "k", Kind: Int, Low: -2, High: 2}, Param{Name: "c", Kind: Choice, Values: []Value{String("a"), Number(3)}})
	if err != nil {
		t.Fatal(err)
	}
	params := s.Params()
	params[1].Values[0] = String("changed")
	if s.Values([]float64{0, 0})[1].Text() != "a" {
		t.Error("Params shares storage with the space")
	}
	if _, err := New(); err == nil {
		t.Error("a space without parameters")
	}
	if _, err := New(Param{Name: "r", Kind: Real, Low: 0, High: 1, Values: []Value{Number(1), Number(2)}}); err == nil {
		t.Error("a real with values")
	}
	if _, err := New(Param{Name: "c", Kind: Choice, Values: []Value{Number(math.Inf(1)), Number(1)}}); err == nil {
		t.Error("an infinite choice")
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "space.json")
	if err := os.WriteFile(good, []byte(newcomer), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(good); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.json")
	if err := os.WriteFile(huge, bytes.Repeat([]byte(" "), MaxFileSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(huge); !errors.Is(err, boundedfile.ErrTooLarge) {
		t.Errorf("huge file: %v", err)
	}
	if _, err := ReadFile(dir); !errors.Is(err, boundedfile.ErrNotRegular) {
		t.Errorf("directory: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"params":[{"name":"a","type":"real","low":1,"high":0}]}`), 0o644)
	if _, err := ReadFile(bad); err == nil || !strings.HasPrefix(err.Error(), bad+": space: parameter \"a\"") {
		t.Errorf("bad file: %v", err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadFile(fifo); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, boundedfile.ErrNotRegular) {
			t.Errorf("named pipe: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadFile blocks on a named pipe")
	}
}

// FuzzParse checks that Parse never panics, that a space it accepts comes
// back unchanged through MarshalJSON, and that the values of any point of
// its domain lie in their ranges and parse back.
func FuzzParse(f *testing.F) {
	f.Add([]byte(newcomer))
	f.Add([]byte(`{"params":[{"name":"a","type":"choice","values":[1,2,"x"]}]}`))
	f.Add([]byte(`{"params":[{"name":"a","type":"int","low":-9007199254740992,"high":9007199254740992}]}`))
	f.Add([]byte(`{"params":[{"name":"a","type":"real","low":1e-300,"high":1e300,"log":true}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of several lines: %q", err)
			}
			return
		}
		out, err := s.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		s2, err := Parse(out)
		if err != nil {
			t.Fatalf("%s does not parse back: %v", out, err)
		}
		if out2, _ := s2.MarshalJSON(); !bytes.Equal(out, out2) {
			t.Fatalf("%s comes back as %s", out, out2)
		}
		for _, steps := range []bool{false, true} {
			lo, hi, _ := s.Domain(steps)
			for _, pick := range []func(i int) float64{
				func(i int) float64 { return lo[i] },
				func(i int) float64 { return hi[i] },
				func(i int) float64 { return lo[i]/2 + hi[i]/2 },
			} {
				y := make([]float64, s.Len())
				for i := range y {
					y[i] = pick(i)
				}
				for i, v := range s.Values(y) {
					p := s.params[i]
					if p.Kind != Choice && !(v.Float() >= p.Low && v.Float() <= p.High) {
						t.Fatalf("%s: parameter %s = %v outside [%v, %v]", out, p.Name, v.Float(), p.Low, p.High)
					}
				}
				if _, err := s.ParseText(string(s.AppendText(nil, y, ' '))); err != nil {
					t.Fatalf("%s: %v", out, err)
				}
				if _, err := s.ParseJSON(s.AppendJSON(nil, y)); err != nil {
					t.Fatalf("%s: %v", out, err)
				}
			}
		}
	})
}
