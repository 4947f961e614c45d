package es

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"strconv"
	"strings"

	"github.com/hees-dev/hees/linalg"
)

// The saved state of a strategy is
//
//	"hees-es/<name>/v<version>\n" body crc
//
// where body is a sequence of little-endian fields written by stateWriter
// and crc is the IEEE CRC-32 of everything before it (4 bytes, little
// endian). The checksum turns a corrupted state into an error instead of a
// silently different run.
//
// Version 2 adds the box of Config.Bounds and the scales Config.Stds at the
// end of the configuration (see writeTuning). A state without them is
// written as version 1, byte for byte as before they existed, so version 2
// marks exactly the states that version 1 readers could not run.
//
// Version 4 adds the discrete coordinates of Config.Steps and Config.Margin
// after the fields of version 2, and the margin's factors at the end of
// the state (docs/ALGORITHMS.md Section 19); only a state with discrete
// coordinates is written in it (hees2, cmaes, and IPOP and BIPOP around
// them), so version 4 marks exactly the states that earlier readers could
// not run.
//
// Version 3 is the format of the strategies that keep no d×d
// transformation (es11, and the strategies of O(d) memory): the slot for
// A after sigma is gone (marshalCore's shape), and the fields of version 2
// are always present. Versions 1 and 2 of es11 hold the identity there.
const (
	stateMagic   = "hees-es/"
	stateVersion = 4 // the latest version; this build reads 1 to 4
	// stateVersionPlain is the version of a state without bounds and
	// scales.
	stateVersionPlain = 1
	// stateVersionBounds is the version with bounds and scales.
	stateVersionBounds = 2
	// stateVersionNoA is the version without the slot for A.
	stateVersionNoA = 3
	// stateVersionSteps is the version with discrete coordinates.
	stateVersionSteps = 4
)

// stateHeader returns the header line of a saved state of strategy name in
// the plain version.
func stateHeader(name string) string {
	return stateHeaderVersion(name, stateVersionPlain)
}

// stateHeaderVersion returns the header line of a saved state of strategy
// name in version v.
func stateHeaderVersion(name string, v int) string {
	return stateMagic + name + "/v" + strconv.Itoa(v) + "\n"
}

// parseStateHeader reads the header line of a saved state: the strategy
// name and the format version. The checksum is verified by openState, once
// the version is known to be readable.
func parseStateHeader(data []byte) (name string, version int, err error) {
	if !strings.HasPrefix(string(data[:min(len(data), len(stateMagic))]), stateMagic) {
		return "", 0, errorOf(ErrCorruptState, "es: not a saved strategy state (missing %q header)", stateMagic)
	}
	nl := -1
	for i := len(stateMagic); i < len(data) && i < len(stateMagic)+64; i++ {
		if data[i] == '\n' {
			nl = i
			break
		}
	}
	if nl < 0 {
		return "", 0, errorOf(ErrCorruptState, "es: saved state truncated or corrupt: header line not terminated")
	}
	head := string(data[len(stateMagic):nl])
	slash := strings.LastIndex(head, "/v")
	if slash < 0 {
		return "", 0, errorOf(ErrCorruptState, "es: saved state header %q has no version", head)
	}
	name = head[:slash]
	version, err = strconv.Atoi(head[slash+2:])
	if err != nil {
		return "", 0, errorOf(ErrCorruptState, "es: saved state header %q has a malformed version", head)
	}
	return name, version, nil
}

// openState checks that data is a saved state of strategy name in the
// current version with a valid checksum, and returns a reader of its body.
func openState(data []byte, name string) (*stateReader, error) {
	got, version, err := parseStateHeader(data)
	if err != nil {
		return nil, err
	}
	if got != name {
		return nil, errorOf(ErrCorruptState, "es: saved state is of strategy %q, cannot restore it into %q", got, name)
	}
	if version < stateVersionPlain || version > stateVersion {
		return nil, errorOf(ErrCorruptState, "es: saved %s state has version v%d, this build reads v%d to v%d", name, version, stateVersionPlain, stateVersion)
	}
	head := len(stateHeaderVersion(name, version))
	if len(data) < head+4 {
		return nil, errorOf(ErrCorruptState, "es: saved %s state truncated: %d bytes", name, len(data))
	}
	body := data[head : len(data)-4]
	want := binary.LittleEndian.Uint32(data[len(data)-4:])
	if got := crc32.ChecksumIEEE(data[:len(data)-4]); got != want {
		return nil, errorOf(ErrCorruptState, "es: saved %s state truncated or corrupt: checksum %08x, want %08x", name, got, want)
	}
	return &stateReader{name: name, version: version, b: body}, nil
}

// stateWriter appends the fields of a saved state.
type stateWriter struct {
	name    string
	version int
	b       []byte
}

// newStateWriter starts a saved state of strategy name, in the plain
// version until upgrade is called.
func newStateWriter(name string) *stateWriter {
	return newStateWriterVersion(name, stateVersionPlain)
}

// newStateWriterVersion starts a saved state of strategy name in version v.
func newStateWriterVersion(name string, v int) *stateWriter {
	return &stateWriter{name: name, version: v, b: []byte(stateHeaderVersion(name, v))}
}

// upgrade marks a state of an earlier version as version v (2 for the
// fields of bounds and scales, 4 for discrete coordinates); the fields
// written so far stay.
func (w *stateWriter) upgrade(v int) {
	if w.version >= v {
		return
	}
	head := len(stateHeaderVersion(w.name, w.version))
	w.version = v
	w.b = append([]byte(stateHeaderVersion(w.name, w.version)), w.b[head:]...)
}

// finish appends the checksum and returns the complete state.
func (w *stateWriter) finish() []byte {
	return binary.LittleEndian.AppendUint32(w.b, crc32.ChecksumIEEE(w.b))
}

func (w *stateWriter) uint(v uint64) { w.b = binary.LittleEndian.AppendUint64(w.b, v) }
func (w *stateWriter) int(v int)     { w.uint(uint64(int64(v))) }
func (w *stateWriter) float(v float64) {
	w.uint(math.Float64bits(v))
}

func (w *stateWriter) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

func (w *stateWriter) string(s string) {
	w.int(len(s))
	w.b = append(w.b, s...)
}

// floats writes a length-prefixed vector; nil and empty are the same.
func (w *stateWriter) floats(v []float64) {
	w.int(len(v))
	for _, x := range v {
		w.float(x)
	}
}

// optFloats writes a vector that may be nil: whether it is not, then the
// vector (read back by stateReader.optFloats).
func (w *stateWriter) optFloats(v []float64) {
	w.bool(v != nil)
	w.floats(v)
}

// matrix writes the shape and the elements of m row by row.
func (w *stateWriter) matrix(m *linalg.Dense) {
	r, c := m.Dims()
	w.int(r)
	w.int(c)
	for i := 0; i < r; i++ {
		for _, x := range m.RawRow(i) {
			w.float(x)
		}
	}
}

// stateReader reads the fields written by stateWriter. The first failure is
// kept in err and every later read returns a zero value.
type stateReader struct {
	name    string
	version int // the state's format version
	b       []byte
	err     error
}

func (r *stateReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = errorOf(ErrCorruptState, "es: saved %s state corrupt: "+format, append([]any{r.name}, args...)...)
	}
}

func (r *stateReader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = errorOf(ErrCorruptState, "es: saved %s state truncated", r.name)
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *stateReader) uint() uint64 {
	p := r.take(8)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(p)
}

func (r *stateReader) int() int { return int(int64(r.uint())) }

func (r *stateReader) float() float64 { return math.Float64frombits(r.uint()) }

func (r *stateReader) bool() bool {
	p := r.take(1)
	if p == nil {
		return false
	}
	if p[0] > 1 {
		r.fail("boolean byte %d", p[0])
	}
	return p[0] == 1
}

// length reads a length prefix and checks that at least n*unit bytes follow.
func (r *stateReader) length(unit int) int {
	n := r.int()
	if r.err == nil && (n < 0 || n > len(r.b)/unit) {
		r.fail("length %d with %d bytes left", n, len(r.b))
		return 0
	}
	return n
}

func (r *stateReader) string() string {
	n := r.length(1)
	return string(r.take(n))
}

// floats reads a length-prefixed vector into dst (resized) and returns it.
func (r *stateReader) floats(dst []float64) []float64 {
	n := r.length(8)
	if r.err != nil {
		return dst[:0]
	}
	dst = slicesGrow(dst, n)
	for i := range dst {
		dst[i] = r.float()
	}
	return dst
}

// fill reads a vector that must have len(dst) entries into dst; what
// names it in the error of any other length.
func (r *stateReader) fill(dst []float64, what string) {
	n := r.length(8)
	if r.err == nil && n != len(dst) {
		r.fail("%s of length %d, want %d", what, n, len(dst))
	}
	if r.err != nil {
		return
	}
	for i := range dst {
		dst[i] = r.float()
	}
}

// optFloats reads a vector written by stateWriter.optFloats: the vector,
// nil when it was written nil or empty, and whether it was written not nil.
func (r *stateReader) optFloats() (v []float64, has bool) {
	has = r.bool()
	v = r.floats(nil)
	if !has {
		v = nil
	}
	return v, has
}

// matrix reads a matrix into m (resized).
func (r *stateReader) matrix(m *linalg.Dense) {
	rows, cols := r.int(), r.int()
	if r.err != nil {
		return
	}
	// A shape with one zero side would pass the length check with any
	// number of rows and loop over them.
	if rows < 0 || cols < 0 || (rows == 0) != (cols == 0) || (cols > 0 && rows > len(r.b)/8/cols) {
		r.fail("matrix shape %d×%d with %d bytes left", rows, cols, len(r.b))
		return
	}
	resize(m, rows, cols)
	for i := 0; i < rows; i++ {
		row := m.RawRow(i)
		for j := range row {
			row[j] = r.float()
		}
	}
}

// done reports the first error, or an error if bytes are left over.
func (r *stateReader) done() error {
	if r.err == nil && len(r.b) != 0 {
		r.err = errorOf(ErrCorruptState, "es: saved %s state corrupt: %d unread bytes", r.name, len(r.b))
	}
	return r.err
}

// slicesGrow returns dst resized to length n, reusing its storage if the
// capacity suffices.
func slicesGrow(dst []float64, n int) []float64 {
	if cap(dst) >= n {
		return dst[:n]
	}
	return make([]float64, n)
}
