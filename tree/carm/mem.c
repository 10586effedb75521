/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What every architecture's memory kernels share: ratios, families, chunk sizes. */
#include "carm-int.h"

const unsigned carm__ratios[CARM_NRATIOS][2] = { { 1, 0 }, { 0, 1 }, { 1, 1 }, { 2, 1 }, { 3, 1 }, { 4, 1 }, { 1, 2 } };
const unsigned carm__unroll[CARM_NFAMILIES] = { 32, 32, 16, 16, 16, 16 };

static int family(enum carm_isa isa, enum carm_precision p)
{
	switch (isa) {
	case CARM_SCALAR:
		return p == CARM_DP ? CARM_SCALAR_DP : CARM_SCALAR_SP;
	case CARM_SSE:
		return CARM_FAM_SSE;
	case CARM_AVX2:
		return CARM_FAM_AVX2;
	case CARM_AVX512:
		return CARM_FAM_AVX512;
	case CARM_NEON:
		return CARM_FAM_NEON;
	default:
		return -1;
	}
}

static int ratio_index(unsigned loads, unsigned stores)
{
	for (int i = 0; i < CARM_NRATIOS; i++)
		if (carm__ratios[i][0] == loads && carm__ratios[i][1] == stores)
			return i;
	return -1;
}

bool carm__mem_ratio_known(unsigned loads, unsigned stores)
{
	return ratio_index(loads, stores) >= 0;
}

size_t carm__mem_chunk(enum carm_isa isa, enum carm_precision p, unsigned loads, unsigned stores)
{
	int f = family(isa, p);

	return f < 0 ? 0 : (size_t)carm__unroll[f] * (loads + stores) * carm_isa__width(isa, p);
}

carm_mem_fn *carm__mem_kernel(enum carm_isa isa, enum carm_precision p, unsigned loads, unsigned stores)
{
	int f = family(isa, p), r = ratio_index(loads, stores);

	return f < 0 || r < 0 ? NULL : carm__mem_arch_kernel(f, r);
}

#if !defined(__x86_64__) && !defined(__aarch64__)
carm_mem_fn *carm__mem_arch_kernel(enum carm_family f, int ratio)
{
	(void)f;
	(void)ratio;
	return NULL;
}
#endif
