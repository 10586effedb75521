/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The spill file: blocks written, read back through the mapping, pages let go of and read again. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spill.h"
#include "tap.h"

enum { BLOCK = 3 * 4096 + 40, NBLOCKS = 50 };

static void fill(char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (char)(seed * 131 + i * 7);
}

int main(void)
{
	char dir[] = "/tmp/lp-test-spill.XXXXXX", block[BLOCK], want[BLOCK];
	struct spill *s;
	const char *map;
	uint64_t at;
	int bad = 0;

	ok(mkdtemp(dir) != NULL, "a folder for it");
	s = spill__new(dir);
	ok(s != NULL, "made in a folder");
	for (unsigned k = 0; k < NBLOCKS; k++) {
		fill(block, sizeof(block), k);
		bad += spill__append(s, block, sizeof(block), &at) != 0 || at != (uint64_t)k * BLOCK;
	}
	ok(!bad, "blocks appended one after the other");
	ok(spill__size(s) == (uint64_t)NBLOCKS * BLOCK, "its size is theirs");
	ok(rmdir(dir) == 0, "the folder holds no file: it was unlinked from the start");
	map = spill__map(s);
	ok(map != NULL, "mapped");
	bad = 0;
	for (unsigned k = 0; k < NBLOCKS; k++) {
		fill(want, sizeof(want), k);
		bad += memcmp(map + (size_t)k * BLOCK, want, BLOCK) != 0;
	}
	ok(!bad, "every block reads back");
	ok(spill__append(s, block, 1, &at) == -EINVAL, "no appending once mapped");
	spill__release(s);
	fill(want, sizeof(want), NBLOCKS - 1);
	ok(memcmp(map + (size_t)(NBLOCKS - 1) * BLOCK, want, BLOCK) == 0, "pages let go of read again");
	spill__free(s);
	spill__free(NULL);
	errno = 0;
	ok(spill__new("/nonexistent/lp") == NULL && errno == ENOENT, "a folder that is not there: NULL, ENOENT");
	return tap_done();
}
