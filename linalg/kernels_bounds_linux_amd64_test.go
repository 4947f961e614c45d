//go:build linux && amd64 && !purego

package linalg

import (
	"syscall"
	"testing"
	"unsafe"
)

// guardArena holds the mappings of guarded slices until free.
type guardArena struct {
	t    *testing.T
	maps [][]byte
}

// free unmaps every mapping of the arena. Each guarded slice costs the
// process three memory mappings (its pages and the two PROT_NONE pages),
// and the kernel limits their number (vm.max_map_count, 65530 by
// default): the test frees them as it goes.
func (a *guardArena) free() {
	for _, m := range a.maps {
		if err := syscall.Munmap(m); err != nil {
			a.t.Fatal(err)
		}
	}
	a.maps = a.maps[:0]
}

// guarded returns a slice of n float64 that ends exactly at a PROT_NONE page
// (tail=true) or starts exactly after one (tail=false). It is valid until
// the next a.free.
func (a *guardArena) guarded(n int, tail bool) []float64 {
	t := a.t
	ps := syscall.Getpagesize()
	need := (n*8 + ps - 1) / ps * ps
	if need == 0 {
		need = ps
	}
	mem, err := syscall.Mmap(-1, 0, need+2*ps, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	a.maps = append(a.maps, mem)
	if err := syscall.Mprotect(mem[:ps], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(mem[ps+need:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	var p unsafe.Pointer
	if tail {
		p = unsafe.Pointer(&mem[ps+need-n*8])
	} else {
		p = unsafe.Pointer(&mem[ps])
	}
	s := unsafe.Slice((*float64)(p), n)
	for i := range s {
		s[i] = float64(i%7) - 3
	}
	return s[:n:n]
}

// TestKernelsStayInBounds runs every AVX2 kernel on slices that end
// exactly at (or start exactly after) an inaccessible page, for lengths
// 0-70, padded strides and several term counts: a read or write past a
// slice's end (or before its start) crashes the test.
func TestKernelsStayInBounds(t *testing.T) {
	if !useAVX2 {
		t.Skip("this CPU has no AVX2: only the Go kernels run")
	}
	var cs [8]float64
	for i := range cs {
		cs[i] = 0.5
	}
	arena := &guardArena{t: t}
	for n := 0; n <= 70; n++ {
		for _, tail := range []bool{true, false} {
			g := func(m int) []float64 { return arena.guarded(m, tail) }
			x, y, z := g(n), g(n), g(n)
			dotAVX2(x, y)
			dot2AVX2(x, y, z)
			for _, st := range []int{n, n + 1, n + 3} {
				a := g(3*st + n)
				dot4AVX2(x, a, st)
				var eight [8]float64
				dot4x2AVX2(a, st, g(st+n), st, n, &eight)
			}
			axpyAVX2(1.5, x, y)
			axpyDotAVX2(1.5, x, y, z)
			axpyDotAVX2(1.5, x, y, y)
			dotAxpyAVX2(x, y, z, 0.5)
			syr2RowAVX2(z, x, y, 0.5, 0.25)
			rotate4(g(5*n), n, &cs)
			rotate1(x, y, 0.6, 0.8)
			for _, k := range []int{1, 2, 32} {
				for _, r := range []int{1, 2} {
					for _, ys := range []int{n, n + 1} {
						ms, xs := n+1, r+1
						addOuterBlock(g(max(0, (r-1)*ms+n)), ms, r, n, g(k), g((k-1)*xs+r), xs, g((k-1)*ys+n), ys)
					}
				}
			}
			// mulVec / mulVecT on guarded matrices with strides.
			for _, rows := range []int{1, 3, 4, 5, 8, 9} {
				for _, pad := range []int{0, 1, 5} {
					st := n + pad
					data := g((rows-1)*st + n)
					a := &Dense{rows: rows, cols: n, stride: st, data: data}
					dst := make([]float64, rows)
					mulVec(dst, a, g(n))
					dstT := make([]float64, n)
					mulVecT(dstT, a, g(rows))
					for _, kb := range []int{1, 2, 3} {
						b := &Dense{rows: kb, cols: n, stride: st, data: g((kb-1)*st + n)}
						dotRows(NewDense(rows, kb, nil), a, b)
					}
				}
			}
			arena.free()
		}
		if n%4 == 0 {
			kc := n/4 + 1
			var tile [32]float64
			kernel4x8AVX2(&tile, arena.guarded(4*kc, true), arena.guarded(8*kc, true))
			kernel4x8AVX2(&tile, arena.guarded(4*kc, false), arena.guarded(8*kc, false))
			arena.free()
		}
	}
}
