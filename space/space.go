// Package space describes a search space in the units of the user: named
// parameters, each a real number on an interval (optionally on a log
// scale), an integer on an interval (optionally on a log scale), or a
// choice among listed values. A strategy of package es searches in
// continuous coordinates of its own, one per parameter; a Space maps them
// to the user's values and back, and gives the box and the steps of the
// discrete coordinates that es.Config needs.
//
// # The file format
//
// A space is written by hand as a JSON object (ReadFile, Parse):
//
//	{"params": [
//	  {"name": "lr", "type": "real", "low": 1e-5, "high": 0.1, "log": true},
//	  {"name": "layers", "type": "int", "low": 1, "high": 64},
//	  {"name": "act", "type": "choice", "values": ["relu", "tanh"]}
//	]}
//
// A parameter has a name and a type ("real", "int" or "choice"); a real or
// an int has "low" and "high" (low < high) and may set "log": true (then
// low > 0); a choice has "values", at least two, strings or numbers, all
// different. Every other field, a missing field and a field of the wrong
// type are errors, as is a file larger than MaxFileSize.
//
// Names start with a letter or '_', then letters, digits, '_', '.' and
// '-', at most MaxNameLength bytes; they are column names of the
// evaluation log and keys of JSON objects, so they must differ from each
// other and from the log's own columns (evaluation, generation, row,
// status, f). A choice's string values are words: printable, without
// blanks, commas, quotes or backslashes, so that they can stand in a line
// of numbers.
//
// # The mapping
//
// The strategy's coordinate of a parameter (the es point) and the user's
// value are, for each kind (Domain gives the box and the steps):
//
//	real on [lo, hi]        y in [lo, hi]                  value y
//	real, log scale         y in [ln lo, ln hi]            value e^y
//	int on [lo, hi]         y in [lo, hi], step 1          value y
//	                        (without steps: [lo-½, hi+½])  value round(y)
//	int, log scale          y in [ln(lo-½), ln(hi+½)]      value round(e^y)
//	choice of n values      y in [0, n-1], step 1          value values[y]
//	                        (without steps: [-½, n-½])     value values[round(y)]
//
// round goes half up, and every value is clamped to its parameter's
// range, so rounding at the ends of a box cannot leave it. An integer on a
// log scale is never a discrete coordinate of the strategy: its values are
// not equally spaced in y, which the margin of es's discrete coordinates
// assumes (Optuna's CmaEsSampler with margin treats it the same way); it
// is rounded after the exponential. With the steps of Domain(true) the
// strategy hands out whole numbers for the ints and the choices, and keeps
// them from being fixed too early (es.Config.Steps, the margin); with
// Domain(false) it searches the widened intervals and the values are
// rounded here.
//
// Values and Numbers map an es point to the user's values, Point maps
// them back (for known points and a start point). A log-scale real goes
// through e^(ln v), which may differ from v by an ulp; integers and
// choices map back exactly.
package space

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hees-dev/hees/internal/boundedfile"
	"github.com/hees-dev/hees/internal/xmath"
)

// Limits of a space file.
const (
	// MaxFileSize bounds the file ReadFile reads.
	MaxFileSize = 1 << 20
	// MaxNameLength bounds a parameter's name, in bytes.
	MaxNameLength = 64
	// MaxParams bounds the number of parameters.
	MaxParams = 10000
	// maxInt bounds the ints' bounds, so that every integer in range is
	// an exact float64.
	maxInt = 1 << 53
)

// Kind is the type of a parameter.
type Kind string

// The kinds of parameters.
const (
	Real   Kind = "real"
	Int    Kind = "int"
	Choice Kind = "choice"
)

// reserved are the columns of the evaluation log before the parameters
// (internal/runlog): no parameter may take their names.
var reserved = []string{"evaluation", "generation", "row", "status", "f"}

// Param is one parameter of a Space.
type Param struct {
	// Name names the parameter (see the package documentation).
	Name string
	// Kind is Real, Int or Choice.
	Kind Kind
	// Low and High bound a Real or an Int, Low < High (for an Int, both
	// whole numbers of at most 2^53 in magnitude).
	Low, High float64
	// Log puts a Real or an Int on a log scale (Low > 0).
	Log bool
	// Values are the values of a Choice: at least two, all different.
	Values []Value
}

// Value is a value of a choice, or a parameter's value in a point: a
// number or a string. The zero Value is the number 0.
type Value struct {
	num   float64
	str   string
	isStr bool
}

// Number returns the Value of the number x.
func Number(x float64) Value { return Value{num: x} }

// String returns the Value of the string s.
func String(s string) Value { return Value{str: s, isStr: true} }

// IsString reports whether v is a string.
func (v Value) IsString() bool { return v.isStr }

// Float returns the number v holds (0 for a string).
func (v Value) Float() float64 { return v.num }

// Text returns v as the user writes it: the string itself, or the number
// in the shortest form that reads back to the same float64.
func (v Value) Text() string {
	if v.isStr {
		return v.str
	}
	return strconv.FormatFloat(v.num, 'g', -1, 64)
}

// MarshalJSON writes v as a JSON string or number.
func (v Value) MarshalJSON() ([]byte, error) { return v.appendJSON(nil), nil }

// appendJSON appends v as JSON.
func (v Value) appendJSON(dst []byte) []byte {
	if v.isStr {
		return strconv.AppendQuote(dst, v.str) // a word: no character needs JSON's own escapes
	}
	return strconv.AppendFloat(dst, v.num, 'g', -1, 64)
}

// UnmarshalJSON reads a JSON string or number.
func (v *Value) UnmarshalJSON(data []byte) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	tok, err := d.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case string:
		*v = String(t)
	case json.Number:
		x, err := strconv.ParseFloat(string(t), 64)
		if err != nil || math.IsInf(x, 0) {
			return fmt.Errorf("%s is not a finite number", t)
		}
		*v = Number(x)
	default:
		return fmt.Errorf("%s: want a string or a number", bytes.TrimSpace(data))
	}
	return nil
}

// Space is a search space: its parameters in order. It is not changed
// after New or Parse, so goroutines may share it.
type Space struct {
	params []Param
	// index maps a choice's value text to its index, per parameter (nil
	// for the other kinds).
	index []map[string]int
}

// New returns the space of the parameters params, which it copies, or an
// error that names the first bad parameter.
func New(params ...Param) (*Space, error) {
	if len(params) == 0 {
		return nil, errors.New("space: no parameters")
	}
	if len(params) > MaxParams {
		return nil, fmt.Errorf("space: %d parameters, more than %d", len(params), MaxParams)
	}
	s := &Space{params: make([]Param, len(params)), index: make([]map[string]int, len(params))}
	seen := make(map[string]int, len(params))
	for i, p := range params {
		p.Values = slices.Clone(p.Values)
		if err := checkName(p.Name); err != nil {
			return nil, fmt.Errorf("space: parameter %d: %w", i+1, err)
		}
		if j, ok := seen[p.Name]; ok {
			return nil, fmt.Errorf("space: parameter %d: the name %q is taken by parameter %d", i+1, p.Name, j+1)
		}
		seen[p.Name] = i
		idx, err := checkParam(&p)
		if err != nil {
			return nil, fmt.Errorf("space: parameter %q: %w", p.Name, err)
		}
		s.params[i], s.index[i] = p, idx
	}
	return s, nil
}

// checkName reports a name that cannot be a column of the log and a key
// of a JSON object.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("empty name")
	case len(name) > MaxNameLength:
		return fmt.Errorf("the name %.20q... is longer than %d bytes", name, MaxNameLength)
	case slices.Contains(reserved, name):
		return fmt.Errorf("the name %q is a column of the evaluation log (%s); choose another", name, strings.Join(reserved, ", "))
	}
	for k, r := range name {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_'
		if !letter && (k == 0 || !(r >= '0' && r <= '9' || r == '.' || r == '-')) {
			return fmt.Errorf("the name %q: a name starts with a letter or '_' and goes on with letters, digits, '_', '.' and '-'", name)
		}
	}
	return nil
}

// checkParam checks a parameter of a known name and returns the index of
// a choice's values.
func checkParam(p *Param) (map[string]int, error) {
	switch p.Kind {
	case Real, Int:
		if p.Values != nil {
			return nil, fmt.Errorf("a %s has no values (only a choice)", p.Kind)
		}
		switch {
		case !finite(p.Low) || !finite(p.High):
			return nil, fmt.Errorf("low = %v, high = %v: both must be finite", p.Low, p.High)
		case !(p.Low < p.High):
			if p.Kind == Int && p.Low == p.High {
				return nil, fmt.Errorf("low = high = %v: the range holds one value, a parameter needs two (leave a fixed value out of the space)", p.Low)
			}
			return nil, fmt.Errorf("low = %v is not below high = %v", p.Low, p.High)
		case p.Log && !(p.Low > 0):
			return nil, fmt.Errorf("low = %v: a log scale needs low > 0", p.Low)
		}
		if p.Kind == Int {
			for _, v := range []float64{p.Low, p.High} {
				if v != math.Trunc(v) || math.Abs(v) > maxInt {
					return nil, fmt.Errorf("%v is not a whole number of at most 2^53 in magnitude", v)
				}
			}
		}
		return nil, nil
	case Choice:
		if p.Low != 0 || p.High != 0 || p.Log {
			return nil, errors.New("a choice has values, not low, high or log")
		}
		if len(p.Values) < 2 {
			return nil, fmt.Errorf("%d values: a choice needs at least two", len(p.Values))
		}
		idx := make(map[string]int, len(p.Values))
		for k, v := range p.Values {
			if err := checkValue(v); err != nil {
				return nil, fmt.Errorf("value %d: %w", k+1, err)
			}
			t := v.Text()
			if j, ok := idx[t]; ok {
				return nil, fmt.Errorf("values %d and %d are both %s", j+1, k+1, t)
			}
			idx[t] = k
		}
		return idx, nil
	}
	return nil, fmt.Errorf("unknown type %q (want real, int or choice)", p.Kind)
}

// checkValue reports a choice's value that cannot stand in a line of
// numbers, a CSV field or a JSON string without escapes.
func checkValue(v Value) error {
	if !v.isStr {
		if !finite(v.num) {
			return fmt.Errorf("%v is not a finite number", v.num)
		}
		return nil
	}
	if v.str == "" {
		return errors.New("an empty string")
	}
	for _, r := range v.str {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) || r == ',' || r == '"' || r == '\'' || r == '\\' || r == utf8.RuneError {
			return fmt.Errorf("%q: a string value is a word, without blanks, commas, quotes, backslashes or control characters", v.str)
		}
	}
	return nil
}

// finite reports whether x is neither NaN nor infinite.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Len is the number of parameters, the dimension of the strategy's space.
func (s *Space) Len() int { return len(s.params) }

// Params returns a copy of the parameters.
func (s *Space) Params() []Param {
	out := slices.Clone(s.params)
	for i := range out {
		out[i].Values = slices.Clone(out[i].Values)
	}
	return out
}

// Names returns the parameters' names in order.
func (s *Space) Names() []string {
	names := make([]string, len(s.params))
	for i, p := range s.params {
		names[i] = p.Name
	}
	return names
}

// discrete reports whether parameter p is a discrete coordinate of the
// strategy when it takes steps: an int without log scale, or a choice.
func discrete(p *Param) bool { return p.Kind == Choice || p.Kind == Int && !p.Log }

// Domain returns the box of the strategy's coordinates (lower and upper,
// one entry per parameter) and, when steps is true and some parameter is
// discrete, the steps of the discrete coordinates (es.Config.Steps: 1 for
// an int without log scale and for a choice, 0 otherwise; nil when none
// is). Give steps = true to a strategy that takes discrete coordinates
// (es.Info.Margin), false to any other: then the ints and the choices are
// searched on widened intervals and rounded by Values.
func (s *Space) Domain(steps bool) (lower, upper, step []float64) {
	d := len(s.params)
	lower, upper = make([]float64, d), make([]float64, d)
	if steps {
		step = make([]float64, d)
	}
	any := false
	for i := range s.params {
		p := &s.params[i]
		switch {
		case discrete(p) && steps:
			step[i], any = 1, true
			lower[i], upper[i] = p.Low, p.High
			if p.Kind == Choice {
				lower[i], upper[i] = 0, float64(len(p.Values)-1)
			}
		case p.Kind == Choice:
			lower[i], upper[i] = -0.5, float64(len(p.Values))-0.5
		case p.Kind == Int && p.Log:
			lower[i], upper[i] = xmath.Log(p.Low-0.5), xmath.Log(p.High+0.5)
		case p.Kind == Int:
			lower[i], upper[i] = p.Low-0.5, p.High+0.5
		case p.Log:
			lower[i], upper[i] = xmath.Log(p.Low), xmath.Log(p.High)
		default:
			lower[i], upper[i] = p.Low, p.High
		}
	}
	if !any {
		step = nil
	}
	return lower, upper, step
}

// roundHalfUp rounds x to the nearest integer, halves up, within [lo, hi].
func roundHalfUp(x, lo, hi float64) float64 {
	if math.IsNaN(x) {
		return lo
	}
	return min(max(math.Floor(x+0.5), lo), hi)
}

// value returns parameter p's value for the strategy's coordinate y: a
// number, or for a choice the index of its value.
func (p *Param) value(y float64) float64 {
	switch {
	case p.Kind == Choice:
		return roundHalfUp(y, 0, float64(len(p.Values)-1))
	case p.Kind == Int && p.Log:
		return roundHalfUp(xmath.Exp(y), p.Low, p.High)
	case p.Kind == Int:
		return roundHalfUp(y, p.Low, p.High)
	case p.Log:
		return min(max(xmath.Exp(y), p.Low), p.High)
	}
	return min(max(y, p.Low), p.High)
}

// Values returns the user's values of the es point y (one coordinate per
// parameter): numbers for reals and ints, and for a choice its value.
func (s *Space) Values(y []float64) []Value {
	s.mustFit(y)
	out := make([]Value, len(y))
	for i := range s.params {
		p := &s.params[i]
		v := p.value(y[i])
		if p.Kind == Choice {
			out[i] = p.Values[int(v)]
		} else {
			out[i] = Number(v)
		}
	}
	return out
}

// Numbers writes into dst (resized to Len) the user's values of the es
// point y as numbers, for a function of numbers such as a test problem: a
// choice gives its value when that is a number and its index (0, 1, …)
// when it is a string. It returns dst.
func (s *Space) Numbers(dst, y []float64) []float64 {
	s.mustFit(y)
	if cap(dst) < len(y) {
		dst = make([]float64, len(y))
	}
	dst = dst[:len(y)]
	for i := range s.params {
		p := &s.params[i]
		v := p.value(y[i])
		if p.Kind == Choice && !p.Values[int(v)].isStr {
			v = p.Values[int(v)].num
		}
		dst[i] = v
	}
	return dst
}

// mustFit panics when y does not have one coordinate per parameter.
func (s *Space) mustFit(y []float64) {
	if len(y) != len(s.params) {
		panic(fmt.Sprintf("space: a point of %d coordinates for a space of %d parameters", len(y), len(s.params)))
	}
}

// AppendText appends the user's values of the es point y to dst, as
// words separated by sep (a space for a line of the positional protocol,
// a comma for a CSV row): numbers in the shortest form that reads back to
// the same float64, integers without a fraction, a choice's value as
// written in the space.
func (s *Space) AppendText(dst []byte, y []float64, sep byte) []byte {
	s.mustFit(y)
	for i := range s.params {
		if i > 0 {
			dst = append(dst, sep)
		}
		dst = s.appendValue(dst, i, y[i], false)
	}
	return dst
}

// AppendJSON appends the user's values of the es point y to dst as one
// JSON object of names, in the order of the parameters:
// {"lr":0.001,"layers":12,"act":"relu"}.
func (s *Space) AppendJSON(dst []byte, y []float64) []byte {
	s.mustFit(y)
	dst = append(dst, '{')
	for i := range s.params {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendQuote(dst, s.params[i].Name) // names need no escapes
		dst = append(dst, ':')
		dst = s.appendValue(dst, i, y[i], true)
	}
	return append(dst, '}')
}

// appendValue appends parameter i's value for the coordinate y, as JSON or
// as text.
func (s *Space) appendValue(dst []byte, i int, y float64, asJSON bool) []byte {
	p := &s.params[i]
	v := p.value(y)
	if p.Kind == Choice {
		c := p.Values[int(v)]
		if asJSON {
			return c.appendJSON(dst)
		}
		return append(dst, c.Text()...)
	}
	return strconv.AppendFloat(dst, v, 'g', -1, 64)
}

// coordinate returns the es coordinate of parameter p for the user's value
// text (a number, or one of a choice's values as written), or an error.
func (p *Param) coordinate(text string) (float64, error) {
	if p.Kind == Choice {
		return 0, errors.New("internal: coordinate of a choice") // Space.coordinate handles choices
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || !finite(x) {
		return 0, fmt.Errorf("%s = %q is not a finite number", p.Name, text)
	}
	return p.coordinateOf(x)
}

// coordinateOf returns the es coordinate of the number x as the value of
// the real or int p.
func (p *Param) coordinateOf(x float64) (float64, error) {
	if x < p.Low || x > p.High {
		return 0, fmt.Errorf("%s = %v lies outside [%v, %v]", p.Name, x, p.Low, p.High)
	}
	if p.Kind == Int && x != math.Trunc(x) {
		return 0, fmt.Errorf("%s = %v is not a whole number", p.Name, x)
	}
	if p.Log {
		return xmath.Log(x), nil
	}
	return x, nil
}

// choiceCoordinate returns the es coordinate (the index) of a choice's
// value written as text.
func (s *Space) choiceCoordinate(i int, text string) (float64, error) {
	p := &s.params[i]
	if k, ok := s.index[i][text]; ok {
		return float64(k), nil
	}
	// A number may be written otherwise than the space writes it (5.0 for 5).
	if x, err := strconv.ParseFloat(text, 64); err == nil {
		if k, ok := s.index[i][Number(x).Text()]; ok && !p.Values[k].isStr {
			return float64(k), nil
		}
	}
	return 0, fmt.Errorf("%s = %q is not one of its values (%s)", p.Name, text, s.valueList(i))
}

// valueList lists a choice's values, shortened when long.
func (s *Space) valueList(i int) string {
	var words []string
	for k, v := range s.params[i].Values {
		if k == 8 {
			words = append(words, "…")
			break
		}
		words = append(words, v.Text())
	}
	return strings.Join(words, ", ")
}

// Point returns the es point of the user's values, one per parameter in
// order: numbers for reals and ints, a choice's value (as a Value) for a
// choice. It is an error for a value outside its range, an int that is not
// a whole number, an unknown choice or a number of values other than Len.
func (s *Space) Point(values []Value) ([]float64, error) {
	if len(values) != len(s.params) {
		return nil, fmt.Errorf("%d values for the %d parameters (%s)", len(values), len(s.params), strings.Join(s.Names(), ", "))
	}
	y := make([]float64, len(values))
	for i, v := range values {
		var err error
		p := &s.params[i]
		switch {
		case p.Kind == Choice:
			y[i], err = s.choiceCoordinate(i, v.Text())
		case v.isStr:
			err = fmt.Errorf("%s = %q is not a number", p.Name, v.str)
		default:
			y[i], err = p.coordinateOf(v.num)
		}
		if err != nil {
			return nil, err
		}
	}
	return y, nil
}

// ParseText returns the es point of a line of the user's values, as
// AppendText writes them: Len words separated by blanks or commas.
func (s *Space) ParseText(line string) ([]float64, error) {
	words := strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\r' })
	if len(words) != len(s.params) {
		return nil, fmt.Errorf("%d values for the %d parameters (%s)", len(words), len(s.params), strings.Join(s.Names(), ", "))
	}
	y := make([]float64, len(words))
	for i, w := range words {
		var err error
		if s.params[i].Kind == Choice {
			y[i], err = s.choiceCoordinate(i, w)
		} else {
			y[i], err = s.params[i].coordinate(w)
		}
		if err != nil {
			return nil, err
		}
	}
	return y, nil
}

// ParseJSON returns the es point of a JSON object of the user's values
// keyed by name, as AppendJSON writes it: every parameter once, no other
// key.
func (s *Space) ParseJSON(data []byte) ([]float64, error) {
	var obj map[string]Value
	if err := strictJSON(data, &obj); err != nil {
		return nil, fmt.Errorf("not a JSON object of values: %v", err)
	}
	values := make([]Value, len(s.params))
	for i, p := range s.params {
		v, ok := obj[p.Name]
		if !ok {
			return nil, fmt.Errorf("no value for %s", p.Name)
		}
		values[i] = v
		delete(obj, p.Name)
	}
	for name := range obj {
		return nil, fmt.Errorf("%q is not a parameter of the space (%s)", name, strings.Join(s.Names(), ", "))
	}
	return s.Point(values)
}

// fileParam is a parameter as the file writes it; pointers tell a missing
// field from a zero.
type fileParam struct {
	Name   *string  `json:"name"`
	Type   *string  `json:"type"`
	Low    *float64 `json:"low,omitempty"`
	High   *float64 `json:"high,omitempty"`
	Log    *bool    `json:"log,omitempty"`
	Values []Value  `json:"values,omitempty"`
}

// file is the JSON object of a space file.
type file struct {
	Params []fileParam `json:"params"`
}

// strictJSON decodes one JSON value from data into v, refusing unknown
// fields, duplicate keys of an object and anything after the value.
func strictJSON(data []byte, v any) error {
	if err := noDuplicateKeys(data); err != nil {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return nil
}

// maxDepth bounds the nesting of the JSON noDuplicateKeys walks.
const maxDepth = 64

// noDuplicateKeys reports an object with a key twice anywhere in data
// (encoding/json would keep the last one silently).
func noDuplicateKeys(data []byte) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	type frame struct {
		object bool
		keys   map[string]bool
		key    bool // the next token of an object is a key
	}
	var stack []frame
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].key {
			if k, ok := tok.(string); ok {
				if stack[n-1].keys[k] {
					return fmt.Errorf("the key %q twice in one object", k)
				}
				stack[n-1].keys[k] = true
				stack[n-1].key = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if len(stack) == maxDepth {
				return fmt.Errorf("nested deeper than %d", maxDepth)
			}
			stack = append(stack, frame{object: tok == json.Delim('{'), keys: map[string]bool{}, key: true})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].key = true // a value ended: a key comes next
		}
	}
}

// Parse reads a space from the JSON of a space file (see the package
// documentation). Its errors say what is wrong in one line, naming the
// parameter.
func Parse(data []byte) (*Space, error) {
	var f file
	if err := strictJSON(data, &f); err != nil {
		return nil, fmt.Errorf("space: not a space file: %v", jsonError(err))
	}
	if f.Params == nil {
		return nil, errors.New(`space: no "params" list`)
	}
	params := make([]Param, len(f.Params))
	for i, fp := range f.Params {
		what := fmt.Sprintf("parameter %d", i+1)
		if fp.Name != nil {
			what = fmt.Sprintf("parameter %q", *fp.Name)
		}
		switch {
		case fp.Name == nil:
			return nil, fmt.Errorf(`space: %s has no "name"`, what)
		case fp.Type == nil:
			return nil, fmt.Errorf(`space: %s has no "type" (real, int or choice)`, what)
		}
		p := Param{Name: *fp.Name, Kind: Kind(*fp.Type), Values: fp.Values}
		switch p.Kind {
		case Real, Int:
			if fp.Low == nil || fp.High == nil {
				return nil, fmt.Errorf(`space: %s (%s) needs "low" and "high"`, what, p.Kind)
			}
			p.Low, p.High = *fp.Low, *fp.High
			p.Log = fp.Log != nil && *fp.Log
			if fp.Values != nil {
				return nil, fmt.Errorf(`space: %s (%s) has "values" (only a choice has them)`, what, p.Kind)
			}
		case Choice:
			if fp.Low != nil || fp.High != nil || fp.Log != nil {
				return nil, fmt.Errorf(`space: %s (choice) has "low", "high" or "log" (a choice has "values")`, what)
			}
			if fp.Values == nil {
				return nil, fmt.Errorf(`space: %s (choice) has no "values"`, what)
			}
		}
		params[i] = p
	}
	return New(params...)
}

// jsonError shortens the errors of encoding/json about the file's own
// types to what the user wrote.
func jsonError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "the file"
		}
		return fmt.Sprintf("%s: a JSON %s where %s is expected", field, te.Value, typeName(te.Type.String()))
	}
	return err.Error()
}

// typeName names a Go type of the file format in the file's terms.
func typeName(t string) string {
	switch strings.TrimPrefix(t, "*") {
	case "string":
		return "a string"
	case "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "[]space.fileParam", "[]space.Value":
		return "a list"
	case "space.file", "space.fileParam":
		return "an object"
	}
	return t
}

// ReadFile reads the space file at path: a regular file of at most
// MaxFileSize bytes (a named pipe, a device or a larger file is refused
// before anything is read).
func ReadFile(path string) (*Space, error) {
	data, err := boundedfile.Read(path, MaxFileSize)
	if err != nil {
		return nil, err
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// MarshalJSON writes the space in the file format, in a canonical form
// (the fields of each parameter in a fixed order, only those of its kind),
// which Parse reads back to the same space.
func (s *Space) MarshalJSON() ([]byte, error) {
	f := file{Params: make([]fileParam, len(s.params))}
	for i := range s.params {
		p := &s.params[i]
		name, kind := p.Name, string(p.Kind)
		fp := fileParam{Name: &name, Type: &kind}
		if p.Kind == Choice {
			fp.Values = p.Values
		} else {
			low, high, log := p.Low, p.High, p.Log
			fp.Low, fp.High = &low, &high
			if log {
				fp.Log = &log
			}
		}
		f.Params[i] = fp
	}
	return json.Marshal(f)
}

// UnmarshalJSON reads a space written by MarshalJSON or by hand (Parse).
func (s *Space) UnmarshalJSON(data []byte) error {
	v, err := Parse(data)
	if err != nil {
		return err
	}
	*s = *v
	return nil
}
