/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Huge-page memory: aligned, zeroed, all of it usable, freed; where the kernel backs it with huge pages. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/hugemem.h"
#include "tap.h"

/* AnonHugePages of this process's mapping that holds p, in kB; -1 when not found. */
static long huge_kb_at(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	long kb = -1;
	int inside = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		uintptr_t lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else if (inside && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

#if !defined(__SANITIZE_ADDRESS__)
/* The kernel's count of huge page faults that fell back to small pages, or -1. */
static long thp_fault_fallbacks(void)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char line[128];
	long n = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "thp_fault_fallback %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* How many 4 KB pages of the huge page at page one touch of its first byte brought in. */
static size_t resident_after_touch(char *page)
{
	unsigned char vec[HUGEMEM_PAGE / 4096];
	size_t resident = 0;

	page[0] = 1;
	if (mincore(page, HUGEMEM_PAGE, vec) == 0)
		for (size_t i = 0; i < sizeof(vec); i++)
			resident += vec[i] & 1;
	return resident;
}
#endif

/*
 * The heap grown in huge pages: the first touch of a block carved from it
 * faults in 2 MB. First in the program: heap pages touched before (the other
 * tests' mallocs, freed into the heap) stay small pages where they are.
 */
static void heap_in_huge_pages(void)
{
#if defined(__SANITIZE_ADDRESS__)
	ok(1, "# SKIP the sanitizer's malloc is not glibc's heap");
#else
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char mode[128] = "";
	size_t whole = HUGEMEM_PAGE / 4096, resident;
	char *block;

	if (f) {
		if (!fgets(mode, sizeof(mode), f))
			mode[0] = 0;
		fclose(f);
	}
	if (!strstr(mode, "[always]") && !strstr(mode, "[madvise]")) {
		ok(1, "# SKIP no transparent huge pages here");
	} else if (!hugemem__worth_it() && strstr(mode, "[madvise]")) {
		/* a 4 KB fault is cheap here: the heap is left as it is, one touch one page */
		if (hugemem__heap(8 * HUGEMEM_PAGE) == 0 && (block = malloc(3 * HUGEMEM_PAGE))) {
			char *page = (char *)(((uintptr_t)block + HUGEMEM_PAGE - 1) & ~(uintptr_t)(HUGEMEM_PAGE - 1));

			ok(resident_after_touch(page) == 1, "where a 4 KB fault is cheap, hugemem__heap leaves malloc's memory in 4 KB pages");
			free(block);
		} else {
			ok(0, "hugemem__heap and a block from it");
		}
	} else if (!hugemem__worth_it()) {
		ok(1, "# SKIP transparent huge pages are always on here");
	} else if (hugemem__heap(8 * HUGEMEM_PAGE) == 0 && (block = malloc(3 * HUGEMEM_PAGE))) {
		/* a huge page wholly inside the block */
		char *page = (char *)(((uintptr_t)block + HUGEMEM_PAGE - 1) & ~(uintptr_t)(HUGEMEM_PAGE - 1));

		long fallbacks = thp_fault_fallbacks();

		resident = resident_after_touch(page);
		if (resident != whole)
			printf("# %zu of %zu pages in (block %p, the page %p)\n", resident, whole, (void *)block, (void *)page);
		/* the kernel says when it had no huge page to give (memory too fragmented): not ours to test then */
		if (resident != whole && fallbacks >= 0 && thp_fault_fallbacks() > fallbacks)
			ok(1, "# SKIP the kernel had no free huge page (thp_fault_fallback went up)");
		else
			ok(resident == whole, "malloc's memory after hugemem__heap: one touch faults in a huge page");
		free(block);
	} else {
		ok(0, "hugemem__heap and a block from it");
	}
#endif
}

int main(void)
{
	size_t sizes[] = { 1, 4096, HUGEMEM_PAGE - 1, HUGEMEM_PAGE, 3 * HUGEMEM_PAGE + 5 };
	int bad_align = 0, bad_zero = 0;
	char *p;

	heap_in_huge_pages();
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t whole = (sizes[k] + HUGEMEM_PAGE - 1) / HUGEMEM_PAGE * HUGEMEM_PAGE;

		p = hugemem__alloc(sizes[k]);
		if (!p) {
			ok(0, "allocated");
			continue;
		}
		bad_align += (uintptr_t)p % HUGEMEM_PAGE != 0;
		for (size_t i = 0; i < whole; i += 4096)
			bad_zero += p[i] != 0 || p[whole - 1 - i] != 0;
		/* every byte of the rounded-up size is ours */
		memset(p, 0x5a, whole);
		hugemem__free(p, sizes[k]);
	}
	ok(!bad_align, "aligned to a huge page");
	ok(!bad_zero, "zeroed, up to the rounded-up size");

	p = hugemem__alloc(4 * HUGEMEM_PAGE);
	memset(p, 1, 4 * HUGEMEM_PAGE);
	{
		FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
		char mode[128] = "";

		if (f && fgets(mode, sizeof(mode), f) && !strstr(mode, "[never]") && hugemem__worth_it())
			ok(huge_kb_at(p) > 0, "backed by huge pages where the kernel has them");
		else if (strstr(mode, "[madvise]"))
			ok(huge_kb_at(p) == 0, "in 4 KB pages where a 4 KB fault is cheap (hugemem__worth_it)");
		else
			printf("ok %d - # SKIP transparent huge pages are off here\n", ++tap_n);
		if (f)
			fclose(f);
	}
	hugemem__free(p, 4 * HUGEMEM_PAGE);
	/* grown: in place, then moved past a mapping that takes the address after it */
	{
		size_t size = HUGEMEM_PAGE + 100, bigger = 3 * HUGEMEM_PAGE, biggest = 5 * HUGEMEM_PAGE;
		int kept = 1, zero = 1, blocked;
		char *q;
		void *block;

		p = hugemem__alloc(size);
		for (size_t i = 0; i < size; i++)
			p[i] = (char)(i * 7);
		q = hugemem__realloc(p, size, bigger);
		for (size_t i = 0; q && i < size; i++)
			kept &= q[i] == (char)(i * 7);
		for (size_t i = 2 * HUGEMEM_PAGE; q && i < bigger; i += 512)
			zero &= q[i] == 0;
		ok(q && kept && zero, "grown: its bytes kept, the new ones zeroed");
		block = q ? mmap(q + bigger, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) :
			    MAP_FAILED;
		/* taken already (under ASan it may be): as good */
		blocked = block != MAP_FAILED || errno == EEXIST;
		p = q ? hugemem__realloc(q, bigger, biggest) : NULL;
		kept = zero = 1;
		for (size_t i = 0; p && i < size; i++)
			kept &= p[i] == (char)(i * 7);
		for (size_t i = 3 * HUGEMEM_PAGE; p && i < biggest; i += 512)
			zero &= p[i] == 0;
		ok(blocked && p && p != q && (uintptr_t)p % HUGEMEM_PAGE == 0 && kept && zero,
		   "grown where it cannot stay: moved whole, aligned, the new bytes zeroed");
		if (p)
			memset(p, 1, biggest);
		hugemem__free(p, biggest);
		if (block != MAP_FAILED)
			munmap(block, 4096);
	}
	/* an array that starts small in malloc's memory and grows past HUGEMEM_FROM into huge pages */
	{
		size_t size = 0, kept = 1;
		char *a = NULL, *v;

		for (size_t want = 1000; want <= 4 * HUGEMEM_PAGE; want *= 3) {
			if (!(v = hugemem__grow(a, size, want))) {
				kept = 0;
				break;
			}
			a = v;
			for (size_t i = 0; i < size; i++)
				kept &= a[i] == (char)(i * 13);
			for (size_t i = size; i < want; i++)
				a[i] = (char)(i * 13);
			size = want;
		}
		ok(kept && (uintptr_t)a % HUGEMEM_PAGE == 0, "grown from malloc's memory into huge pages, its bytes kept");
		hugemem__release(a, size);
		hugemem__release(NULL, 10);
	}
	/* prefaulted: resident at once (mincore), its bytes as they were; the rest left alone */
	{
		size_t len = 2 * HUGEMEM_PAGE, pages = len / 4096, in = 0, out = 0;
		char *buf = hugemem__alloc(len);
		unsigned char *vec = malloc(pages);

		if (buf && vec) {
			memset(buf + 100, 7, 50);
			hugemem__prefault(buf + 100, HUGEMEM_PAGE - 100);
			if (mincore(buf, len, vec) == 0)
				for (size_t i = 0; i < pages; i++)
					i < pages / 2 ? (in += vec[i] & 1) : (out += vec[i] & 1);
			ok(in == pages / 2 && out == 0 && buf[99] == 0 && buf[100] == 7 && buf[149] == 7 && buf[150] == 0,
			   "prefaulted: its pages resident, its bytes kept, the pages after it not touched");
		} else {
			ok(0, "memory for the prefault test");
		}
		free(vec);
		hugemem__free(buf, len);
	}
	hugemem__free(NULL, 123);
	ok(1, "freeing NULL does nothing");
	return tap_done();
}
