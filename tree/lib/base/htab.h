/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One open-addressing hash table (linear probing, grown at half full) for
 * every table in lp: each keeps its own entry type, which starts with a
 * struct htab_entry, and its own comparison; the probing and growing are here.
 *
 *	struct name { struct htab_entry head; pid_t tid; char *comm; };
 *	struct htab names = HTAB_INIT(struct name);
 *	struct name *e;
 *
 *	if (htab__reserve(&names) < 0)		// before probing for an insert
 *		return -ENOMEM;
 *	for (size_t i = h; (e = htab__at(&names, i))->head.used; i++)
 *		if (e->head.hash == h && e->tid == tid)
 *			return e;
 *	htab__insert(&names, e, h);		// e: the free slot the probe ended on
 */
#ifndef LP_HTAB_H
#define LP_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct htab_entry {
	uint64_t hash;
	bool used;
};

struct htab {
	unsigned char *slots;
	size_t entry_size, mask, n;
};

#define HTAB_INIT(type) ((struct htab){ .entry_size = sizeof(type) })

int htab__grow(struct htab *t);

/* Room for one more entry: slots allocated, grown when half full. -ENOMEM. */
static inline int htab__reserve(struct htab *t)
{
	if (t->slots && (t->n + 1) * 2 <= t->mask + 1)
		return 0;
	return htab__grow(t);
}

/* Room for n entries in all, the slots faulted in now (hugemem__prefault): 0 or -ENOMEM. */
int htab__expect(struct htab *t, size_t n);

/* Slot i (modulo the size); only once reserved, or when t->n > 0. */
static inline void *htab__at(const struct htab *t, size_t i)
{
	return t->slots + (i & t->mask) * t->entry_size;
}

/* Fills the free slot e a probe ended on (which the caller then fills in). */
static inline void htab__insert(struct htab *t, void *e, uint64_t hash)
{
	struct htab_entry *head = e;

	head->hash = hash;
	head->used = true;
	t->n++;
}

/* Every used entry in turn: for (i = 0; (e = htab__next(t, &i));). */
void *htab__next(const struct htab *t, size_t *i);

/* Empties the table, keeping its slots. */
void htab__clear(struct htab *t);

/* Frees the slots (not what entries point to); the table is empty and reusable. */
void htab__release(struct htab *t);

#endif
