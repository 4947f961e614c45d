//go:build amd64 && !purego

#include "textflag.h"

// The AVX2 twins of the Go kernels in kernels.go. A dot product keeps its
// four partial sums s0..s3 (over the indices i ≡ 0, 1, 2, 3 mod 4) in the
// four lanes of one Y register, multiplies with VMULPD and adds with VADDPD
// (no fused multiply-add), reduces as (s0+s1)+(s2+s3) with two VHADDPD, and
// adds the last len mod 4 terms one by one: the operations of dotGo, in its
// order, so the results are the same bits.

// REDUCE leaves (s0+s1)+(s2+s3) of the lanes of Y register y in the low
// lane of its X register x, using the X register tmp.
#define REDUCE(y, x, tmp) \
	VEXTRACTF128 $1, y, tmp \
	VHADDPD      tmp, x, x  \
	VHADDPD      x, x, x

// func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL subleaf+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

// func dotAVX2(x, y []float64) float64
TEXT ·dotAVX2(SB), NOSPLIT, $0-56
	MOVQ   x_base+0(FP), SI
	MOVQ   x_len+8(FP), CX
	MOVQ   y_base+24(FP), DI
	VXORPD Y0, Y0, Y0
	XORQ   AX, AX
	MOVQ   CX, BX
	ANDQ   $-4, BX
	JZ     dot_reduce

dot_loop:
	VMOVUPD (SI)(AX*8), Y1
	VMULPD  (DI)(AX*8), Y1, Y1
	VADDPD  Y1, Y0, Y0
	ADDQ    $4, AX
	CMPQ    AX, BX
	JLT     dot_loop

dot_reduce:
	REDUCE(Y0, X0, X1)

dot_tail:
	CMPQ   AX, CX
	JGE    dot_done
	VMOVSD (SI)(AX*8), X1
	VMULSD (DI)(AX*8), X1, X1
	VADDSD X1, X0, X0
	INCQ   AX
	JMP    dot_tail

dot_done:
	VMOVSD X0, ret+48(FP)
	VZEROUPPER
	RET

// func dot2AVX2(x, r0, r1 []float64) (s, t float64)
TEXT ·dot2AVX2(SB), NOSPLIT, $0-88
	MOVQ   x_base+0(FP), SI
	MOVQ   x_len+8(FP), CX
	MOVQ   r0_base+24(FP), DI
	MOVQ   r1_base+48(FP), R8
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	XORQ   AX, AX
	MOVQ   CX, BX
	ANDQ   $-4, BX
	JZ     dot2_reduce

dot2_loop:
	VMOVUPD (SI)(AX*8), Y2
	VMULPD  (DI)(AX*8), Y2, Y3
	VADDPD  Y3, Y0, Y0
	VMULPD  (R8)(AX*8), Y2, Y4
	VADDPD  Y4, Y1, Y1
	ADDQ    $4, AX
	CMPQ    AX, BX
	JLT     dot2_loop

dot2_reduce:
	REDUCE(Y0, X0, X2)
	REDUCE(Y1, X1, X2)

dot2_tail:
	CMPQ   AX, CX
	JGE    dot2_done
	VMOVSD (SI)(AX*8), X2
	VMULSD (DI)(AX*8), X2, X3
	VADDSD X3, X0, X0
	VMULSD (R8)(AX*8), X2, X4
	VADDSD X4, X1, X1
	INCQ   AX
	JMP    dot2_tail

dot2_done:
	VMOVSD X0, s+72(FP)
	VMOVSD X1, t+80(FP)
	VZEROUPPER
	RET

// func dot4AVX2(x, a []float64, stride int) (s0, s1, s2, s3 float64)
TEXT ·dot4AVX2(SB), NOSPLIT, $0-88
	MOVQ   x_base+0(FP), SI
	MOVQ   x_len+8(FP), CX
	MOVQ   a_base+24(FP), DI
	MOVQ   stride+48(FP), DX
	SHLQ   $3, DX
	LEAQ   (DI)(DX*1), R8
	LEAQ   (R8)(DX*1), R9
	LEAQ   (R9)(DX*1), R10
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ   AX, AX
	MOVQ   CX, BX
	ANDQ   $-4, BX
	JZ     dot4_reduce

dot4_loop:
	VMOVUPD (SI)(AX*8), Y4
	VMULPD  (DI)(AX*8), Y4, Y5
	VADDPD  Y5, Y0, Y0
	VMULPD  (R8)(AX*8), Y4, Y6
	VADDPD  Y6, Y1, Y1
	VMULPD  (R9)(AX*8), Y4, Y7
	VADDPD  Y7, Y2, Y2
	VMULPD  (R10)(AX*8), Y4, Y8
	VADDPD  Y8, Y3, Y3
	ADDQ    $4, AX
	CMPQ    AX, BX
	JLT     dot4_loop

dot4_reduce:
	REDUCE(Y0, X0, X4)
	REDUCE(Y1, X1, X4)
	REDUCE(Y2, X2, X4)
	REDUCE(Y3, X3, X4)

dot4_tail:
	CMPQ   AX, CX
	JGE    dot4_done
	VMOVSD (SI)(AX*8), X4
	VMULSD (DI)(AX*8), X4, X5
	VADDSD X5, X0, X0
	VMULSD (R8)(AX*8), X4, X6
	VADDSD X6, X1, X1
	VMULSD (R9)(AX*8), X4, X7
	VADDSD X7, X2, X2
	VMULSD (R10)(AX*8), X4, X8
	VADDSD X8, X3, X3
	INCQ   AX
	JMP    dot4_tail

dot4_done:
	VMOVSD X0, s0+56(FP)
	VMOVSD X1, s1+64(FP)
	VMOVSD X2, s2+72(FP)
	VMOVSD X3, s3+80(FP)
	VZEROUPPER
	RET

// func axpyDotAVX2(alpha float64, x, y, z []float64) float64
//
// The store of y comes before the load of z, so z may be y.
TEXT ·axpyDotAVX2(SB), NOSPLIT, $0-88
	VBROADCASTSD alpha+0(FP), Y15
	MOVQ         x_base+8(FP), SI
	MOVQ         x_len+16(FP), CX
	MOVQ         y_base+32(FP), DI
	MOVQ         z_base+56(FP), R8
	VXORPD       Y0, Y0, Y0
	XORQ         AX, AX
	MOVQ         CX, BX
	ANDQ         $-4, BX
	JZ           axpydot_reduce

axpydot_loop:
	VMULPD  (SI)(AX*8), Y15, Y1
	VADDPD  (DI)(AX*8), Y1, Y1
	VMOVUPD Y1, (DI)(AX*8)
	VMULPD  (R8)(AX*8), Y1, Y2
	VADDPD  Y2, Y0, Y0
	ADDQ    $4, AX
	CMPQ    AX, BX
	JLT     axpydot_loop

axpydot_reduce:
	REDUCE(Y0, X0, X1)

axpydot_tail:
	CMPQ   AX, CX
	JGE    axpydot_done
	VMULSD (SI)(AX*8), X15, X1
	VADDSD (DI)(AX*8), X1, X1
	VMOVSD X1, (DI)(AX*8)
	VMULSD (R8)(AX*8), X1, X2
	VADDSD X2, X0, X0
	INCQ   AX
	JMP    axpydot_tail

axpydot_done:
	VMOVSD X0, ret+80(FP)
	VZEROUPPER
	RET

// func addOuterBlockAVX2(m []float64, ms, r, c int, alpha, x []float64, xs int, y []float64, ys int, coef *[outerChunk]float64)
//
// For each row: the coefficients t_k = alpha_k·x[k·xs+i] into coef, then
// the columns in blocks of 32 (eight independent sums in Y0..Y7, enough to
// hide the latency of VADDPD), blocks of 4, and one by one; the k loop is
// innermost, so each element of m is loaded and stored once.
TEXT ·addOuterBlockAVX2(SB), NOSPLIT, $0-144
	MOVQ m_base+0(FP), DI
	MOVQ r+32(FP), R12
	MOVQ c+40(FP), CX
	MOVQ alpha_len+56(FP), R8
	MOVQ x_base+72(FP), R13
	MOVQ y_base+104(FP), DX
	MOVQ ys+128(FP), R9
	SHLQ $3, R9
	MOVQ coef+136(FP), SI

block_row:
	MOVQ alpha_base+48(FP), BX
	MOVQ xs+96(FP), AX
	SHLQ $3, AX
	MOVQ R13, R10
	XORQ R11, R11

block_coef:
	VMOVSD (BX)(R11*8), X0
	VMULSD (R10), X0, X0
	VMOVSD X0, (SI)(R11*8)
	ADDQ   AX, R10
	INCQ   R11
	CMPQ   R11, R8
	JLT    block_coef
	XORQ   AX, AX

block_outer32:
	LEAQ    32(AX), BX
	CMPQ    BX, CX
	JGT     block_outer4
	VMOVUPD (DI)(AX*8), Y0
	VMOVUPD 32(DI)(AX*8), Y1
	VMOVUPD 64(DI)(AX*8), Y2
	VMOVUPD 96(DI)(AX*8), Y3
	VMOVUPD 128(DI)(AX*8), Y4
	VMOVUPD 160(DI)(AX*8), Y5
	VMOVUPD 192(DI)(AX*8), Y6
	VMOVUPD 224(DI)(AX*8), Y7
	LEAQ    (DX)(AX*8), R10
	XORQ    R11, R11

block_inner32:
	VBROADCASTSD (SI)(R11*8), Y8
	VMULPD       (R10), Y8, Y9
	VADDPD       Y9, Y0, Y0
	VMULPD       32(R10), Y8, Y10
	VADDPD       Y10, Y1, Y1
	VMULPD       64(R10), Y8, Y11
	VADDPD       Y11, Y2, Y2
	VMULPD       96(R10), Y8, Y12
	VADDPD       Y12, Y3, Y3
	VMULPD       128(R10), Y8, Y9
	VADDPD       Y9, Y4, Y4
	VMULPD       160(R10), Y8, Y10
	VADDPD       Y10, Y5, Y5
	VMULPD       192(R10), Y8, Y11
	VADDPD       Y11, Y6, Y6
	VMULPD       224(R10), Y8, Y12
	VADDPD       Y12, Y7, Y7
	ADDQ         R9, R10
	INCQ         R11
	CMPQ         R11, R8
	JLT          block_inner32

	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	VMOVUPD Y2, 64(DI)(AX*8)
	VMOVUPD Y3, 96(DI)(AX*8)
	VMOVUPD Y4, 128(DI)(AX*8)
	VMOVUPD Y5, 160(DI)(AX*8)
	VMOVUPD Y6, 192(DI)(AX*8)
	VMOVUPD Y7, 224(DI)(AX*8)
	MOVQ    BX, AX
	JMP     block_outer32

block_outer4:
	LEAQ    4(AX), BX
	CMPQ    BX, CX
	JGT     block_tail
	VMOVUPD (DI)(AX*8), Y0
	LEAQ    (DX)(AX*8), R10
	XORQ    R11, R11

block_inner4:
	VBROADCASTSD (SI)(R11*8), Y8
	VMULPD       (R10), Y8, Y9
	VADDPD       Y9, Y0, Y0
	ADDQ         R9, R10
	INCQ         R11
	CMPQ         R11, R8
	JLT          block_inner4

	VMOVUPD Y0, (DI)(AX*8)
	MOVQ    BX, AX
	JMP     block_outer4

block_tail:
	CMPQ   AX, CX
	JGE    block_next
	VMOVSD (DI)(AX*8), X0
	LEAQ   (DX)(AX*8), R10
	XORQ   R11, R11

block_tailk:
	VMOVSD (SI)(R11*8), X1
	VMULSD (R10), X1, X1
	VADDSD X1, X0, X0
	ADDQ   R9, R10
	INCQ   R11
	CMPQ   R11, R8
	JLT    block_tailk

	VMOVSD X0, (DI)(AX*8)
	INCQ   AX
	JMP    block_tail

block_next:
	MOVQ ms+24(FP), AX
	LEAQ (DI)(AX*8), DI
	ADDQ $8, R13
	DECQ R12
	JNZ  block_row

	VZEROUPPER
	RET

// func rotate4AVX2(rows []float64, n int, cs *[8]float64)
//
// Rows r0..r4 at DI, R8, R9, R10, R11; (c_j, s_j) broadcast in Y8..Y15.
TEXT ·rotate4AVX2(SB), NOSPLIT, $0-40
	MOVQ         rows_base+0(FP), DI
	MOVQ         n+24(FP), CX
	MOVQ         cs+32(FP), SI
	VBROADCASTSD (SI), Y8
	VBROADCASTSD 8(SI), Y9
	VBROADCASTSD 16(SI), Y10
	VBROADCASTSD 24(SI), Y11
	VBROADCASTSD 32(SI), Y12
	VBROADCASTSD 40(SI), Y13
	VBROADCASTSD 48(SI), Y14
	VBROADCASTSD 56(SI), Y15
	LEAQ         (DI)(CX*8), R8
	LEAQ         (R8)(CX*8), R9
	LEAQ         (R9)(CX*8), R10
	LEAQ         (R10)(CX*8), R11
	ANDQ         $-4, CX
	XORQ         AX, AX
	CMPQ         AX, CX
	JGE          rotate4_done

rotate4_loop:
	// Rotation 1 on rows 3 (x) and 4 (y).
	VMOVUPD (R11)(AX*8), Y1
	VMOVUPD (R10)(AX*8), Y0
	VMULPD  Y0, Y9, Y2
	VMULPD  Y1, Y8, Y3
	VADDPD  Y3, Y2, Y2
	VMOVUPD Y2, (R11)(AX*8)
	VMULPD  Y0, Y8, Y2
	VMULPD  Y1, Y9, Y3
	VSUBPD  Y3, Y2, Y1

	// Rotation 2 on rows 2 (x) and 3 (y).
	VMOVUPD (R9)(AX*8), Y0
	VMULPD  Y0, Y11, Y2
	VMULPD  Y1, Y10, Y3
	VADDPD  Y3, Y2, Y2
	VMOVUPD Y2, (R10)(AX*8)
	VMULPD  Y0, Y10, Y2
	VMULPD  Y1, Y11, Y3
	VSUBPD  Y3, Y2, Y1

	// Rotation 3 on rows 1 (x) and 2 (y).
	VMOVUPD (R8)(AX*8), Y0
	VMULPD  Y0, Y13, Y2
	VMULPD  Y1, Y12, Y3
	VADDPD  Y3, Y2, Y2
	VMOVUPD Y2, (R9)(AX*8)
	VMULPD  Y0, Y12, Y2
	VMULPD  Y1, Y13, Y3
	VSUBPD  Y3, Y2, Y1

	// Rotation 4 on rows 0 (x) and 1 (y).
	VMOVUPD (DI)(AX*8), Y0
	VMULPD  Y0, Y15, Y2
	VMULPD  Y1, Y14, Y3
	VADDPD  Y3, Y2, Y2
	VMOVUPD Y2, (R8)(AX*8)
	VMULPD  Y0, Y14, Y2
	VMULPD  Y1, Y15, Y3
	VSUBPD  Y3, Y2, Y1
	VMOVUPD Y1, (DI)(AX*8)

	ADDQ $4, AX
	CMPQ AX, CX
	JLT  rotate4_loop

rotate4_done:
	VZEROUPPER
	RET

// func rotate1AVX2(x, y []float64, c, s float64)
TEXT ·rotate1AVX2(SB), NOSPLIT, $0-64
	MOVQ         x_base+0(FP), DI
	MOVQ         x_len+8(FP), CX
	MOVQ         y_base+24(FP), SI
	VBROADCASTSD c+48(FP), Y8
	VBROADCASTSD s+56(FP), Y9
	ANDQ         $-4, CX
	XORQ         AX, AX
	CMPQ         AX, CX
	JGE          rotate1_done

rotate1_loop:
	VMOVUPD (DI)(AX*8), Y0
	VMOVUPD (SI)(AX*8), Y1
	VMULPD  Y0, Y9, Y2
	VMULPD  Y1, Y8, Y3
	VADDPD  Y3, Y2, Y2
	VMOVUPD Y2, (SI)(AX*8)
	VMULPD  Y0, Y8, Y2
	VMULPD  Y1, Y9, Y3
	VSUBPD  Y3, Y2, Y2
	VMOVUPD Y2, (DI)(AX*8)
	ADDQ    $4, AX
	CMPQ    AX, CX
	JLT     rotate1_loop

rotate1_done:
	VZEROUPPER
	RET

// func kernel4x8AVX2(tile *[32]float64, ap, bp []float64)
//
// Row i of the tile lives in Y(2i) (columns 0-3) and Y(2i+1) (columns 4-7);
// per k, the 8 entries of b_k are loaded once and a_k's entries broadcast.
TEXT ·kernel4x8AVX2(SB), NOSPLIT, $0-56
	MOVQ    tile+0(FP), DI
	MOVQ    ap_base+8(FP), SI
	MOVQ    ap_len+16(FP), CX
	MOVQ    bp_base+32(FP), DX
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	VMOVUPD 128(DI), Y4
	VMOVUPD 160(DI), Y5
	VMOVUPD 192(DI), Y6
	VMOVUPD 224(DI), Y7
	SHRQ    $2, CX
	JZ      kernel4x8_done

kernel4x8_loop:
	VMOVUPD      (DX), Y8
	VMOVUPD      32(DX), Y9
	VBROADCASTSD (SI), Y10
	VMULPD       Y8, Y10, Y11
	VADDPD       Y11, Y0, Y0
	VMULPD       Y9, Y10, Y12
	VADDPD       Y12, Y1, Y1
	VBROADCASTSD 8(SI), Y10
	VMULPD       Y8, Y10, Y13
	VADDPD       Y13, Y2, Y2
	VMULPD       Y9, Y10, Y14
	VADDPD       Y14, Y3, Y3
	VBROADCASTSD 16(SI), Y10
	VMULPD       Y8, Y10, Y11
	VADDPD       Y11, Y4, Y4
	VMULPD       Y9, Y10, Y12
	VADDPD       Y12, Y5, Y5
	VBROADCASTSD 24(SI), Y10
	VMULPD       Y8, Y10, Y13
	VADDPD       Y13, Y6, Y6
	VMULPD       Y9, Y10, Y14
	VADDPD       Y14, Y7, Y7
	ADDQ         $32, SI
	ADDQ         $64, DX
	DECQ         CX
	JNZ          kernel4x8_loop

kernel4x8_done:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y5, 160(DI)
	VMOVUPD Y6, 192(DI)
	VMOVUPD Y7, 224(DI)
	VZEROUPPER
	RET

// func axpyAVX2(alpha float64, x, y []float64)
TEXT ·axpyAVX2(SB), NOSPLIT, $0-56
	VBROADCASTSD alpha+0(FP), Y15
	MOVQ         x_base+8(FP), SI
	MOVQ         x_len+16(FP), CX
	MOVQ         y_base+32(FP), DI
	XORQ         AX, AX
	MOVQ         CX, BX
	ANDQ         $-8, BX
	JZ           axpy_four

axpy_loop8:
	VMULPD  (SI)(AX*8), Y15, Y0
	VMULPD  32(SI)(AX*8), Y15, Y1
	VADDPD  (DI)(AX*8), Y0, Y0
	VADDPD  32(DI)(AX*8), Y1, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	ADDQ    $8, AX
	CMPQ    AX, BX
	JLT     axpy_loop8

axpy_four:
	LEAQ 4(AX), BX
	CMPQ BX, CX
	JGT  axpy_tail
	VMULPD  (SI)(AX*8), Y15, Y0
	VADDPD  (DI)(AX*8), Y0, Y0
	VMOVUPD Y0, (DI)(AX*8)
	MOVQ    BX, AX

axpy_tail:
	CMPQ   AX, CX
	JGE    axpy_done
	VMULSD (SI)(AX*8), X15, X0
	VADDSD (DI)(AX*8), X0, X0
	VMOVSD X0, (DI)(AX*8)
	INCQ   AX
	JMP    axpy_tail

axpy_done:
	VZEROUPPER
	RET

// func dotAxpyAVX2(x, y, z []float64, alpha float64) float64
TEXT ·dotAxpyAVX2(SB), NOSPLIT, $0-88
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         y_base+24(FP), DI
	MOVQ         z_base+48(FP), R8
	VBROADCASTSD alpha+72(FP), Y15
	VXORPD       Y0, Y0, Y0
	XORQ         AX, AX
	MOVQ         CX, BX
	ANDQ         $-4, BX
	JZ           dotaxpy_reduce

dotaxpy_loop:
	VMOVUPD (SI)(AX*8), Y1
	VMULPD  (DI)(AX*8), Y1, Y2
	VADDPD  Y2, Y0, Y0
	VMULPD  Y15, Y1, Y3
	VADDPD  (R8)(AX*8), Y3, Y3
	VMOVUPD Y3, (R8)(AX*8)
	ADDQ    $4, AX
	CMPQ    AX, BX
	JLT     dotaxpy_loop

dotaxpy_reduce:
	REDUCE(Y0, X0, X1)

dotaxpy_tail:
	CMPQ   AX, CX
	JGE    dotaxpy_done
	VMOVSD (SI)(AX*8), X1
	VMULSD (DI)(AX*8), X1, X2
	VADDSD X2, X0, X0
	VMULSD X15, X1, X3
	VADDSD (R8)(AX*8), X3, X3
	VMOVSD X3, (R8)(AX*8)
	INCQ   AX
	JMP    dotaxpy_tail

dotaxpy_done:
	VMOVSD X0, ret+80(FP)
	VZEROUPPER
	RET

// func syr2RowAVX2(row, v, q []float64, a, b float64)
TEXT ·syr2RowAVX2(SB), NOSPLIT, $0-88
	MOVQ         row_base+0(FP), DI
	MOVQ         row_len+8(FP), CX
	MOVQ         v_base+24(FP), SI
	MOVQ         q_base+48(FP), R8
	VBROADCASTSD a+72(FP), Y14
	VBROADCASTSD b+80(FP), Y15
	XORQ         AX, AX
	MOVQ         CX, BX
	ANDQ         $-4, BX
	JZ           syr2_tail

syr2_loop:
	VMULPD  (R8)(AX*8), Y14, Y0
	VMULPD  (SI)(AX*8), Y15, Y1
	VADDPD  Y1, Y0, Y0
	VMOVUPD (DI)(AX*8), Y2
	VSUBPD  Y0, Y2, Y2
	VMOVUPD Y2, (DI)(AX*8)
	ADDQ    $4, AX
	CMPQ    AX, BX
	JLT     syr2_loop

syr2_tail:
	CMPQ   AX, CX
	JGE    syr2_done
	VMULSD (R8)(AX*8), X14, X0
	VMULSD (SI)(AX*8), X15, X1
	VADDSD X1, X0, X0
	VMOVSD (DI)(AX*8), X2
	VSUBSD X0, X2, X2
	VMOVSD X2, (DI)(AX*8)
	INCQ   AX
	JMP    syr2_tail

syr2_done:
	VZEROUPPER
	RET

// func dot4x2AVX2(a []float64, as int, b []float64, bs int, n int, out *[8]float64)
//
// out[2i+j] = dot of row i of a (i = 0..3, rows as apart) with row j of b
// (j = 0, 1, rows bs apart), over n elements: eight dot4 accumulators in
// eight registers, each summed in the order of dotGo.
TEXT ·dot4x2AVX2(SB), NOSPLIT, $0-80
	MOVQ   a_base+0(FP), SI
	MOVQ   as+24(FP), DX
	SHLQ   $3, DX
	LEAQ   (SI)(DX*1), R8
	LEAQ   (R8)(DX*1), R9
	LEAQ   (R9)(DX*1), R10
	MOVQ   b_base+32(FP), DI
	MOVQ   bs+56(FP), DX
	SHLQ   $3, DX
	LEAQ   (DI)(DX*1), R11
	MOVQ   n+64(FP), CX
	MOVQ   out+72(FP), R12
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	XORQ   AX, AX
	MOVQ   CX, BX
	ANDQ   $-4, BX
	JZ     dot4x2_reduce

dot4x2_loop:
	VMOVUPD (DI)(AX*8), Y8
	VMOVUPD (R11)(AX*8), Y9
	VMOVUPD (SI)(AX*8), Y10
	VMULPD  Y8, Y10, Y11
	VADDPD  Y11, Y0, Y0
	VMULPD  Y9, Y10, Y12
	VADDPD  Y12, Y1, Y1
	VMOVUPD (R8)(AX*8), Y10
	VMULPD  Y8, Y10, Y11
	VADDPD  Y11, Y2, Y2
	VMULPD  Y9, Y10, Y12
	VADDPD  Y12, Y3, Y3
	VMOVUPD (R9)(AX*8), Y10
	VMULPD  Y8, Y10, Y11
	VADDPD  Y11, Y4, Y4
	VMULPD  Y9, Y10, Y12
	VADDPD  Y12, Y5, Y5
	VMOVUPD (R10)(AX*8), Y10
	VMULPD  Y8, Y10, Y11
	VADDPD  Y11, Y6, Y6
	VMULPD  Y9, Y10, Y12
	VADDPD  Y12, Y7, Y7
	ADDQ    $4, AX
	CMPQ    AX, BX
	JLT     dot4x2_loop

dot4x2_reduce:
	REDUCE(Y0, X0, X8)
	REDUCE(Y1, X1, X8)
	REDUCE(Y2, X2, X8)
	REDUCE(Y3, X3, X8)
	REDUCE(Y4, X4, X8)
	REDUCE(Y5, X5, X8)
	REDUCE(Y6, X6, X8)
	REDUCE(Y7, X7, X8)

dot4x2_tail:
	CMPQ   AX, CX
	JGE    dot4x2_done
	VMOVSD (DI)(AX*8), X8
	VMOVSD (R11)(AX*8), X9
	VMOVSD (SI)(AX*8), X10
	VMULSD X8, X10, X11
	VADDSD X11, X0, X0
	VMULSD X9, X10, X12
	VADDSD X12, X1, X1
	VMOVSD (R8)(AX*8), X10
	VMULSD X8, X10, X11
	VADDSD X11, X2, X2
	VMULSD X9, X10, X12
	VADDSD X12, X3, X3
	VMOVSD (R9)(AX*8), X10
	VMULSD X8, X10, X11
	VADDSD X11, X4, X4
	VMULSD X9, X10, X12
	VADDSD X12, X5, X5
	VMOVSD (R10)(AX*8), X10
	VMULSD X8, X10, X11
	VADDSD X11, X6, X6
	VMULSD X9, X10, X12
	VADDSD X12, X7, X7
	INCQ   AX
	JMP    dot4x2_tail

dot4x2_done:
	VMOVSD X0, 0(R12)
	VMOVSD X1, 8(R12)
	VMOVSD X2, 16(R12)
	VMOVSD X3, 24(R12)
	VMOVSD X4, 32(R12)
	VMOVSD X5, 40(R12)
	VMOVSD X6, 48(R12)
	VMOVSD X7, 56(R12)
	VZEROUPPER
	RET
