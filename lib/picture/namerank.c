#include "namerank.h"

#include <errno.h>
#include <stdlib.h>

#include "hash.h"

struct pair_slot {
	uint64_t key;	/* parent << 32 | name, plus one: 0 is empty */
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
	struct pair_slot *slots;	/* the ranks past the first few */
	size_t mask, used;
};

struct namerank *namerank__new(size_t names)
{
	struct namerank *r = calloc(1, sizeof(*r));

	if (!r)
		goto fail;
	r->names = names;
	r->mask = 4095;
	r->by_parent = calloc(names ? names : 1, sizeof(*r->by_parent));
	r->slots = calloc(r->mask + 1, sizeof(*r->slots));
	if (!r->by_parent || !r->slots)
		goto fail;
	return r;
fail:
	namerank__free(r);
	errno = ENOMEM;
	return NULL;
}

void namerank__free(struct namerank *r)
{
	if (!r)
		return;
	free(r->by_parent);
	free(r->slots);
	free(r);
}

static int grow(struct namerank *r)
{
	size_t mask = r->mask * 2 + 1;
	struct pair_slot *v = calloc(mask + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i <= r->mask; i++) {
		size_t j;

		if (!r->slots[i].key)
			continue;
		for (j = hash_mix(r->slots[i].key) & mask; v[j].key; j = (j + 1) & mask)
			;
		v[j] = r->slots[i];
	}
	free(r->slots);
	r->slots = v;
	r->mask = mask;
	return 0;
}

int namerank__rank(struct namerank *r, uint32_t parent, uint32_t name, uint32_t *rank)
{
	uint64_t key = ((uint64_t)parent << 32 | name) + 1;
	struct callees *c;
	size_t i;

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
	for (i = hash_mix(key) & r->mask; r->slots[i].key; i = (i + 1) & r->mask) {
		if (r->slots[i].key == key) {
			*rank = r->slots[i].rank;
			return 0;
		}
	}
	r->slots[i].key = key;
	r->slots[i].rank = ++c->seen;
	if (++r->used * 2 > r->mask)
		return grow(r);
	return 0;
}
