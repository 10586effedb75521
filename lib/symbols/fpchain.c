/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel walks a user stack's frame pointers without asking whether they
 * are any: in code built without them %rbp (x29) holds whatever the compiler
 * put there, and the walk turns the words it points at into return addresses
 * and the next frame. A chain that goes down, sideways or off the stack is
 * such a walk, and nothing it reads from there on is a caller.
 */
#include <errno.h>
#include <string.h>

#include "symbols/fpchain.h"

void fp_chain__cfas(uint64_t sp, uint64_t bp, const uint8_t *stack, size_t size, size_t nframes, uint64_t *cfas)
{
	size_t i = 0;

	for (; i < nframes && bp >= sp && bp - sp <= size && size - (bp - sp) >= 16; i++) {
		cfas[i] = bp + 16;
		memcpy(&bp, stack + (bp - sp), 8);
	}
	for (; i < nframes; i++)
		cfas[i] = 0;
}

size_t fp_chain__plausible(uint64_t sp, uint64_t bp, const uint8_t *stack, size_t size, size_t nframes)
{
	uint64_t lowest = sp;

	for (size_t i = 0; i < nframes; i++) {
		if (bp % 8 || bp < lowest || bp - sp > FP_CHAIN_MAX_SPAN)
			return i;
		/* the record {next frame, return address} is beyond the snapshot */
		if (bp - sp > size || size - (bp - sp) < 16)
			return nframes;
		lowest = bp + 16;
		memcpy(&bp, stack + (bp - sp), 8);
	}
	return nframes;
}

int fp_chain__record(uint64_t base, uint64_t lowest, uint64_t bp, const uint8_t *stack, size_t size,
		     uint64_t *next, uint64_t *ra)
{
	if (bp % 8 || bp < lowest || bp - base > FP_CHAIN_MAX_SPAN)
		return -ENOENT;
	if (bp - base > size || size - (bp - base) < 16)
		return -ERANGE;
	memcpy(next, stack + (bp - base), 8);
	memcpy(ra, stack + (bp - base) + 8, 8);
	return 0;
}

size_t fp_chain__walk(uint64_t sp, uint64_t bp, const uint8_t *stack, size_t size, uint64_t *ras, uint64_t *cfas,
		      size_t max, bool *cut)
{
	uint64_t lowest = sp, next;
	size_t n = 0;
	int ret = 0;

	while (n < max && (ret = fp_chain__record(sp, lowest, bp, stack, size, &next, &ras[n])) == 0) {
		if (cfas)
			cfas[n] = bp + 16;
		n++;
		lowest = bp + 16;
		bp = next;
	}
	*cut = ret == -ERANGE;
	return n;
}
