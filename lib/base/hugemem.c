/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/hugemem.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/*
 * A 4 KB page's first touch costs what the host charges for backing it:
 * 10-15 us on some days of these VMs, 1.6-2.2 us on others. A huge page
 * costs 0.2-5 ms fresh, whatever of it is used: worth it only where 4 KB
 * faults are dear (lp-record's write phase of 40k samples: 8% faster
 * without huge pages at 2 us a fault, make -j2's 20%; 30% slower at 15 us).
 */
enum { PROBE_PAGES = 16, DEAR_FAULT_NS = 5000 };

static bool dear_faults;
static pthread_once_t probed = PTHREAD_ONCE_INIT;

static void probe_faults(void)
{
	size_t page = 4096, len = PROBE_PAGES * page;
	struct timespec a, b;
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t ns;

	if (m == MAP_FAILED)
		return;
	madvise(m, len, MADV_NOHUGEPAGE);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (size_t i = 0; i < PROBE_PAGES; i++)
		((volatile char *)m)[i * page] = 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	munmap(m, len);
	ns = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u + (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec;
	dear_faults = ns / PROBE_PAGES >= DEAR_FAULT_NS;
}

bool hugemem__worth_it(void)
{
	pthread_once(&probed, probe_faults);
	return dear_faults;
}

void *hugemem__alloc(size_t size)
{
	size_t len = hugemem__round_up(size);
	/* a huge page must be aligned: map one more and trim both ends */
	char *m = mmap(NULL, len + HUGEMEM_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p;
	size_t head;

	if (m == MAP_FAILED)
		return NULL;
	p = (char *)hugemem__round_up((uintptr_t)m);
	head = (size_t)(p - m);
	if (head)
		munmap(m, head);
	munmap(p + len, HUGEMEM_PAGE - head);
	/* without transparent huge pages this fails, and 4 KB pages do */
	if (hugemem__worth_it())
		madvise(p, len, MADV_HUGEPAGE);
	return p;
}

void *hugemem__realloc(void *p, size_t old_size, size_t new_size)
{
	size_t old_len = hugemem__round_up(old_size), new_len = hugemem__round_up(new_size);
	void *q;

	if (!p)
		return hugemem__alloc(new_size);
	if (new_len <= old_len)
		return p;
	/* in place where the address space after it is free */
	q = mremap(p, old_len, new_len, 0);
	if (q != MAP_FAILED)
		return q;
	if (!(q = hugemem__alloc(new_size)))
		return NULL;
	/* the pages move to the aligned start of the new mapping, the rest of it stays fresh */
	if (mremap(p, old_len, old_len, MREMAP_MAYMOVE | MREMAP_FIXED, q) == MAP_FAILED) {
		memcpy(q, p, old_len);
		munmap(p, old_len);
	}
	return q;
}

void *hugemem__grow(void *p, size_t old_size, size_t new_size)
{
	void *q;

	if (new_size < HUGEMEM_FROM)
		return realloc(p, new_size);
	if (old_size >= HUGEMEM_FROM)
		return hugemem__realloc(p, old_size, new_size);
	/* crossing over: copied once out of malloc's memory */
	if (!(q = hugemem__alloc(new_size)))
		return NULL;
	if (old_size)
		memcpy(q, p, old_size);
	free(p);
	return q;
}

void hugemem__release(void *p, size_t size)
{
	if (size >= HUGEMEM_FROM)
		hugemem__free(p, size);
	else
		free(p);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void hugemem__prefault(void *p, size_t len)
{
	uintptr_t page = 4096, lo = (uintptr_t)p & ~(page - 1), hi = (uintptr_t)p + len;

	if (!len)
		return;
	/* one call for all of it (Linux 5.14); before that, a write of each page's first byte as it is */
	if (madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) == 0)
		return;
	for (uintptr_t a = (uintptr_t)p; a < hi; a = (a & ~(page - 1)) + page) {
		volatile char *c = (volatile char *)a;

		*c = *c;
	}
}

int hugemem__heap(size_t size)
{
	uintptr_t start, end;
	char *block;

	if (!hugemem__worth_it())
		return 0;
	if (size > HUGEMEM_HEAP_MAX)
		size = HUGEMEM_HEAP_MAX;
	/*
	 * Blocks this big from the heap (sbrk), not from mmap (32 MB is
	 * malloc's most), and a heap that keeps what is freed at its top.
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	if (!(block = malloc(size)))
		return -ENOMEM;
	start = hugemem__round_up((uintptr_t)block);
	end = ((uintptr_t)block + size) & ~(uintptr_t)(HUGEMEM_PAGE - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_HUGEPAGE);
	/* back into the heap's free top, where the next allocations come from */
	free(block);
	return 0;
}

void hugemem__free(void *p, size_t size)
{
	if (p)
		munmap(p, hugemem__round_up(size));
}
