/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "record/stackdelta.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/htab.h"

/* Below this a reference saves too little for what reading it back costs. */
enum { MIN_SHARED = 512 };
/*
 * A whole copy that served this many samples, each of which kept more than a
 * third of its copy as its own, makes way for the next one: what differs
 * may lie high in the copy, where the newer copy has it. (Above a thread's
 * stack lie its thread control block and TLS, copied too, and the kernel
 * rewrites its rseq area there as it moves to another CPU: a whole copy
 * taken on the other CPU left bench/workload.c's samples 3-5 KB of their own
 * instead of 800 bytes, 50-100 MB more for 40000 samples, spilled to disk.)
 */
enum { REFRESH_AFTER = 8 };

struct whole_copy {
	struct htab_entry head;
	pid_t tid;
	uint32_t seq;
	uint32_t mostly_own;	/* samples since it was kept that differ from it in a third of their copy */
	uint64_t sp;
	size_t size, cap;
	uint8_t *bytes;
};

struct stack_deltas {
	struct htab copies;	/* of struct whole_copy, by tid */
};

struct stack_deltas *stack_deltas__new(void)
{
	struct stack_deltas *d = calloc(1, sizeof(*d));

	if (d)
		d->copies = HTAB_INIT(struct whole_copy);
	return d;
}

void stack_deltas__free(struct stack_deltas *d)
{
	struct whole_copy *c;

	if (!d)
		return;
	for (size_t i = 0; (c = htab__next(&d->copies, &i));)
		free(c->bytes);
	htab__release(&d->copies);
	free(d);
}

static struct whole_copy *copy_of(struct stack_deltas *d, pid_t tid)
{
	uint64_t h = hash_mix((uint64_t)(uint32_t)tid);
	struct whole_copy *c;

	if (!d->copies.n)
		return NULL;
	for (size_t i = h; (c = htab__at(&d->copies, i))->head.used; i++)
		if (c->head.hash == h && c->tid == tid)
			return c->bytes ? c : NULL;
	return NULL;
}

size_t stack_deltas__shared(struct stack_deltas *d, pid_t tid, uint64_t sp, const uint8_t *stack, size_t size,
			    uint32_t *key)
{
	struct whole_copy *c = copy_of(d, tid);
	uint64_t end = sp + size, low, at;

	/* the whole copy must hold this one's top end (a shallower sample's copy reaches higher) */
	if (!c || size < MIN_SHARED || end > c->sp + c->size || end <= c->sp)
		return 0;
	low = sp > c->sp ? sp : c->sp;
	/* alike from the top down, a word at a time: where the two stacks part, the rest differs */
	for (at = end; at - 8 >= low && at >= 8; at -= 8)
		if (memcmp(stack + (at - 8 - sp), c->bytes + (at - 8 - c->sp), 8) != 0)
			break;
	if (end - at < MIN_SHARED)
		return 0;
	if ((size - (end - at)) * 3 > size && ++c->mostly_own > REFRESH_AFTER)
		return 0;
	*key = c->seq;
	return (size_t)(end - at);
}

int stack_deltas__keep(struct stack_deltas *d, pid_t tid, uint32_t seq, uint64_t sp, const uint8_t *stack,
		       size_t size)
{
	uint64_t h = hash_mix((uint64_t)(uint32_t)tid);
	struct whole_copy *c;

	/* (the kernel could copy nothing: nothing to refer to) */
	if (!size)
		return 0;
	if (htab__reserve(&d->copies) < 0)
		return -ENOMEM;
	for (size_t i = h; (c = htab__at(&d->copies, i))->head.used; i++)
		if (c->head.hash == h && c->tid == tid)
			goto found;
	htab__insert(&d->copies, c, h);
	c->tid = tid;
	c->bytes = NULL;
	c->cap = 0;
found:
	if (size > c->cap) {
		uint8_t *b = realloc(c->bytes, size);

		if (!b)
			return -ENOMEM;
		c->bytes = b;
		c->cap = size;
	}
	memcpy(c->bytes, stack, size);
	c->seq = seq;
	c->mostly_own = 0;
	c->sp = sp;
	c->size = size;
	return 0;
}

void stack_deltas__forget(struct stack_deltas *d, pid_t tid)
{
	struct whole_copy *c = copy_of(d, tid);

	if (c) {
		free(c->bytes);
		c->bytes = NULL;
		c->cap = c->size = 0;
	}
}
