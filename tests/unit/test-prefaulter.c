/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pages asked for are faulted in by the prefaulter's thread, their contents kept. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "prefaulter.h"
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
	/* more than the queue holds: the rest is left to faults on use, not waited for */
	for (int i = 0; i < 4 * PREFAULTER_QUEUE; i++)
		prefaulter__ask(f, p, page);
	prefaulter__free(f);
	prefaulter__free(NULL);
	munmap(p, PAGES * page);
	return tap_done();
}
