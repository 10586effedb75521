/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The carm kernels of this architecture (x86-64 here; arm64 under
 * qemu-user in tests/roofline.bats): each FP kernel runs; each memory
 * kernel stays inside its buffer (guard pages either side fault if not)
 * and, storing, writes every byte of it.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "carm/carm.h"
#include "tap.h"

/* bytes of buffer between two guard pages */
static char *guarded(size_t bytes, size_t page)
{
	char *p = mmap(NULL, bytes + 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	mprotect(p, page, PROT_NONE);
	mprotect(p + page + bytes, page, PROT_NONE);
	return p + page;
}

static bool all_changed(const unsigned char *p, size_t n, unsigned char was)
{
	size_t same = 0;

	/* a stored register may hold the sentinel's byte here and there, not everywhere */
	for (size_t i = 0; i < n; i++)
		same += p[i] == was;
	return same < n / 4;
}

int main(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned supported = 0;
	char name[96];

	for (int isa = 0; isa < CARM_NISA; isa++) {
		if (!carm_isa__supported(isa))
			continue;
		supported++;
		for (int p = CARM_DP; p <= CARM_SP; p++) {
			for (int op = 0; op < CARM_NOP; op++) {
				uint64_t flops = 0;
				carm_fp_fn *fp = carm__fp_kernel(isa, p, op, &flops);

				if (op == CARM_FMA && !carm_isa__has_fma(isa))
					continue;
				snprintf(name, sizeof(name), "%s %s %s: a kernel of %llu FLOPs an iteration, that runs",
					 carm_isa__name(isa), carm_precision__name(p), carm_op__name(op),
					 (unsigned long long)flops);
				if (fp)
					fp(3);
				ok(fp && flops == (uint64_t)CARM_FP_CHAINS * carm_isa__width(isa, p) / (p == CARM_DP ? 8 : 4) *
							  (op == CARM_FMA ? 2 : 1), name);
			}
			for (unsigned l = 0; l <= 4; l++) {
				for (unsigned s = 0; s <= 2; s++) {
					size_t chunk, bytes;
					carm_mem_fn *mem;
					char *buf;

					if (!carm__mem_ratio_known(l, s))
						continue;
					mem = carm__mem_kernel(isa, p, l, s);
					chunk = carm__mem_chunk(isa, p, l, s);
					/* three chunks, at a page's end: an access past them faults */
					bytes = 3 * chunk;
					buf = guarded((bytes + page - 1) / page * page, page);
					snprintf(name, sizeof(name), "%s %s %u:%u: stays in its buffer%s",
						 carm_isa__name(isa), carm_precision__name(p), l, s,
						 s ? " and writes all of it" : "");
					if (!mem || !buf) {
						ok(0, name);
						continue;
					}
					buf += (bytes + page - 1) / page * page - bytes;
					memset(buf, 0x5a, bytes);
					mem(buf, bytes, 2);
					ok(!s || all_changed((unsigned char *)buf, bytes, 0x5a) || l, name);
				}
			}
		}
	}
	ok(supported >= 2, "this CPU runs two ISAs at least (scalar and a vector one)");
	ok(!carm__mem_ratio_known(5, 1) && carm__mem_ratio_known(2, 1), "ratios: 2:1 has kernels, 5:1 not");
	return tap_done();
}
