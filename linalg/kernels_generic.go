//go:build !amd64 || purego

package linalg

// Without assembly every kernel is its portable Go version.

func dot(x, y []float64) float64 { return dotGo(x, y) }

func dot2(x, r0, r1 []float64) (float64, float64) { return dot2Go(x, r0, r1) }

func mulVec(dst []float64, a *Dense, x []float64) { mulVecGo(dst, a, x) }

func dotRows(m, a, b *Dense) { dotRowsGo(m, a, b) }

func axpy(alpha float64, x, y []float64) { axpyGo(alpha, x, y) }

func mulVecT(dst []float64, a *Dense, x []float64) { mulVecTGo(dst, a, x) }

func axpyDot(alpha float64, x, y, z []float64) float64 { return axpyDotGo(alpha, x, y, z) }

func addOuterBlock(m []float64, ms, r, c int, alpha, x []float64, xs int, y []float64, ys int) {
	addOuterBlockGo(m, ms, r, c, alpha, x, xs, y, ys)
}

func rotate4(rows []float64, n int, cs *[8]float64) { rotate4Go(rows, n, n, cs) }

func rotate1(x, y []float64, c, s float64) { rotate1Go(x, y, c, s) }

func gemmShape() (mr, nr int) { return 3, 3 }

func gemmTile(tile, ap, bp []float64) { kernel3x3(tile, ap, bp) }

func dotAxpy(x, y, z []float64, alpha float64) float64 { return dotAxpyGo(x, y, z, alpha) }

func syr2Row(row, v, q []float64, a, b float64) { syr2RowGo(row, v, q, a, b) }
