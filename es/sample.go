package es

import (
	"fmt"

	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// The purposes of the random sub-streams of a strategy. A draw is a
// function of (seed, purpose, generation, index) only, so the saved state
// needs no generator position.
const (
	// purposeInit draws the initial mean X0 (generation 0, index 0).
	purposeInit rng.Purpose = 1
	// purposeSample draws the search vectors: vector k of generation g
	// comes from the sub-stream (purposeSample, g, k).
	purposeSample rng.Purpose = 2
)

// directions holds the search directions of one generation of an HE-ES:
// b_k = norms[k]·u_k, where the rows u_k of u are orthonormal within each
// block of d consecutive vectors.
type directions struct {
	u     linalg.Dense // k×d, row k is u_k = b_k/|b_k|
	norms []float64    // |b_k|, chi_d distributed
	block linalg.Dense // scratch for one block when there are several
}

// setup sizes the directions for k vectors in dimension d.
func (s *directions) setup(k, d int) {
	s.u.ReuseAs(k, d)
	s.norms = make([]float64, k)
	if k > d {
		s.block.ReuseAs(d, d)
	}
}

// sampleOrthogonal draws the first k = rows(u) vectors of generation gen
// (Algorithm 2, ALGORITHMS.md Section 2): vector k is N(0, I_d) from the
// sub-stream (purposeSample, gen, k); the vectors of block j (numbers
// j·d .. j·d+d-1, block-major as in the reference code) are orthogonalised
// among themselves by Gram-Schmidt in order, keeping their original
// lengths. Gram-Schmidt on the first vectors of a block does not depend on
// the later ones, so the unused vectors of the last block are never drawn
// (ALGORITHMS.md Section 1, index typos). The cost is O(d k min(k, d)).
func (s *directions) sampleOrthogonal(key rng.Key, gen int) error {
	k, d := s.u.Dims()
	for i := 0; i < k; i++ {
		st := rng.NewStream(key, purposeSample, uint64(gen), uint64(i))
		st.FillNormal(s.u.RawRow(i))
	}
	if k <= d {
		return s.orthonormalise(&s.u, s.norms)
	}
	for j0 := 0; j0 < k; j0 += d {
		n := min(d, k-j0)
		resize(&s.block, n, d)
		for i := 0; i < n; i++ {
			copy(s.block.RawRow(i), s.u.RawRow(j0+i))
		}
		if err := s.orthonormalise(&s.block, s.norms[j0:j0+n]); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			copy(s.u.RawRow(j0+i), s.block.RawRow(i))
		}
	}
	return nil
}

// orthonormalise runs Gram-Schmidt on the rows of v (Algorithm 2 lines
// 3-4), writing the lengths before orthogonalisation into norms.
func (s *directions) orthonormalise(v *linalg.Dense, norms []float64) error {
	if err := linalg.GramSchmidt(v, norms); err != nil {
		// Gaussian vectors are dependent with probability zero.
		return fmt.Errorf("es: sampleOrthogonal: %w", err)
	}
	return nil
}
