/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FP kernels for arm64, as fp-x86.c: CARM_FP_CHAINS accumulators (v0-v11)
 * each take one instruction per iteration with operands v14 and v15, so
 * the chains are independent; every value stays 1.0 or a small whole
 * number. Scalar ones use the d/s views of the same registers.
 */
#include "carm-int.h"

#if defined(__aarch64__)

#define EACH_CHAIN(M, ins, t) \
	M(ins, t, 0) M(ins, t, 1) M(ins, t, 2) M(ins, t, 3) M(ins, t, 4) M(ins, t, 5) \
	M(ins, t, 6) M(ins, t, 7) M(ins, t, 8) M(ins, t, 9) M(ins, t, 10) M(ins, t, 11)
/* vector: "fadd v0.2d, v0.2d, v15.2d"; fmla adds v14 * v15 */
#define VEC2(ins, t, n) ins " v" #n "." t ", v" #n "." t ", v15." t "\n\t"
#define VFMA(ins, t, n) ins " v" #n "." t ", v14." t ", v15." t "\n\t"
/* scalar: t is the register letter, "d" or "s"; fmadd's addend is the accumulator */
#define SCA2(ins, t, n) ins " " t #n ", " t #n ", " t "15\n\t"
#define SFMA(ins, t, n) ins " " t #n ", " t "14, " t "15, " t #n "\n\t"
#define COPY(ins, t, n) "mov v" #n ".16b, v15.16b\n\t"

/* 1.0 in every lane of v15 (fmov's vector form), copied to v14 and the accumulators */
#define FILL(t) "fmov v15." t ", #1.0\n\t" EACH_CHAIN(COPY, "", "") "mov v14.16b, v15.16b\n\t"

#define CLOBBERS "cc", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v14", "v15"

/* n must be at least 1 */
#define FP_KERNEL(fname, t, M, ins) \
	static void fname(uint64_t n) \
	{ \
		__asm__ volatile(FILL(t) "1:\n\t" EACH_CHAIN(M, ins, t) "subs %0, %0, #1\n\tb.ne 1b\n\t" \
				 : "+r"(n) : : CLOBBERS); \
	}
/* the scalar kernels fill the vector lanes too: the scalar view is lane 0 */
#define SCALAR_KERNEL(fname, fill, r, M, ins) \
	static void fname(uint64_t n) \
	{ \
		__asm__ volatile(FILL(fill) "1:\n\t" EACH_CHAIN(M, ins, r) "subs %0, %0, #1\n\tb.ne 1b\n\t" \
				 : "+r"(n) : : CLOBBERS); \
	}

SCALAR_KERNEL(scalar_dp_add, "2d", "d", SCA2, "fadd")
SCALAR_KERNEL(scalar_dp_mul, "2d", "d", SCA2, "fmul")
SCALAR_KERNEL(scalar_dp_fma, "2d", "d", SFMA, "fmadd")
SCALAR_KERNEL(scalar_sp_add, "4s", "s", SCA2, "fadd")
SCALAR_KERNEL(scalar_sp_mul, "4s", "s", SCA2, "fmul")
SCALAR_KERNEL(scalar_sp_fma, "4s", "s", SFMA, "fmadd")

FP_KERNEL(neon_dp_add, "2d", VEC2, "fadd")
FP_KERNEL(neon_dp_mul, "2d", VEC2, "fmul")
FP_KERNEL(neon_dp_fma, "2d", VFMA, "fmla")
FP_KERNEL(neon_sp_add, "4s", VEC2, "fadd")
FP_KERNEL(neon_sp_mul, "4s", VEC2, "fmul")
FP_KERNEL(neon_sp_fma, "4s", VFMA, "fmla")

carm_fp_fn *carm__fp_arch_kernel(enum carm_isa isa, enum carm_precision p, enum carm_op op)
{
	static carm_fp_fn *const scalar[2][CARM_NOP] = {
		{ scalar_dp_add, scalar_dp_mul, scalar_dp_fma }, { scalar_sp_add, scalar_sp_mul, scalar_sp_fma } };
	static carm_fp_fn *const neon[2][CARM_NOP] = {
		{ neon_dp_add, neon_dp_mul, neon_dp_fma }, { neon_sp_add, neon_sp_mul, neon_sp_fma } };

	return isa == CARM_SCALAR ? scalar[p][op] : isa == CARM_NEON ? neon[p][op] : NULL;
}

void carm__clock_chain(uint64_t iterations)
{
	uint64_t x = 0;

	/* eight dependent adds per iteration, one cycle each */
	__asm__ volatile("1:\n\t"
			 "add %1, %1, #1\n\tadd %1, %1, #1\n\tadd %1, %1, #1\n\tadd %1, %1, #1\n\t"
			 "add %1, %1, #1\n\tadd %1, %1, #1\n\tadd %1, %1, #1\n\tadd %1, %1, #1\n\t"
			 "subs %0, %0, #1\n\tb.ne 1b\n\t"
			 : "+r"(iterations), "+r"(x) : : "cc");
}

void carm__flush_denormals(void)
{
	uint64_t fpcr;

	/* FZ: denormal inputs and results are zero */
	__asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
	fpcr |= 1u << 24;
	__asm__ volatile("msr fpcr, %0" : : "r"(fpcr));
}
#endif
