/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What every architecture's FP kernels share; a portable stand-in where there are none. */
#include "carm-int.h"

carm_fp_fn *carm__fp_kernel(enum carm_isa isa, enum carm_precision p, enum carm_op op, uint64_t *flops_per_iteration)
{
	unsigned lanes;

	if (isa >= CARM_NISA || op >= CARM_NOP || (p != CARM_DP && p != CARM_SP))
		return NULL;
	lanes = carm_isa__width(isa, p) / (p == CARM_DP ? 8 : 4);
	*flops_per_iteration = (uint64_t)CARM_FP_CHAINS * lanes * (op == CARM_FMA ? 2 : 1);
	return carm__fp_arch_kernel(isa, p, op);
}

#if !defined(__x86_64__) && !defined(__aarch64__)
carm_fp_fn *carm__fp_arch_kernel(enum carm_isa isa, enum carm_precision p, enum carm_op op)
{
	(void)isa;
	(void)p;
	(void)op;
	return NULL;
}

void carm__clock_chain(uint64_t iterations)
{
	volatile uint64_t x = 0;

	while (iterations--)
		for (int i = 0; i < 8; i++)
			x++;
}

void carm__flush_denormals(void)
{
}
#endif
