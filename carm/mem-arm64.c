/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory kernels for arm64, as mem-x86.c: a group of LOADS loads then
 * STORES stores of aligned vectors (ldr/str q, or d and s for scalar),
 * UNROLL groups per loop iteration written by GNU as's .rept, so a pass
 * is exactly bytes / width memory instructions.
 */
#include "carm-int.h"

#if defined(__aarch64__)

/* loads go to v0-v3 in turn, as on x86: no one register is a bottleneck */
#define LOAD_NEXT(r) \
	".if .Lcarm_reg == 0\n\tldr " r "0, [x9, #.Lcarm_off]\n\t" \
	".elseif .Lcarm_reg == 1\n\tldr " r "1, [x9, #.Lcarm_off]\n\t" \
	".elseif .Lcarm_reg == 2\n\tldr " r "2, [x9, #.Lcarm_off]\n\t" \
	".else\n\tldr " r "3, [x9, #.Lcarm_off]\n\t.endif\n\t" \
	".set .Lcarm_reg, (.Lcarm_reg + 1) %% 4\n\t"

/* bytes a non-zero multiple of the chunk, passes at least 1; offsets stay under ldr's scaled 12 bits */
#define MEM_KERNEL(fname, r, W, L, S, U) \
	static void fname(void *buf, size_t bytes, uint64_t passes) \
	{ \
		char *end = (char *)buf + bytes; \
		__asm__ volatile("1:\n\t" \
				 "mov x9, %[buf]\n\t" \
				 "2:\n\t" \
				 ".set .Lcarm_off, 0\n\t.set .Lcarm_reg, 0\n\t" \
				 ".rept " #U "\n\t" \
				 ".rept " #L "\n\t" LOAD_NEXT(r) \
				 ".set .Lcarm_off, .Lcarm_off + " #W "\n\t.endr\n\t" \
				 ".rept " #S "\n\tstr " r "8, [x9, #.Lcarm_off]\n\t" \
				 ".set .Lcarm_off, .Lcarm_off + " #W "\n\t.endr\n\t" \
				 ".endr\n\t" \
				 "add x9, x9, #" #U "*(" #L "+" #S ")*" #W "\n\t" \
				 "cmp x9, %[end]\n\t" \
				 "b.lo 2b\n\t" \
				 "subs %[passes], %[passes], #1\n\t" \
				 "b.ne 1b\n\t" \
				 : [passes] "+r"(passes) \
				 : [buf] "r"(buf), [end] "r"(end) \
				 : "x9", "cc", "memory", "v0", "v1", "v2", "v3", "v8"); \
	}

#define FAMILY(name, r, W, U) \
	MEM_KERNEL(name##_1_0, r, W, 1, 0, U) \
	MEM_KERNEL(name##_0_1, r, W, 0, 1, U) \
	MEM_KERNEL(name##_1_1, r, W, 1, 1, U) \
	MEM_KERNEL(name##_2_1, r, W, 2, 1, U) \
	MEM_KERNEL(name##_3_1, r, W, 3, 1, U) \
	MEM_KERNEL(name##_4_1, r, W, 4, 1, U) \
	MEM_KERNEL(name##_1_2, r, W, 1, 2, U)
#define ROW(name) { name##_1_0, name##_0_1, name##_1_1, name##_2_1, name##_3_1, name##_4_1, name##_1_2 }

/* the unroll counts are carm__unroll[] */
FAMILY(scalar_dp, "d", 8, 32)
FAMILY(scalar_sp, "s", 4, 32)
FAMILY(neon, "q", 16, 16)

static carm_mem_fn *const kernels[CARM_NFAMILIES][CARM_NRATIOS] = {
	[CARM_SCALAR_DP] = ROW(scalar_dp), [CARM_SCALAR_SP] = ROW(scalar_sp), [CARM_FAM_NEON] = ROW(neon),
};

carm_mem_fn *carm__mem_arch_kernel(enum carm_family f, int ratio)
{
	return kernels[f][ratio];
}
#endif
