package points_test

import (
	"fmt"
	"strings"

	"github.com/hees-dev/hees/internal/points"
)

// Points of two coordinates, one per line; a bad line is reported and the
// next one read.
func ExampleScan() {
	in := strings.NewReader("1 2\n3,4\n5\n\n6, 7\n")
	err := points.Scan(in, 2, func(x []float64) {
		fmt.Println("point", x)
	}, func(line int, err error) {
		fmt.Printf("line %d: %v\n", line, err)
	})
	fmt.Println("error:", err)
	// Output:
	// point [1 2]
	// point [3 4]
	// line 3: got 1 number, want 2
	// point [6 7]
	// error: <nil>
}
