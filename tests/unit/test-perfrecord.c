/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A sample's user stack copy as the kernel writes it (reserved size, data,
 * the size it could copy) and as lp-record keeps it: whether the kernel's
 * copy was short of what it set out to copy survives the keeping.
 */
#include <stdint.h>
#include <string.h>

#include "base/arch.h"
#include "record/perfrecord.h"
#include "tap.h"

/* header, id, ip, pid/tid, time, cpu, period, callchain of 0, regs' abi and regs */
enum { HEAD = 8 + 8 + 8 + 8 + 8 + 8 + 8 + 8 + 8 + 8 * LP_SAMPLE_NREGS };

static const struct perf_layout layout = { .regs_and_stack = true };

static uint64_t raw[1024], kept[1024];

/* A kernel's sample: reserved bytes of copy, dyn of them written (no copy at all when reserved is 0). */
static const struct perf_event_header *kernel_sample(uint64_t reserved, uint64_t dyn)
{
	unsigned char *p = (unsigned char *)raw;
	struct perf_event_header *h = (struct perf_event_header *)raw;
	uint64_t abi = 2, sp = 0x7ffc00010000ULL;

	memset(raw, 0, sizeof(raw));
	memcpy(p + HEAD - 8 * LP_SAMPLE_NREGS - 8, &abi, 8);
	memcpy(p + HEAD - 8 * LP_SAMPLE_NREGS + 8 * LP_REG_AT_SP, &sp, 8);
	memcpy(p + HEAD, &reserved, 8);
	for (uint64_t i = 0; i < dyn; i++)
		p[HEAD + 8 + i] = (unsigned char)(i * 7 + 1);
	if (reserved)
		memcpy(p + HEAD + 8 + reserved, &dyn, 8);
	h->type = PERF_RECORD_SAMPLE;
	h->size = (uint16_t)(HEAD + 8 + (reserved ? reserved + 8 : 0));
	return h;
}

/* The sample h as lp-record keeps it, decoded again into s. */
static const struct perf_event_header *keep(const struct perf_event_header *h, struct ring_sample *s)
{
	struct ring_sample first;

	if (!ring_sample__decode(h, &layout, false, &first))
		return NULL;
	ring_sample__copy_kept(h, &first, kept, ring_sample__kept_size(h, &first));
	return ring_sample__decode((struct perf_event_header *)kept, &layout, false, s) ?
		       (struct perf_event_header *)kept : NULL;
}

int main(void)
{
	struct ring_sample s;
	const struct perf_event_header *h;

	h = kernel_sample(64, 64);
	ok(ring_sample__decode(h, &layout, false, &s) && s.stack_size == 64 && !s.stack_short,
	   "a whole copy is not short");
	ok(keep(h, &s) && s.stack_size == 64 && !s.stack_short, "nor once kept");

	h = kernel_sample(64, 32);
	ok(ring_sample__decode(h, &layout, false, &s) && s.stack_size == 32 && s.stack_short,
	   "the kernel wrote 32 of the 64 bytes it reserved: short");
	ok((h = keep(h, &s)) && s.stack_size == 32 && s.stack_short && h->size == HEAD + 8 + 32 + 8,
	   "kept without the unwritten part, and still short");
	ok(s.stack && s.stack[0] == 1 && s.stack[31] == (unsigned char)(31 * 7 + 1), "the bytes written are kept");

	h = kernel_sample(64, 0);
	ok(ring_sample__decode(h, &layout, false, &s) && s.stack_size == 0 && s.stack_short && s.has_regs,
	   "nothing written of a copy reserved: short");
	ok(keep(h, &s) && s.stack_size == 0 && s.stack_short && s.has_regs, "kept as no copy at all, and still short");

	h = kernel_sample(0, 0);
	ok(ring_sample__decode(h, &layout, false, &s) && s.stack_size == 0 && !s.stack_short,
	   "no copy reserved: not short");

	/* kept as the difference from another sample's copy */
	h = kernel_sample(64, 32);
	ok(ring_sample__decode(h, &layout, false, &s), "decoded");
	ring_sample__copy_delta(h, &s, kept, 8, 3);
	ok(ring_sample__decode((struct perf_event_header *)kept, &layout, false, &s) && s.stack_whole == 32 &&
		   s.stack_key == 3 && s.stack_size == 8 && s.stack_short,
	   "a short copy kept as a difference is short");
	h = kernel_sample(64, 64);
	ok(ring_sample__decode(h, &layout, false, &s), "decoded");
	ring_sample__copy_delta(h, &s, kept, 8, 3);
	ok(ring_sample__decode((struct perf_event_header *)kept, &layout, false, &s) && s.stack_whole == 64 &&
		   !s.stack_short,
	   "a whole one is not");
	return tap_done();
}
