/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Between carm/'s common code and each architecture's kernels (fp-x86.c,
 * mem-x86.c, fp-arm64.c, mem-arm64.c): what one architecture provides.
 * Not for other modules.
 */
#ifndef LP_CARM_INT_H
#define LP_CARM_INT_H

#include "carm.h"

/* The memory kernels' families: the scalar ones by precision, the vector ones for both. */
enum carm_family { CARM_SCALAR_DP, CARM_SCALAR_SP, CARM_FAM_SSE, CARM_FAM_AVX2, CARM_FAM_AVX512, CARM_FAM_NEON,
		   CARM_NFAMILIES };

/* The loads:stores ratios, in the order of each family's kernels. */
enum { CARM_NRATIOS = 7 };
extern const unsigned carm__ratios[CARM_NRATIOS][2];

/* Groups of loads and stores a loop iteration of each family holds. */
extern const unsigned carm__unroll[CARM_NFAMILIES];

/* This architecture's kernel, or NULL. */
carm_fp_fn *carm__fp_arch_kernel(enum carm_isa isa, enum carm_precision p, enum carm_op op);
carm_mem_fn *carm__mem_arch_kernel(enum carm_family f, int ratio);

#endif
