/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FP kernels: CARM_FP_CHAINS accumulators (registers 0-11) each take one
 * instruction per iteration with operands 14 and 15, so the chains are
 * independent and the pipes stay full (latency x pipes is at most 8 on
 * current x86 cores). Every value stays 1.0 or a small whole number: no
 * denormals, no infinities.
 */
#include "carm-int.h"

#if defined(__x86_64__)

#define EACH_CHAIN(M, ins, r) \
	M(ins, r, 0) M(ins, r, 1) M(ins, r, 2) M(ins, r, 3) M(ins, r, 4) M(ins, r, 5) \
	M(ins, r, 6) M(ins, r, 7) M(ins, r, 8) M(ins, r, 9) M(ins, r, 10) M(ins, r, 11)
#define TWO(ins, r, n) ins " %%" r "15, %%" r #n "\n\t"
#define THREE(ins, r, n) ins " %%" r "15, %%" r #n ", %%" r #n "\n\t"
#define FMA(ins, r, n) ins " %%" r "14, %%" r "15, %%" r #n "\n\t"
#define COPY(ins, r, n) ins " %%" r "15, %%" r #n "\n\t"

#define ONE_DP "mov $0x3ff0000000000000, %%rax\n\tmovq %%rax, %%xmm15\n\t"
#define ONE_SP "mov $0x3f800000, %%eax\n\tmovd %%eax, %%xmm15\n\t"
/* 1.0 in every lane of register 15, copied to 14 and to the accumulators */
#define FILL_SSE(one, spread) one spread EACH_CHAIN(COPY, "movaps", "xmm") "movaps %%xmm15, %%xmm14\n\t"
#define FILL_VEX(one, spread, r) "vzeroupper\n\t" one spread EACH_CHAIN(COPY, "vmovaps", r) \
	"vmovaps %%" r "15, %%" r "14\n\t"

#define CLOBBERS "rax", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", \
	"xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

/* n must be at least 1 */
#define FP_KERNEL(fname, init, body, fini) \
	static void fname(uint64_t n) \
	{ \
		__asm__ volatile(init "1:\n\t" body "dec %0\n\tjnz 1b\n\t" fini : "+r"(n) : : CLOBBERS); \
	}

#define SSE_KERNEL(fname, one, spread, ins) FP_KERNEL(fname, FILL_SSE(one, spread), EACH_CHAIN(TWO, ins, "xmm"), "")
#define VEX_KERNEL(fname, one, spread, r, M, ins) \
	FP_KERNEL(fname, FILL_VEX(one, spread, r), EACH_CHAIN(M, ins, r), "vzeroupper\n\t")

SSE_KERNEL(scalar_dp_add, ONE_DP, "", "addsd")
SSE_KERNEL(scalar_dp_mul, ONE_DP, "", "mulsd")
VEX_KERNEL(scalar_dp_fma, ONE_DP, "", "xmm", FMA, "vfmadd231sd")
SSE_KERNEL(scalar_sp_add, ONE_SP, "", "addss")
SSE_KERNEL(scalar_sp_mul, ONE_SP, "", "mulss")
VEX_KERNEL(scalar_sp_fma, ONE_SP, "", "xmm", FMA, "vfmadd231ss")

#define SPREAD_SSE_DP "movddup %%xmm15, %%xmm15\n\t"
#define SPREAD_SSE_SP "shufps $0, %%xmm15, %%xmm15\n\t"
SSE_KERNEL(sse_dp_add, ONE_DP, SPREAD_SSE_DP, "addpd")
SSE_KERNEL(sse_dp_mul, ONE_DP, SPREAD_SSE_DP, "mulpd")
VEX_KERNEL(sse_dp_fma, ONE_DP, SPREAD_SSE_DP, "xmm", FMA, "vfmadd231pd")
SSE_KERNEL(sse_sp_add, ONE_SP, SPREAD_SSE_SP, "addps")
SSE_KERNEL(sse_sp_mul, ONE_SP, SPREAD_SSE_SP, "mulps")
VEX_KERNEL(sse_sp_fma, ONE_SP, SPREAD_SSE_SP, "xmm", FMA, "vfmadd231ps")

#define SPREAD_DP(r) "vbroadcastsd %%xmm15, %%" r "15\n\t"
#define SPREAD_SP(r) "vbroadcastss %%xmm15, %%" r "15\n\t"
VEX_KERNEL(avx2_dp_add, ONE_DP, SPREAD_DP("ymm"), "ymm", THREE, "vaddpd")
VEX_KERNEL(avx2_dp_mul, ONE_DP, SPREAD_DP("ymm"), "ymm", THREE, "vmulpd")
VEX_KERNEL(avx2_dp_fma, ONE_DP, SPREAD_DP("ymm"), "ymm", FMA, "vfmadd231pd")
VEX_KERNEL(avx2_sp_add, ONE_SP, SPREAD_SP("ymm"), "ymm", THREE, "vaddps")
VEX_KERNEL(avx2_sp_mul, ONE_SP, SPREAD_SP("ymm"), "ymm", THREE, "vmulps")
VEX_KERNEL(avx2_sp_fma, ONE_SP, SPREAD_SP("ymm"), "ymm", FMA, "vfmadd231ps")

VEX_KERNEL(avx512_dp_add, ONE_DP, SPREAD_DP("zmm"), "zmm", THREE, "vaddpd")
VEX_KERNEL(avx512_dp_mul, ONE_DP, SPREAD_DP("zmm"), "zmm", THREE, "vmulpd")
VEX_KERNEL(avx512_dp_fma, ONE_DP, SPREAD_DP("zmm"), "zmm", FMA, "vfmadd231pd")
VEX_KERNEL(avx512_sp_add, ONE_SP, SPREAD_SP("zmm"), "zmm", THREE, "vaddps")
VEX_KERNEL(avx512_sp_mul, ONE_SP, SPREAD_SP("zmm"), "zmm", THREE, "vmulps")
VEX_KERNEL(avx512_sp_fma, ONE_SP, SPREAD_SP("zmm"), "zmm", FMA, "vfmadd231ps")

static carm_fp_fn *const kernels[CARM_AVX512 + 1][2][CARM_NOP] = {
	[CARM_SCALAR] = { { scalar_dp_add, scalar_dp_mul, scalar_dp_fma }, { scalar_sp_add, scalar_sp_mul, scalar_sp_fma } },
	[CARM_SSE] = { { sse_dp_add, sse_dp_mul, sse_dp_fma }, { sse_sp_add, sse_sp_mul, sse_sp_fma } },
	[CARM_AVX2] = { { avx2_dp_add, avx2_dp_mul, avx2_dp_fma }, { avx2_sp_add, avx2_sp_mul, avx2_sp_fma } },
	[CARM_AVX512] = { { avx512_dp_add, avx512_dp_mul, avx512_dp_fma }, { avx512_sp_add, avx512_sp_mul, avx512_sp_fma } },
};

void carm__clock_chain(uint64_t iterations)
{
	uint64_t x = 0;

	/* eight dependent adds per iteration: the loop's own two instructions hide beside them */
	__asm__ volatile("1:\n\t"
			 "add $1, %1\n\tadd $1, %1\n\tadd $1, %1\n\tadd $1, %1\n\t"
			 "add $1, %1\n\tadd $1, %1\n\tadd $1, %1\n\tadd $1, %1\n\t"
			 "dec %0\n\tjnz 1b\n\t"
			 : "+r"(iterations), "+r"(x) : : "cc");
}

void carm__flush_denormals(void)
{
	unsigned csr;

	__asm__ volatile("stmxcsr %0" : "=m"(csr));
	csr |= 0x8040;	/* FTZ, DAZ */
	__asm__ volatile("ldmxcsr %0" : : "m"(csr));
}

carm_fp_fn *carm__fp_arch_kernel(enum carm_isa isa, enum carm_precision p, enum carm_op op)
{
	return isa <= CARM_AVX512 ? kernels[isa][p][op] : NULL;
}
#endif
