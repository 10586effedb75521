/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pages asked for are faulted in by the prefaulter's thread, their contents kept. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "base/hugemem.h"
#include "base/prefaulter.h"
#include "tap.h"

enum { PAGES = 64 };

/* Pages of [p, p + PAGES pages) in memory. */
static size_t resident(void *p, size_t page)
{
	unsigned char v[PAGES];
	size_t n = 0;

	if (mincore(p, PAGES * page, v) != 0)
		return 0;
	for (size_t i = 0; i < PAGES; i++)
		n += v[i] & 1;
	return n;
}

/*
 * A range over several huge pages, starting and ending inside one, is
 * faulted in a huge page at a time, all of it, and nothing around it.
 */
static void big_range(struct prefaulter *f, size_t page, struct timespec pause)
{
	size_t len = 4 * HUGEMEM_PAGE, pages = len / page, from = 5, to = pages - 3, n = 0;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *v = calloc(pages, 1);

	ok(p != MAP_FAILED && v, "4 huge pages' worth of memory");
	if (p == MAP_FAILED || !v)
		return;
	/* counted in 4 KB pages */
	madvise(p, len, MADV_NOHUGEPAGE);
	prefaulter__ask(f, p + from * page, (to - from) * page);
	for (int i = 0; i < 500 && n < to - from; i++) {
		nanosleep(&pause, NULL);
		n = 0;
		if (mincore(p, len, v) == 0)
			for (size_t k = 0; k < pages; k++)
				n += v[k] & 1;
	}
	ok(n == to - from, "a range over 4 huge pages: all of its pages in memory");
	ok(!(v[from - 1] & 1) && (v[from] & 1) && (v[to - 1] & 1) && !(v[to] & 1), "its first and last, none around it");
	free(v);
	munmap(p, len);
}

int main(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct prefaulter *f = prefaulter__new();
	struct timespec pause = { 0, 10 * 1000 * 1000 };

	ok(p != MAP_FAILED && f, "memory and a prefaulter");
	p[0] = 'x';
	ok(resident(p, page) == 1, "one page touched, one in memory");
	prefaulter__ask(f, p, PAGES / 2 * page);
	prefaulter__ask(f, p + PAGES / 2 * page, PAGES / 2 * page);
	for (int i = 0; i < 500 && resident(p, page) < PAGES; i++)
		nanosleep(&pause, NULL);
	ok(resident(p, page) == PAGES, "the pages asked for are faulted in by the other thread");
	ok(p[0] == 'x' && p[page] == 0, "their contents as they were");
	big_range(f, page, pause);
	/* more than the queue holds: the rest is left to faults on use, not waited for */
	for (int i = 0; i < 4 * PREFAULTER_QUEUE; i++)
		prefaulter__ask(f, p, page);
	prefaulter__free(f);
	prefaulter__free(NULL);
	munmap(p, PAGES * page);
	return tap_done();
}
