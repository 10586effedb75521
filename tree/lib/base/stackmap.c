/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/stackmap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/hugemem.h"

/*
 * A map's first chunk of keys comes from malloc; once it holds that much,
 * the next ones are huge pages, as are its big tables: a fault for each 4 KB
 * of a map of 160 MB of stacks was most of lp-collapse's time on a VM.
 */
enum { ARENA_CHUNK = 1 << 20, HUGE_CHUNK = 4 << 20 };

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	bool huge;	/* from hugemem__alloc(sizeof(chunk) + cap) */
	_Alignas(16) char data[];
};

struct map_slot {
	uint64_t hash;
	struct stack_entry *e;	/* NULL: empty */
};

struct stackmap {
	/*
	 * Open addressing, linear probing; each slot keeps its entry's hash, so
	 * a probe past another key reads no entry (a cache miss each, with
	 * entries spread over megabytes).
	 */
	struct map_slot *slots;
	size_t mask;
	struct stack_entry **entries;	/* by id */
	size_t n, entries_cap;
	struct stack_entry **sorted;
	size_t sorted_n;
	struct arena_chunk *chunks;
	size_t arena_bytes;	/* in all chunks */
};

/* A table of n empty slots, or NULL. */
static struct map_slot *new_slots(size_t n)
{
	return n * sizeof(struct map_slot) >= HUGEMEM_FROM ? hugemem__alloc(n * sizeof(struct map_slot)) :
							      calloc(n, sizeof(struct map_slot));
}

static void free_slots(struct map_slot *slots, size_t n)
{
	hugemem__release(slots, n * sizeof(*slots));
}

static void free_sorted(struct stackmap *m)
{
	hugemem__release(m->sorted, m->sorted_n * sizeof(*m->sorted));
	m->sorted = NULL;
}

struct stackmap *stackmap__new(void)
{
	struct stackmap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->mask = 1023;
	m->slots = new_slots(m->mask + 1);
	if (!m->slots) {
		free(m);
		return NULL;
	}
	return m;
}

void stackmap__free(struct stackmap *m)
{
	struct arena_chunk *c, *next;

	if (!m)
		return;
	for (c = m->chunks; c; c = next) {
		next = c->next;
		if (c->huge)
			hugemem__free(c, sizeof(*c) + c->cap);
		else
			free(c);
	}
	free_slots(m->slots, m->mask + 1);
	hugemem__release(m->entries, m->entries_cap * sizeof(*m->entries));
	free_sorted(m);
	free(m);
}

static void *arena_alloc(struct stackmap *m, size_t size)
{
	struct arena_chunk *c = m->chunks;

	size = (size + 15) & ~(size_t)15;
	if (!c || c->cap - c->used < size) {
		bool huge = m->arena_bytes >= ARENA_CHUNK;
		size_t least = huge ? HUGE_CHUNK - sizeof(*c) : ARENA_CHUNK;
		bool own = size > least / 4;	/* a big key gets a chunk of its own */
		size_t cap = own ? size : least;

		if (huge)
			cap = hugemem__round_up(sizeof(*c) + cap) - sizeof(*c);
		c = huge ? hugemem__alloc(sizeof(*c) + cap) : malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->huge = huge;
		m->arena_bytes += cap;
		if (m->chunks && own) {
			/* keep the current chunk first: it still has room */
			c->next = m->chunks->next;
			m->chunks->next = c;
		} else {
			c->next = m->chunks;
			m->chunks = c;
		}
	}
	c->used += size;
	return c->data + c->used - size;
}

static int grow(struct stackmap *m)
{
	size_t mask = m->mask * 2 + 1;
	struct map_slot *slots = new_slots(mask + 1);

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		size_t j = m->entries[i]->hash & mask;

		while (slots[j].e)
			j = (j + 1) & mask;
		slots[j] = (struct map_slot){ m->entries[i]->hash, m->entries[i] };
	}
	free_slots(m->slots, m->mask + 1);
	m->slots = slots;
	m->mask = mask;
	return 0;
}

static struct stack_entry *insert(struct stackmap *m, size_t slot, uint64_t hash,
				  const char *key, size_t len)
{
	struct stack_entry *e;

	if (len > UINT32_MAX || m->n >= UINT32_MAX) {
		errno = EOVERFLOW;
		return NULL;
	}
	if (m->n == m->entries_cap) {
		size_t cap = m->entries_cap ? m->entries_cap * 2 : 1024;
		struct stack_entry **v = hugemem__grow(m->entries, m->entries_cap * sizeof(*v), cap * sizeof(*v));

		if (!v)
			return NULL;
		m->entries = v;
		m->entries_cap = cap;
	}
	e = arena_alloc(m, sizeof(*e) + len);
	if (!e)
		return NULL;
	e->hash = hash;
	e->count[0] = e->count[1] = 0;
	e->id = (uint32_t)m->n;
	e->len = (uint32_t)len;
	memcpy(e->key, key, len);
	m->slots[slot] = (struct map_slot){ hash, e };
	m->entries[m->n++] = e;
	free_sorted(m);
	if (m->n * 2 > m->mask && grow(m) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	return e;
}

/* The slot holding key, or the empty slot where it would go. */
static size_t slot_of(const struct stackmap *m, uint64_t hash, const char *key, size_t len)
{
	size_t i = hash & m->mask;
	const struct map_slot *s;

	while ((s = &m->slots[i])->e) {
		if (s->hash == hash && s->e->len == len && memcmp(s->e->key, key, len) == 0)
			break;
		i = (i + 1) & m->mask;
	}
	return i;
}

struct stack_entry *stackmap__find(const struct stackmap *m, const char *key, size_t len)
{
	return m->slots[slot_of(m, hash_bytes(key, len), key, len)].e;
}

struct stack_entry *stackmap__add(struct stackmap *m, const char *key, size_t len,
				  int col, uint64_t count)
{
	uint64_t hash = hash_bytes(key, len);
	size_t i = slot_of(m, hash, key, len);
	struct stack_entry *e = m->slots[i].e;

	if (!e && !(e = insert(m, i, hash, key, len)))
		return NULL;
	if (e->count[col] > UINT64_MAX - count) {
		errno = EOVERFLOW;
		return NULL;
	}
	e->count[col] += count;
	return e;
}

size_t stackmap__size(const struct stackmap *m)
{
	return m->n;
}

struct stack_entry *stackmap__entry(const struct stackmap *m, uint32_t id)
{
	return id < m->n ? m->entries[id] : NULL;
}

int stack_entry__cmp(const struct stack_entry *a, const struct stack_entry *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->key, b->key, n);

	if (c)
		return c;
	return (a->len > b->len) - (a->len < b->len);
}

static int cmp_entries(const void *a, const void *b)
{
	return stack_entry__cmp(*(struct stack_entry *const *)a,
				*(struct stack_entry *const *)b);
}

struct stack_entry **stackmap__sorted(struct stackmap *m)
{
	if (m->sorted)
		return m->sorted;
	m->sorted_n = m->n ? m->n : 1;
	m->sorted = hugemem__grow(NULL, 0, m->sorted_n * sizeof(*m->sorted));
	if (!m->sorted)
		return NULL;
	if (m->n)
		memcpy(m->sorted, m->entries, m->n * sizeof(*m->sorted));
	qsort(m->sorted, m->n, sizeof(*m->sorted), cmp_entries);
	return m->sorted;
}
