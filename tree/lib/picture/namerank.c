/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "picture/namerank.h"

#include <errno.h>
#include <stdlib.h>

#include "base/hash.h"
#include "base/htab.h"

/* A rank past the first few of its parent name's. */
struct later_callee {
	struct htab_entry head;
	uint64_t key;	/* parent << 32 | name */
	uint32_t rank;
};

enum { FIRST_CALLEES = 4 };

/*
 * Per parent name: how many distinct children so far, and the first few of
 * them in order (their ranks are their places + 1): most functions call
 * few others, and one cache line answers without the table.
 */
struct callees {
	uint32_t seen;
	uint32_t first[FIRST_CALLEES];
};

struct namerank {
	struct callees *by_parent;
	size_t names;
	struct htab later;	/* struct later_callee */
};

struct namerank *namerank__new(size_t names)
{
	struct namerank *r = calloc(1, sizeof(*r));

	if (!r || !(r->by_parent = calloc(names ? names : 1, sizeof(*r->by_parent)))) {
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	r->names = names;
	r->later = HTAB_INIT(struct later_callee);
	return r;
}

void namerank__free(struct namerank *r)
{
	if (!r)
		return;
	free(r->by_parent);
	htab__release(&r->later);
	free(r);
}

int namerank__rank(struct namerank *r, uint32_t parent, uint32_t name, uint32_t *rank)
{
	uint64_t key = (uint64_t)parent << 32 | name, h = hash_mix(key);
	struct later_callee *e;
	struct callees *c;
	int ret;

	if (parent >= r->names || name >= r->names)
		return -EINVAL;
	c = &r->by_parent[parent];
	for (uint32_t k = 0; k < c->seen && k < FIRST_CALLEES; k++) {
		if (c->first[k] == name) {
			*rank = k + 1;
			return 0;
		}
	}
	*rank = 0;
	if (c->seen < FIRST_CALLEES) {
		c->first[c->seen++] = name;
		return 0;
	}
	if ((ret = htab__reserve(&r->later)) < 0)
		return ret;
	for (size_t i = h; (e = htab__at(&r->later, i))->head.used; i++) {
		if (e->head.hash == h && e->key == key) {
			*rank = e->rank;
			return 0;
		}
	}
	htab__insert(&r->later, e, h);
	e->key = key;
	e->rank = ++c->seen;
	return 0;
}
