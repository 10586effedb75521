/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The spill file: blocks written, read back through the mapping, pages let go of and read again. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/spill.h"
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

	/* blocks handed over to be written on the file's thread, each collected before the next */
	strcpy(dir, "/tmp/lp-test-spill.XXXXXX");
	ok(mkdtemp(dir) != NULL, "another folder");
	s = spill__new(dir);
	ok(s != NULL, "made in it");
	if (!s)
		return tap_done();
	ok(spill__collect(s, &at) == 0, "nothing handed over: nothing to collect");
	bad = 0;
	for (unsigned k = 0; k < NBLOCKS; k++) {
		fill(block, sizeof(block), k);
		bad += spill__put(s, block, sizeof(block)) != 0;
		if (k == 0)
			ok(spill__put(s, block, sizeof(block)) == -EBUSY, "one at a time: the next waits for its collection");
		bad += spill__collect(s, &at) != 1 || at != (uint64_t)k * BLOCK;
	}
	ok(!bad, "each written after the last, at its offset");
	fill(block, sizeof(block), NBLOCKS);
	ok(spill__put(s, block, sizeof(block)) == 0, "one more handed over, not collected");
	map = spill__map(s);
	ok(map != NULL && spill__size(s) == (uint64_t)(NBLOCKS + 1) * BLOCK, "mapping waits for it");
	bad = 0;
	for (unsigned k = 0; k <= NBLOCKS; k++) {
		fill(want, sizeof(want), k);
		bad += memcmp(map + (size_t)k * BLOCK, want, BLOCK) != 0;
	}
	ok(!bad, "every block reads back");
	ok(spill__put(s, block, 1) == -EINVAL, "nothing handed over once mapped");
	spill__free(s);
	ok(rmdir(dir) == 0, "no file left");
	/* (a full disk's error, and the records kept in memory: tests/lp-offcpu.bats, on a small tmpfs) */
	errno = 0;
	ok(spill__new("/nonexistent/lp") == NULL && errno == ENOENT, "a folder that is not there: NULL, ENOENT");
	return tap_done();
}
