/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/stackmap.h"
#include "tap.h"

/* The length of key number round in the big-key test: the sizes in turn, then only small ones. */
static size_t key_len(int round)
{
	static const size_t sizes[] = { 300 << 10, 10, 1500 << 10, 5 << 20, 7 };
	size_t len = sizes[round % 5];

	return len > 1000 && round > 10 ? 600 : len;
}

int main(void)
{
	struct stackmap *m = stackmap__new();
	struct stack_entry **sorted, *e;
	char key[32];
	int good = 1;

	for (int round = 0; round < 3; round++)
		for (int i = 0; i < 100000; i++) {
			int n = snprintf(key, sizeof(key), "main;f%d", i);

			if (!stackmap__add(m, key, (size_t)n, 0, (uint64_t)i))
				good = 0;
		}
	ok(good && stackmap__size(m) == 100000, "100000 unique keys added three times");
	e = stackmap__add(m, "main;f77", 8, 1, 5);
	ok(e && e->count[0] == 3 * 77 && e->count[1] == 5 && e->id == 77,
	   "counts summed per column, ids in insertion order");
	ok(stackmap__find(m, "main;f77", 8) == e, "find gives the entry of a key");
	ok(!stackmap__find(m, "main;f", 6) && stackmap__size(m) == 100000, "find of a missing key adds nothing");
	stackmap__add(m, "main", 4, 0, 1);
	stackmap__add(m, "main;", 5, 0, 1);
	stackmap__add(m, "main\xff", 5, 0, 1);
	sorted = stackmap__sorted(m);
	for (size_t i = 1; i < stackmap__size(m); i++)
		if (stack_entry__cmp(sorted[i - 1], sorted[i]) >= 0)
			good = 0;
	ok(good, "sorted strictly by bytes");
	ok(sorted[0]->len == 4 && sorted[1]->len == 5 && sorted[1]->key[4] == ';',
	   "a prefix sorts first");
	ok(sorted[stackmap__size(m) - 1]->key[4] == '\xff', "bytes compare unsigned");
	stackmap__add(m, "big", 3, 0, UINT64_MAX);
	errno = 0;
	ok(!stackmap__add(m, "big", 3, 0, 1) && errno == EOVERFLOW, "a sum past 64 bits fails");
	stackmap__free(m);

	/* keys of every size, before and after the map's memory moves to huge pages, each kept whole */
	{
		struct stackmap *big = stackmap__new();
		size_t nkeys = 0, wrong = 0;
		char *text = malloc(5 << 20);

		for (size_t i = 0; text && i < (size_t)(5 << 20); i++)
			text[i] = (char)('a' + i * 7919 % 26);
		for (int round = 0; text && big && round < 4000; round++) {
			size_t len = key_len(round);

			/* each key a different slice: the round in its first bytes */
			memcpy(text, &round, sizeof(round));
			if (!stackmap__add(big, text, len, 0, 1) || !stackmap__add(big, text, len, 1, 2))
				wrong++;
			nkeys++;
		}
		for (int round = 0; text && big && round < 4000; round++) {
			size_t len = key_len(round);
			struct stack_entry *k;

			memcpy(text, &round, sizeof(round));
			k = stackmap__find(big, text, len);
			wrong += !k || k->id != (uint32_t)round || k->len != len || memcmp(k->key, text, len) != 0 ||
				 k->count[0] != 1 || k->count[1] != 2 || stackmap__entry(big, (uint32_t)round) != k;
		}
		ok(text && big && wrong == 0 && stackmap__size(big) == nkeys,
		   "keys of 7 bytes to 5 MB, past the first MB of keys: each found whole, with its id and counts");
		stackmap__free(big);
		free(text);
	}
	stackmap__free(NULL);
	ok(1, "stackmap__free(NULL) is a no-op");
	return tap_done();
}
