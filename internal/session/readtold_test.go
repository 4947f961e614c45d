package session

import (
	"io"
	"runtime"
	"strings"
	"testing"
)

// repeatReader yields the prefix, then line repeated until size bytes in
// all, without holding them.
type repeatReader struct {
	prefix, line string
	size, off    int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.off >= r.size {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && r.off < r.size {
		var b byte
		if r.off < len(r.prefix) {
			b = r.prefix[r.off]
		} else {
			k := (r.off - len(r.prefix)) % len(r.line)
			b = r.line[k]
		}
		p[n] = b
		n++
		r.off++
	}
	return n, nil
}

// TestReadToldBounded gives ReadTold 100 MB inputs: a single line, the same
// valid line repeated and a bad line repeated. Each is one error that names
// the line where reading stopped, after reading a bounded part of the input
// (at most 2^21 lines) and allocating less than 1 GiB in all (hees tell on
// such an input peaks at about 490 MB of resident memory, and at about
// 700 MB on the largest input it accepts, 2^21 duplicate lines, which it
// then refuses one by one: RELIABILITY.md).
func TestReadToldBounded(t *testing.T) {
	const size = 100 << 20
	for _, c := range []struct {
		name string
		in   *repeatReader
		want string
	}{
		{"one long line", &repeatReader{prefix: "g0-0@0123abcd ", line: "1", size: size}, "line 1: longer than 1048576 bytes"},
		{"long second line", &repeatReader{prefix: "g0-0@0123abcd 1\n\ng0-1@0123abcd ", line: "9", size: size}, "line 3: longer than"},
		{"duplicates", &repeatReader{line: "g0-0@0123abcd 1\n", size: size}, "line 2097153: more lines than a generation has points"},
		{"bad lines", &repeatReader{prefix: "g0-0@0123abcd 1\n", line: "g0-0@0123abcd x\n", size: size},
			`line 102: more than 100 bad lines, stopped reading; the first is line 2: g0-0@0123abcd: "x" is not a number`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			lines, bad, err := ReadTold(c.in)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), c.want) || lines != nil || bad != nil {
				t.Errorf("got %d lines, %d bad, error %v; want the error %q", len(lines), len(bad), err, c.want)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<30 {
				t.Errorf("allocated %d MiB", alloc>>20)
			}
		})
	}

	// At the bounds: 100 bad lines are returned as such.
	lines, bad, err := ReadTold(strings.NewReader("g0-0@0123abcd 1\n" + strings.Repeat("x\n", maxBadLines)))
	if err != nil || len(lines) != 1 || len(bad) != maxBadLines || bad[maxBadLines-1].Line != maxBadLines+1 {
		t.Errorf("100 bad lines: %d lines, %d bad, error %v", len(lines), len(bad), err)
	}
}
