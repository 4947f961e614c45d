// Flaky is a test objective for hees run -cmd that crashes on about one
// point in ten: it answers the sphere sum_i (x_i - 1)^2 of each line of its
// standard input, except for a line whose FNV-1a hash is divisible by 10,
// where it writes a message on its standard error and exits with status 3.
// Which points crash is a function of the line alone, so a run with
// -on-error nan gives the same result for any number of workers.
package main

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"os"
	"strconv"
	"strings"
)

func main() {
	sc := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for sc.Scan() {
		line := sc.Text()
		h := fnv.New64a()
		h.Write([]byte(line))
		if h.Sum64()%10 == 0 {
			fmt.Fprintf(os.Stderr, "flaky: crashed at %s\n", line)
			os.Exit(3)
		}
		var f float64
		for _, w := range strings.Fields(line) {
			v, err := strconv.ParseFloat(w, 64)
			if err != nil {
				fmt.Fprintf(os.Stderr, "flaky: %v\n", err)
				os.Exit(1)
			}
			f += (v - 1) * (v - 1)
		}
		fmt.Fprintln(out, strconv.FormatFloat(f, 'g', -1, 64))
		out.Flush()
	}
}
