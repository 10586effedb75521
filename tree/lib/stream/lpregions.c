/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Each thread's open code regions, from the C records read. */
#include "stream/lpregions.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/htab.h"

struct open {
	struct htab_entry head;
	int64_t tid;
	struct lp_span *names;	/* copies, outermost first */
	size_t n, cap;
};

struct lp_regions {
	struct htab threads;
};

struct lp_regions *lp_regions__new(void)
{
	struct lp_regions *g = calloc(1, sizeof(*g));

	if (g)
		g->threads = HTAB_INIT(struct open);
	return g;
}

static void drop_to(struct open *o, size_t n)
{
	while (o->n > n)
		free((char *)o->names[--o->n].s);
}

void lp_regions__free(struct lp_regions *g)
{
	struct open *o;

	if (!g)
		return;
	for (size_t i = 0; (o = htab__next(&g->threads, &i));) {
		drop_to(o, 0);
		free(o->names);
	}
	htab__release(&g->threads);
	free(g);
}

static struct open *open_of(const struct lp_regions *g, int64_t tid, bool add)
{
	uint64_t h = hash_mix((uint64_t)tid);
	struct open *o;

	if (add && htab__reserve((struct htab *)&g->threads) < 0)
		return NULL;
	if (!g->threads.slots)
		return NULL;
	for (size_t i = h; (o = htab__at(&g->threads, i))->head.used; i++)
		if (o->tid == tid)
			return o;
	if (!add)
		return NULL;
	htab__insert((struct htab *)&g->threads, o, h);
	o->tid = tid;
	o->names = NULL;
	o->n = o->cap = 0;
	return o;
}

long lp_regions__find(const struct lp_regions *g, int64_t tid, struct lp_span name)
{
	const struct open *o = open_of(g, tid, false);

	for (size_t k = o ? o->n : 0; k > 0; k--)
		if (lp_span__eq(o->names[k - 1], name.s, name.len))
			return (long)k - 1;
	return -1;
}

int lp_regions__add(struct lp_regions *g, const struct lp_region *c)
{
	struct open *o = open_of(g, c->tid, c->begin);
	long k;
	char *copy;

	if (!c->begin) {
		int inner;

		if ((k = lp_regions__find(g, c->tid, c->name)) < 0)
			return 1;
		inner = o->n > (size_t)k + 1;
		drop_to(o, (size_t)k);
		return inner ? 2 : 0;
	}
	if (!o)
		return -ENOMEM;
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 4;
		struct lp_span *v = realloc(o->names, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		o->names = v;
		o->cap = cap;
	}
	if (!(copy = malloc(c->name.len + 1)))
		return -ENOMEM;
	memcpy(copy, c->name.s, c->name.len);
	copy[c->name.len] = 0;
	o->names[o->n++] = (struct lp_span){ copy, c->name.len };
	return 0;
}

size_t lp_regions__open(const struct lp_regions *g, int64_t tid, const struct lp_span **names)
{
	const struct open *o = open_of(g, tid, false);

	*names = o ? o->names : NULL;
	return o ? o->n : 0;
}

size_t lp_regions__end_thread(struct lp_regions *g, int64_t tid)
{
	struct open *o = open_of(g, tid, false);
	size_t n = o ? o->n : 0;

	if (o)
		drop_to(o, 0);
	return n;
}
