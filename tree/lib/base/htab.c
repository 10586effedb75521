/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/htab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hugemem.h"

enum { HTAB_FIRST_SLOTS = 256 };

/* Tables of a few MB in huge pages: hundreds of page faults otherwise */
static void *table_alloc(size_t slots, size_t entry_size)
{
	return slots * entry_size >= HUGEMEM_FROM ? hugemem__alloc(slots * entry_size) : calloc(slots, entry_size);
}

static void table_free(struct htab *t)
{
	hugemem__release(t->slots, (t->mask + 1) * t->entry_size);
}

/*
 * Slots for a table of at least slots: a table in huge pages takes as many
 * as they hold, since they are faulted in whole anyway, and growing stops at
 * fewer, bigger steps (a fresh huge page is the dearest thing a table costs
 * in a VM: see hugemem__prefault).
 */
static size_t slots_for(size_t slots, size_t entry_size)
{
	size_t bytes = slots * entry_size, whole = hugemem__round_up(bytes);

	if (bytes < HUGEMEM_FROM)
		return slots;
	while (slots * 2 * entry_size <= whole)
		slots *= 2;
	return slots;
}

int htab__grow(struct htab *t)
{
	size_t slots = slots_for(t->slots ? (t->mask + 1) * 2 : HTAB_FIRST_SLOTS, t->entry_size);
	unsigned char *v;

	if (!(v = table_alloc(slots, t->entry_size)))
		return -ENOMEM;
	for (size_t i = 0; t->slots && i <= t->mask; i++) {
		const struct htab_entry *e = (const void *)(t->slots + i * t->entry_size);
		size_t j;

		if (!e->used)
			continue;
		for (j = e->hash & (slots - 1); ((struct htab_entry *)(void *)(v + j * t->entry_size))->used;
		     j = (j + 1) & (slots - 1))
			;
		memcpy(v + j * t->entry_size, e, t->entry_size);
	}
	table_free(t);
	t->slots = v;
	t->mask = slots - 1;
	return 0;
}

int htab__expect(struct htab *t, size_t n)
{
	int ret;

	while (!t->slots || n * 2 > t->mask + 1)
		if ((ret = htab__grow(t)) < 0)
			return ret;
	hugemem__prefault(t->slots, (t->mask + 1) * t->entry_size);
	return 0;
}

void *htab__next(const struct htab *t, size_t *i)
{
	for (; t->slots && *i <= t->mask; (*i)++) {
		struct htab_entry *e = htab__at(t, *i);

		if (e->used) {
			(*i)++;
			return e;
		}
	}
	return NULL;
}

void htab__clear(struct htab *t)
{
	if (t->slots)
		memset(t->slots, 0, (t->mask + 1) * t->entry_size);
	t->n = 0;
}

void htab__release(struct htab *t)
{
	table_free(t);
	t->slots = NULL;
	t->mask = 0;
	t->n = 0;
}
