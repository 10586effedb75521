/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory kernels: aligned sequential loads and stores, a group of LOADS
 * loads then STORES stores, UNROLL groups per loop iteration. GNU as's
 * .rept writes the groups, so one macro gives every ratio with the
 * instruction count exact: bytes / width memory instructions per pass.
 */
#include "carm-int.h"

#if defined(__x86_64__)

/*
 * Loads go to registers 0-3 in turn: loading into one register over and
 * over ran at 1.5 instructions a cycle on a Zen 3 where turns reach 2.4.
 */
#define LOAD_NEXT(LD, reg) \
	".if .Lcarm_reg == 0\n\t" LD " .Lcarm_off(%%rsi), %%" reg "0\n\t" \
	".elseif .Lcarm_reg == 1\n\t" LD " .Lcarm_off(%%rsi), %%" reg "1\n\t" \
	".elseif .Lcarm_reg == 2\n\t" LD " .Lcarm_off(%%rsi), %%" reg "2\n\t" \
	".else\n\t" LD " .Lcarm_off(%%rsi), %%" reg "3\n\t.endif\n\t" \
	".set .Lcarm_reg, (.Lcarm_reg + 1) %% 4\n\t"

/* bytes a non-zero multiple of the chunk, passes at least 1 */
#define MEM_KERNEL(fname, LD, ST, reg, W, L, S, U, FINI) \
	static void fname(void *buf, size_t bytes, uint64_t passes) \
	{ \
		char *end = (char *)buf + bytes; \
		__asm__ volatile("1:\n\t" \
				 "mov %[buf], %%rsi\n\t" \
				 "2:\n\t" \
				 ".set .Lcarm_off, 0\n\t.set .Lcarm_reg, 0\n\t" \
				 ".rept " #U "\n\t" \
				 ".rept " #L "\n\t" LOAD_NEXT(LD, reg) \
				 ".set .Lcarm_off, .Lcarm_off + " #W "\n\t.endr\n\t" \
				 ".rept " #S "\n\t" ST " %%" reg "8, .Lcarm_off(%%rsi)\n\t" \
				 ".set .Lcarm_off, .Lcarm_off + " #W "\n\t.endr\n\t" \
				 ".endr\n\t" \
				 "add $" #U "*(" #L "+" #S ")*" #W ", %%rsi\n\t" \
				 "cmp %[end], %%rsi\n\t" \
				 "jb 2b\n\t" \
				 "dec %[passes]\n\t" \
				 "jnz 1b\n\t" FINI \
				 : [passes] "+r"(passes) \
				 : [buf] "r"(buf), [end] "r"(end) \
				 : "rsi", "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm8"); \
	}

#define FAMILY(name, LD, ST, reg, W, U, FINI) \
	MEM_KERNEL(name##_1_0, LD, ST, reg, W, 1, 0, U, FINI) \
	MEM_KERNEL(name##_0_1, LD, ST, reg, W, 0, 1, U, FINI) \
	MEM_KERNEL(name##_1_1, LD, ST, reg, W, 1, 1, U, FINI) \
	MEM_KERNEL(name##_2_1, LD, ST, reg, W, 2, 1, U, FINI) \
	MEM_KERNEL(name##_3_1, LD, ST, reg, W, 3, 1, U, FINI) \
	MEM_KERNEL(name##_4_1, LD, ST, reg, W, 4, 1, U, FINI) \
	MEM_KERNEL(name##_1_2, LD, ST, reg, W, 1, 2, U, FINI)
#define ROW(name) { name##_1_0, name##_0_1, name##_1_1, name##_2_1, name##_3_1, name##_4_1, name##_1_2 }

/* the unroll counts are carm__unroll[] */
FAMILY(scalar_dp, "movsd", "movsd", "xmm", 8, 32, "")
FAMILY(scalar_sp, "movss", "movss", "xmm", 4, 32, "")
FAMILY(sse, "movapd", "movapd", "xmm", 16, 16, "")
FAMILY(avx2, "vmovapd", "vmovapd", "ymm", 32, 16, "vzeroupper\n\t")
FAMILY(avx512, "vmovapd", "vmovapd", "zmm", 64, 16, "vzeroupper\n\t")

static carm_mem_fn *const kernels[CARM_NFAMILIES][CARM_NRATIOS] = {
	[CARM_SCALAR_DP] = ROW(scalar_dp), [CARM_SCALAR_SP] = ROW(scalar_sp), [CARM_FAM_SSE] = ROW(sse),
	[CARM_FAM_AVX2] = ROW(avx2), [CARM_FAM_AVX512] = ROW(avx512),
};

carm_mem_fn *carm__mem_arch_kernel(enum carm_family f, int ratio)
{
	return kernels[f][ratio];
}
#endif
