package pkg

// Cites ALGORITHMS.md Section 4, which moved to docs/ALGORITHMS.md.
// Decided in (issue 7, item 2).
// The README.md of the root resolves.
func f() string {
	// testdata/x is skipped
	return "ok"
}

const help = `see HELP.md`

var s = "out_d2.md"

/* issues 6 and 7 */
