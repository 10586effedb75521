#include "stackmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

enum { ARENA_CHUNK = 1 << 20 };

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
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
	struct arena_chunk *chunks;
};

struct stackmap *stackmap__new(void)
{
	struct stackmap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->mask = 1023;
	m->slots = calloc(m->mask + 1, sizeof(*m->slots));
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
		free(c);
	}
	free(m->slots);
	free(m->entries);
	free(m->sorted);
	free(m);
}

static void *arena_alloc(struct stackmap *m, size_t size)
{
	struct arena_chunk *c = m->chunks;

	size = (size + 15) & ~(size_t)15;
	if (!c || c->cap - c->used < size) {
		size_t cap = size > ARENA_CHUNK / 4 ? size : ARENA_CHUNK;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		if (m->chunks && cap != ARENA_CHUNK) {
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
	struct map_slot *slots = calloc(mask + 1, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		size_t j = m->entries[i]->hash & mask;

		while (slots[j].e)
			j = (j + 1) & mask;
		slots[j] = (struct map_slot){ m->entries[i]->hash, m->entries[i] };
	}
	free(m->slots);
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
		struct stack_entry **v = realloc(m->entries, cap * sizeof(*v));

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
	free(m->sorted);
	m->sorted = NULL;
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
	m->sorted = malloc((m->n ? m->n : 1) * sizeof(*m->sorted));
	if (!m->sorted)
		return NULL;
	if (m->n)
		memcpy(m->sorted, m->entries, m->n * sizeof(*m->sorted));
	qsort(m->sorted, m->n, sizeof(*m->sorted), cmp_entries);
	return m->sorted;
}
