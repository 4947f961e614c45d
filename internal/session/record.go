package session

import (
	"math"
	"strconv"

	"github.com/hees-dev/hees/internal/statefile"
)

// decodeRecord decodes the JSON of a record. Records as appendLine writes
// them (json.Marshal: the fields in order, each at most once, integers
// without exponent, strings of printable ASCII without escapes) take
// parseRecord, with which a replay is about seven times faster than with
// encoding/json (BenchmarkReplay): every process of a run replays every
// record. Anything else, however unusual, is left to
// statefile.UnmarshalJSON, whose result parseRecord gives wherever it
// accepts (FuzzRecord).
func decodeRecord(data []byte) (record, error) {
	if r, ok := parseRecord(data); ok {
		return r, nil
	}
	var r record
	err := statefile.UnmarshalJSON(data, &r)
	return r, err
}

// recordParser reads a record in the form json.Marshal writes it.
type recordParser struct {
	data []byte
	pos  int
	ok   bool
}

// parseRecord decodes data when it is in json.Marshal's form of a record,
// and reports false otherwise.
func parseRecord(data []byte) (record, bool) {
	p := recordParser{data: data, ok: true}
	var r record
	p.byte('{')
	p.key(`"q":`, true)
	r.Seq = p.int()
	p.key(`,"e":`, true)
	r.Epoch = p.uint()
	p.key(`,"o":`, true)
	r.Op = p.string()
	if p.key(`,"r":`, false) {
		r.Rows = p.ints()
	}
	if p.key(`,"s":`, false) {
		r.Slots = p.ints()
	}
	if p.key(`,"t":`, false) {
		r.Now = p.int()
	}
	if p.key(`,"u":`, false) {
		r.Until = p.int()
	}
	if p.key(`,"v":`, false) {
		r.Value = p.string()
	}
	if p.key(`,"y":`, false) {
		r.Why = p.string()
	}
	if p.key(`,"h":`, false) {
		r.Holder = p.holder()
	}
	p.byte('}')
	return r, p.ok && p.pos == len(data)
}

// holder reads a Holder object.
func (p *recordParser) holder() *Holder {
	h := &Holder{}
	p.byte('{')
	sep := ""
	if p.key(`"n":`, false) {
		h.Host, sep = p.string(), ","
	}
	if p.key(sep+`"p":`, false) {
		h.PID, sep = p.intN(), ","
	}
	if p.key(sep+`"j":`, false) {
		h.Job, sep = p.string(), ","
	}
	if p.key(sep+`"w":`, false) {
		h.Slot = p.intN()
	}
	p.byte('}')
	return h
}

// byte reads the byte c.
func (p *recordParser) byte(c byte) {
	if p.ok && p.pos < len(p.data) && p.data[p.pos] == c {
		p.pos++
		return
	}
	p.ok = false
}

// key reads k when it comes next, and reports whether it did; a key that
// must come and does not fails the parse.
func (p *recordParser) key(k string, must bool) bool {
	if p.ok && len(p.data)-p.pos >= len(k) && string(p.data[p.pos:p.pos+len(k)]) == k {
		p.pos += len(k)
		return true
	}
	if must {
		p.ok = false
	}
	return false
}

// digits reads an integer's digits (no leading zero, no sign) and returns
// them.
func (p *recordParser) digits() []byte {
	start := p.pos
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
	}
	d := p.data[start:p.pos]
	if len(d) == 0 || len(d) > 1 && d[0] == '0' || len(d) > 20 {
		p.ok = false
	}
	return d
}

// int reads an int64.
func (p *recordParser) int() int64 {
	if !p.ok {
		return 0
	}
	neg := p.pos < len(p.data) && p.data[p.pos] == '-'
	if neg {
		p.pos++
	}
	u, err := strconv.ParseUint(string(p.digits()), 10, 64)
	if err != nil || !neg && u > math.MaxInt64 || neg && u > 1<<63 || neg && u == 0 {
		p.ok = false // -0 decodes to 0 in encoding/json; json.Marshal does not write it
		return 0
	}
	if neg {
		return int64(-u)
	}
	return int64(u)
}

// intN reads an int.
func (p *recordParser) intN() int {
	v := p.int()
	if v < math.MinInt || v > math.MaxInt {
		p.ok = false
	}
	return int(v)
}

// uint reads a uint64.
func (p *recordParser) uint() uint64 {
	if !p.ok {
		return 0
	}
	u, err := strconv.ParseUint(string(p.digits()), 10, 64)
	if err != nil {
		p.ok = false
	}
	return u
}

// ints reads an array of ints, not empty (omitempty leaves out an empty
// one).
func (p *recordParser) ints() []int {
	p.byte('[')
	var out []int
	for p.ok {
		out = append(out, p.intN())
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		p.byte(']')
		break
	}
	return out
}

// string reads a string of printable ASCII other than '"' and '\'.
func (p *recordParser) string() string {
	p.byte('"')
	start := p.pos
	for p.ok && p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := string(p.data[start:p.pos])
			p.pos++
			return s
		}
		if c < 0x20 || c > 0x7e || c == '\\' {
			break
		}
		p.pos++
	}
	p.ok = false
	return ""
}
