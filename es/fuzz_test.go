package es

// Fuzzing of state decoding (RELIABILITY.md, Saved state). FuzzLoad feeds arbitrary
// bytes to Load, both as they are and with their checksum made valid, so
// that the mutations reach the decoding of the body and do not all stop at
// the checksum. The seed corpus in testdata/fuzz/FuzzLoad holds real states
// of every strategy and of IPOP, truncations, and crafted states with valid
// checksums and absurd sizes; TestFuzzLoadCorpus checks it and rewrites it
// with -update. Run the fuzzer with
//
//	go test -run '^$' -fuzz '^FuzzLoad$' -fuzztime 60s ./es/

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hees-dev/hees/linalg"
)

// fuzzCorpusDir is the seed corpus of FuzzLoad.
var fuzzCorpusDir = filepath.Join("testdata", "fuzz", "FuzzLoad")

// FuzzLoad: Load never panics, hangs or allocates beyond fuzzAllocLimit on
// any input; what it accepts saves again with MarshalBinary into a state
// that loads to the same bytes, can be asked and told, and continues like
// the strategy it came from; what it rejects is an error that leaves an
// UnmarshalBinary receiver unchanged.
func FuzzLoad(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzCheckLoad(t, data)
		if len(data) >= 4 {
			fuzzCheckLoad(t, fuzzWithChecksum(data))
		}
	})
}

// fuzzWithChecksum returns a copy of data whose last four bytes are the
// checksum of the bytes before them (es/state.go).
func fuzzWithChecksum(data []byte) []byte {
	out := slices.Clone(data)
	n := len(out) - 4
	binary.LittleEndian.PutUint32(out[n:], crc32.ChecksumIEEE(out[:n]))
	return out
}

// fuzzAllocLimit bounds what Load may allocate for an input of n bytes: a
// few times the input, a fixed 4 MiB (the CMA-ES's stagnation records),
// and 8 words per number of the largest generation a state may describe,
// maxSamples (the candidates and their normal vectors, which a state does
// not hold): 260 MiB for a small input. A size field that Load trusted
// without comparing it with the input or a bound (a dimension of 1e9, a
// million candidates of 1000 coordinates) goes far beyond.
func fuzzAllocLimit(n int) uint64 {
	return 4<<20 + 64*uint64(n) + 8*8*maxSamples
}

// TestLoadAtPopulationBound: a state with the largest generation New
// allows loads within fuzzAllocLimit.
func TestLoadAtPopulationBound(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a few hundred MiB")
	}
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"hees", Config{Dim: 2, Pairs: maxSamples/4 - 1}},
		{"cmaes", Config{Dim: 4, Lambda: maxPopulation}},
	} {
		s, err := New(c.name, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		data, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		s = nil
		runtime.GC()
		var mem runtime.MemStats
		runtime.ReadMemStats(&mem)
		before := mem.TotalAlloc
		if _, err := Load(data); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&mem)
		got, limit := mem.TotalAlloc-before, fuzzAllocLimit(len(data))
		t.Logf("%s: Load of %d bytes allocated %d bytes (limit %d)", c.name, len(data), got, limit)
		if got > limit {
			t.Errorf("%s: Load of %d bytes allocated %d bytes, more than %d", c.name, len(data), got, limit)
		}
	}
}

// fuzzCheckLoad loads data and checks what FuzzLoad promises.
func fuzzCheckLoad(t *testing.T, data []byte) {
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	before := mem.TotalAlloc
	s, err := Load(data)
	runtime.ReadMemStats(&mem)
	if got, limit := mem.TotalAlloc-before, fuzzAllocLimit(len(data)); got > limit {
		t.Fatalf("Load of %d bytes allocated %d bytes, more than %d (err %v)", len(data), got, limit, err)
	}
	fuzzCheckReceiver(t, data, s, err)
	if err != nil {
		if !strings.HasPrefix(err.Error(), "es: ") {
			t.Errorf("error %q does not start with \"es: \"", err)
		}
		return
	}
	if d, l := s.Dim(), s.PopulationSize(); d < 1 || l < 1 {
		t.Fatalf("loaded %s with Dim %d and Lambda %d", s.Name(), d, l)
	}
	saved, err := s.MarshalBinary()
	if err != nil {
		t.Fatalf("MarshalBinary of a loaded %s: %v", s.Name(), err)
	}
	again, err := Load(saved)
	if err != nil {
		t.Fatalf("Load of the saved %s: %v", s.Name(), err)
	}
	if resaved, err := again.MarshalBinary(); err != nil || !bytes.Equal(saved, resaved) {
		t.Fatalf("%s saved, loaded and saved again differs (err %v)", s.Name(), err)
	}
	// Two generations, told the same values, keep the two equal.
	var pop, popAgain linalg.Dense
	for range 2 {
		if s.Stop() != "" {
			if err := s.Ask(&pop); err == nil {
				t.Fatalf("%s stopped (%s) but Ask gave no error", s.Name(), s.Stop())
			}
			return
		}
		if err := s.Ask(&pop); err != nil {
			t.Fatalf("Ask of a loaded %s: %v", s.Name(), err)
		}
		rows, cols := pop.Dims()
		if rows < 1 || rows > s.PopulationSize() || cols != s.Dim() {
			t.Fatalf("Ask of a loaded %s wrote %d×%d, want at most %d rows of %d", s.Name(), rows, cols, s.PopulationSize(), s.Dim())
		}
		if err := again.Ask(&popAgain); err != nil || !fuzzSameRows(&pop, &popAgain) {
			t.Fatalf("the reloaded %s asks other candidates (err %v)", s.Name(), err)
		}
		if err := s.Ask(&popAgain); err != nil || !fuzzSameRows(&pop, &popAgain) {
			t.Fatalf("a second Ask of a loaded %s asks other candidates (err %v)", s.Name(), err)
		}
		f := make([]float64, rows)
		for i := range f {
			f[i] = fuzzValue(pop.RawRow(i))
		}
		if err := s.Tell(f); err != nil {
			t.Fatalf("Tell of a loaded %s: %v", s.Name(), err)
		}
		if err := again.Tell(f); err != nil {
			t.Fatalf("Tell of the reloaded %s: %v", s.Name(), err)
		}
		a, errA := s.MarshalBinary()
		b, errB := again.MarshalBinary()
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Fatalf("%s and its reloaded copy differ after a generation (err %v, %v)", s.Name(), errA, errB)
		}
	}
}

// fuzzValue is the objective told to loaded strategies: the sphere, whose
// value may be +Inf or NaN for the points of a corrupted state.
func fuzzValue(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += float64(v * v)
	}
	return s
}

// fuzzSameRows reports whether a and b have the same shape and bits.
func fuzzSameRows(a, b *linalg.Dense) bool {
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if ra != rb || ca != cb {
		return false
	}
	for i := range ra {
		if !sameFloats(a.RawRow(i), b.RawRow(i)) {
			return false
		}
	}
	return true
}

// fuzzCheckReceiver restores data with UnmarshalBinary into a strategy of
// the kind its header names, set up with another configuration, and checks
// that it agrees with Load (loaded, or the error err): on success it holds
// the state Load returned, on error it is unchanged.
func fuzzCheckReceiver(t *testing.T, data []byte, loaded Strategy, err error) {
	name, _, headErr := parseStateHeader(data)
	if headErr != nil {
		return
	}
	var r Strategy
	var newErr error
	switch {
	case name == ipopStateName:
		r, newErr = NewIPOP(CMAES, Config{Dim: 2, Seed: 5}, IPOPConfig{MaxRestarts: 3})
	case slices.Contains(Names(), name):
		r, newErr = New(name, Config{Dim: 2, Seed: 5})
	default:
		return
	}
	if newErr != nil {
		t.Fatal(newErr)
	}
	before, _ := r.MarshalBinary()
	rErr := r.UnmarshalBinary(data)
	after, _ := r.MarshalBinary()
	switch {
	case (rErr == nil) != (err == nil):
		t.Fatalf("Load and UnmarshalBinary disagree: %v and %v", err, rErr)
	case rErr != nil && !bytes.Equal(before, after):
		t.Fatalf("UnmarshalBinary failed (%v) and changed the receiver", rErr)
	case rErr == nil:
		if want, _ := loaded.MarshalBinary(); !bytes.Equal(after, want) {
			t.Fatalf("UnmarshalBinary and Load restored different states")
		}
	}
}

// fuzzCorpusStates returns the real states of the seed corpus, by file
// name: every strategy at generation 0, after one generation and after six
// with the seventh asked (an Ask pending), IPOP around hees and cmaes
// fresh and after its first restart, and hees2 with noise handling after
// a restart.
func fuzzCorpusStates(t *testing.T) map[string][]byte {
	states := map[string][]byte{}
	save := func(key string, s Strategy) {
		data, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		states[key] = data
	}
	var pop linalg.Dense
	var vals []float64
	for _, name := range Names() {
		cfg := Config{Dim: 3, Seed: 21}
		if rowOf(name).Transform {
			cfg.A0 = randomUnitDetMatrix(3, 4)
		}
		s := stNew(t, name, cfg)
		save("state-"+name+"-gen0", s)
		for g := 1; g <= 6; g++ {
			vals = stGeneration(t, s, faultRandomNonFinite(stSphere, 3), &pop, vals)
			if g == 1 {
				save("state-"+name+"-gen1", s)
			}
		}
		if err := s.Ask(&pop); err != nil {
			t.Fatal(err)
		}
		save("state-"+name+"-gen6-pending", s)
	}
	for _, name := range []string{HEES, CMAES} {
		w, err := NewIPOP(name, Config{Dim: 2, Seed: 8, TolFun: 1e-3}, IPOPConfig{})
		if err != nil {
			t.Fatal(err)
		}
		save("state-ipop-"+name+"-gen0", w)
		for w.Restarts() == 0 {
			vals = stGeneration(t, w, stSphere, &pop, vals)
		}
		save("state-ipop-"+name+"-restart1", w)
	}
	// Discrete coordinates with their margin (state version 4).
	for _, name := range []string{HEES2, CMAES} {
		s := stNew(t, name, mgConfig(5))
		for range 6 {
			vals = stGeneration(t, s, stSphere, &pop, vals)
		}
		save("state-"+name+"-steps-gen6", s)
	}
	// Noise handling after a restart at a stop (state version 4: the held
	// recommendation): on a linear function sigma grows until it stops.
	h, err := NewNoiseHandler(stNew(t, HEES2, Config{Dim: 3, Seed: 21}), NoiseConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for h.Doublings() == 0 {
		vals = stGeneration(t, h, func(x []float64) float64 { return x[0] }, &pop, vals)
	}
	save("state-noise-hees2-restart1", h)
	return states
}

// fuzzCrafted returns states with a valid checksum and an absurd size
// or a corrupt field, by file name: Load must reject each before
// allocating or looping for it. The fields are numbered as 8-byte words after the header (and,
// for IPOP, after its name): in the shared part (es/core.go marshalCore),
// which cmaes precedes with lambda, the dimension d is word 0, Pairs word
// 4, the length of the mean word 11, and the shape of A words 14+d and
// 15+d.
func fuzzCrafted(t *testing.T, states map[string][]byte) map[string][]byte {
	set := func(key string, words ...uint64) []byte {
		data := slices.Clone(states[key])
		name, _, err := parseStateHeader(data)
		if err != nil {
			t.Fatal(err)
		}
		off := len(stateHeader(name))
		if name == ipopStateName {
			off += 8 + int(binary.LittleEndian.Uint64(data[off:]))
		}
		for i := 0; i < len(words); i += 2 {
			binary.LittleEndian.PutUint64(data[off+8*int(words[i]):], words[i+1])
		}
		return fuzzWithChecksum(data)
	}
	const huge = 1_000_000_000
	const d = 3 // the dimension of the corpus states of fuzzCorpusStates
	return map[string][]byte{
		"crafted-hees-dim1e9":         set("state-hees-gen1", 0, huge),
		"crafted-es11-dim1e9":         set("state-es11-gen1", 0, huge),
		"crafted-cma11-dim1e9":        set("state-cma11-gen6-pending", 0, huge),
		"crafted-cmaes-dim1e9":        set("state-cmaes-gen1", 1, huge),
		"crafted-cmaes-dim-2pow62":    set("state-cmaes-gen1", 1, 1<<62),
		"crafted-hees-pairs1e9":       set("state-hees-gen6-pending", 4, huge),
		"crafted-hees-pairs-2pow40":   set("state-hees-gen0", 4, 1<<40),
		"crafted-cmaes-lambda1e9":     set("state-cmaes-gen6-pending", 0, huge),
		"crafted-ipop-hees-dim1e9":    set("state-ipop-hees-restart1", 0, huge),
		"crafted-hees-meanlen-2pow61": set("state-hees-gen1", 11, 1<<61),
		// Found by FuzzLoad: A of shape 2^63-ish × 0 passed the length
		// check and Load looped over its rows.
		"crafted-cma11-shape-hugex0": set("state-cma11-gen1", 14+d, 0x7ff8000000000001, 15+d, 0),
		"crafted-hees-shape-0xhuge":  set("state-hees-gen1", 14+d, 0, 15+d, huge),
		// IPOP states that NewIPOP cannot make, written by MarshalBinary.
		"crafted-ipop-pairs-2pow40": fuzzIPOPState(t, func(w *IPOP) { w.cfg.Pairs = int(min(uint64(1)<<40, math.MaxInt)) }),
		"crafted-ipop-sigma0":       fuzzIPOPState(t, func(w *IPOP) { w.cfg.Sigma0 = -5 }),
		"crafted-ipop-nested": fuzzIPOPState(t, func(w *IPOP) {
			inner, err := NewIPOP(HEES, w.cfg, IPOPConfig{})
			if err != nil {
				t.Fatal(err)
			}
			w.name, w.inner = inner.Name(), inner
		}),
	}
}

// fuzzIPOPState returns the state of an IPOP around hees in 2 dimensions
// after corrupt has changed it.
func fuzzIPOPState(t *testing.T, corrupt func(w *IPOP)) []byte {
	w, err := NewIPOP(HEES, Config{Dim: 2, Seed: 8}, IPOPConfig{})
	if err != nil {
		t.Fatal(err)
	}
	corrupt(w)
	data, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// fuzzTruncations returns truncated states, by file name.
func fuzzTruncations(states map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for _, key := range []string{"state-hees-gen6-pending", "state-cmaes-gen1", "state-ipop-hees-restart1"} {
		data := states[key]
		for _, n := range []int{len(data) - 1, len(data) / 2, len("hees-es/") + 3} {
			out[fmt.Sprintf("trunc-%s-%d", strings.TrimPrefix(key, "state-"), n)] = data[:n]
		}
	}
	return out
}

// fuzzCorpusFile encodes data as a seed corpus file of a []byte fuzz
// target ("go test fuzz v1").
func fuzzCorpusFile(data []byte) []byte {
	return fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", data)
}

// fuzzParseCorpusFile decodes a file written by fuzzCorpusFile.
func fuzzParseCorpusFile(file []byte) ([]byte, error) {
	body, ok := bytes.CutPrefix(file, []byte("go test fuzz v1\n[]byte("))
	if !ok {
		return nil, fmt.Errorf("not a []byte corpus file")
	}
	body, ok = bytes.CutSuffix(body, []byte(")\n"))
	if !ok {
		return nil, fmt.Errorf("corpus file does not end with \")\\n\"")
	}
	s, err := strconv.Unquote(string(body))
	return []byte(s), err
}

// TestFuzzLoadCorpus checks the seed corpus of FuzzLoad: every file the
// corpus generator writes is there (rewrite them with -update), the real
// states load, and the truncated and crafted ones are rejected.
func TestFuzzLoadCorpus(t *testing.T) {
	states := fuzzCorpusStates(t)
	files := map[string][]byte{}
	maps := []map[string][]byte{states, fuzzTruncations(states), fuzzCrafted(t, states)}
	for _, m := range maps {
		for key, data := range m {
			files[key] = data
		}
	}
	if *update {
		if err := os.MkdirAll(fuzzCorpusDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for key, data := range files {
			if err := os.WriteFile(filepath.Join(fuzzCorpusDir, key), fuzzCorpusFile(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for key := range files {
		file, err := os.ReadFile(filepath.Join(fuzzCorpusDir, key))
		if err != nil {
			t.Errorf("%v (write the corpus with go test -run TestFuzzLoadCorpus -update ./es/)", err)
			continue
		}
		data, err := fuzzParseCorpusFile(file)
		if err != nil {
			t.Errorf("%s: %v", key, err)
			continue
		}
		_, err = Load(data)
		switch real := strings.HasPrefix(key, "state-"); {
		case real && err != nil:
			t.Errorf("%s does not load: %v (rewrite the corpus with -update if the format changed)", key, err)
		case !real && err == nil:
			t.Errorf("%s loads", key)
		}
	}
}

// TestLoadRejectsHugeSizes: a state whose checksum is valid but whose
// dimension, population, vector length or matrix shape is absurd, or
// whose IPOP configuration NewIPOP would refuse, is rejected as corrupt,
// without allocating for it.
func TestLoadRejectsHugeSizes(t *testing.T) {
	states := fuzzCorpusStates(t)
	for key, data := range fuzzCrafted(t, states) {
		done := make(chan error, 1)
		var allocated uint64
		go func() {
			var mem runtime.MemStats
			runtime.ReadMemStats(&mem)
			before := mem.TotalAlloc
			_, err := Load(data)
			runtime.ReadMemStats(&mem)
			allocated = mem.TotalAlloc - before
			done <- err
		}()
		select {
		case err := <-done:
			if allocated > 1<<20 {
				t.Errorf("%s: Load allocated %d bytes", key, allocated)
			}
			if err == nil || !strings.Contains(err.Error(), "corrupt") {
				t.Errorf("%s: err %v, want a corrupt state", key, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Load has not returned after 10 s", key)
		}
	}
}
