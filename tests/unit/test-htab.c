/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdint.h>

#include "base/hash.h"
#include "base/htab.h"
#include "tap.h"

struct counter {
	struct htab_entry head;
	uint64_t key;
	int count;
};

/* The counter of key, added (at zero) when new; NULL when out of memory. */
static struct counter *counter(struct htab *t, uint64_t key, uint64_t hash)
{
	struct counter *c;

	if (htab__reserve(t) < 0)
		return NULL;
	for (size_t i = hash; (c = htab__at(t, i))->head.used; i++)
		if (c->head.hash == hash && c->key == key)
			return c;
	htab__insert(t, c, hash);
	c->key = key;
	return c;
}

int main(void)
{
	struct htab t = HTAB_INIT(struct counter);
	struct counter *c;
	size_t seen = 0, i = 0;
	long sum = 0;
	int good = 1;

	ok(!htab__next(&t, &i) && t.n == 0, "a new table is empty and can be walked");
	for (int round = 0; round < 3; round++)
		for (uint64_t k = 0; k < 50000; k++)
			if ((c = counter(&t, k, hash_mix(k))))
				c->count++;
			else
				good = 0;
	ok(good && t.n == 50000, "50000 keys (0 among them) added three times, kept once each");
	ok(t.n * 2 <= t.mask + 1, "grown to stay at most half full");
	good = 1;
	for (uint64_t k = 0; k < 50000; k++)
		good &= (c = counter(&t, k, hash_mix(k))) && c->count == 3;
	ok(good && t.n == 50000, "every key found again after growing, with its count");
	/* every key in one bucket: probing alone tells them apart */
	struct htab same = HTAB_INIT(struct counter);

	good = 1;
	for (uint64_t k = 0; k < 1000; k++)
		good &= (c = counter(&same, k, 42)) && ++c->count == 1;
	for (uint64_t k = 0; k < 1000; k++)
		good &= (c = counter(&same, k, 42)) && c->count == 1;
	ok(good && same.n == 1000, "keys of one hash are kept apart");
	for (i = 0; (c = htab__next(&t, &i));) {
		seen++;
		sum += c->count;
	}
	ok(seen == 50000 && sum == 150000, "walking visits every entry once");
	htab__clear(&t);
	i = 0;
	ok(t.n == 0 && !htab__next(&t, &i), "cleared: empty");
	ok((c = counter(&t, 7, hash_mix(7))) && c->count == 0 && t.n == 1, "a cleared table takes new keys");
	/* made ready for n: n keys go in without growing it */
	{
		struct htab ready = HTAB_INIT(struct counter);
		size_t mask;

		good = htab__expect(&ready, 20000) == 0;
		mask = ready.mask;
		for (uint64_t k = 0; good && k < 20000; k++)
			good &= (c = counter(&ready, k, hash_mix(k))) != NULL;
		ok(good && ready.n == 20000 && ready.mask == mask && mask + 1 >= 40000,
		   "a table expecting 20000 keys takes them without growing");
		ok(htab__expect(&ready, 10) == 0 && ready.mask == mask && ready.n == 20000 &&
		   (c = counter(&ready, 1234, hash_mix(1234))) && c->count == 0 && ready.n == 20000,
		   "expecting fewer than it holds changes nothing, its keys kept");
		htab__release(&ready);
	}
	htab__release(&t);
	htab__release(&same);
	htab__release(&same);
	ok(t.n == 0 && !t.slots, "released twice: no-op");
	return tap_done();
}
