#include "namerank.h"

#include <errno.h>
#include <stdlib.h>

#include "hash.h"

struct pair_slot {
	uint64_t key;	/* parent << 32 | name, plus one: 0 is empty */
	uint32_t rank;
};

struct namerank {
	uint32_t *seen;		/* per parent name: how many distinct children so far */
	size_t names;
	struct pair_slot *slots;
	size_t mask, used;
};

struct namerank *namerank__new(size_t names)
{
	struct namerank *r = calloc(1, sizeof(*r));

	if (!r)
		goto fail;
	r->names = names;
	r->mask = 4095;
	r->seen = calloc(names ? names : 1, sizeof(*r->seen));
	r->slots = calloc(r->mask + 1, sizeof(*r->slots));
	if (!r->seen || !r->slots)
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
	free(r->seen);
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
	size_t i;

	if (parent >= r->names || name >= r->names)
		return -EINVAL;
	for (i = hash_mix(key) & r->mask; r->slots[i].key; i = (i + 1) & r->mask) {
		if (r->slots[i].key == key) {
			*rank = r->slots[i].rank;
			return 0;
		}
	}
	r->slots[i].key = key;
	r->slots[i].rank = ++r->seen[parent];
	*rank = 0;
	if (++r->used * 2 > r->mask)
		return grow(r);
	return 0;
}
