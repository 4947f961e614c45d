package extproc

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// doubled is an Options.Encode: the coordinates times two, separated by
// spaces.
func doubled(dst []byte, x []float64) []byte {
	for i, v := range x {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = strconv.AppendFloat(dst, 2*v, 'g', -1, 64)
	}
	return dst
}

// TestEncode: with Options.Encode the program reads the encoded line, and
// an error quotes that line rather than the numbers.
func TestEncode(t *testing.T) {
	p := startHelper(t, context.Background(), 1, Options{Encode: doubled}, "sphere")
	v, err := p.Eval([]float64{1, -2})
	if err != nil || v != 20 {
		t.Errorf("Eval: %v, %v; want 20 (the sphere at the doubled point)", v, err)
	}
	p.Close()

	p = startHelper(t, context.Background(), 1, Options{Encode: doubled}, "crash-after", "0")
	_, err = p.Eval([]float64{1.5, 3})
	ee, ok := err.(*EvalError)
	if !ok || ee.Line != "3 6" || !strings.Contains(err.Error(), "evaluating 3 6 in process 0") {
		t.Errorf("error %v, want one that quotes the line 3 6", err)
	}
	p.Close()
}
