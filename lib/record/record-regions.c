/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The writer's code regions: each probe sample of the recorded processes as
 * a C record, regions kept nested per thread. An end whose region is not
 * open is counted, not written; an end of an outer region closes the inner
 * ones still open, and a thread's exit those still open, each counted.
 */
#include "writer-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "perfevent.h"
#include "regions.h"

static struct open_regions *open_of(struct writer *w, pid_t tid, bool add)
{
	uint64_t h = hash_mix((uint64_t)tid);
	struct open_regions *e;

	if (add && htab__reserve(&w->regions) < 0)
		return NULL;
	if (!w->regions.slots)
		return NULL;
	for (size_t i = h; (e = htab__at(&w->regions, i))->head.used; i++)
		if (e->head.hash == h && e->tid == tid)
			return e;
	if (!add)
		return NULL;
	htab__insert(&w->regions, e, h);
	e->tid = tid;
	e->names = NULL;
	e->n = e->cap = 0;
	return e;
}

static int push(struct open_regions *o, const char *name)
{
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 4;
		char **v = realloc(o->names, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		o->names = v;
		o->cap = cap;
	}
	if (!(o->names[o->n] = strdup(name)))
		return -ENOMEM;
	o->n++;
	return 0;
}

static void note_first(char *first, size_t size, const char *name)
{
	if (!first[0])
		snprintf(first, size, "%s", name);
}

/* Ends the innermost n - keep regions of o at time, each written. */
static int close_down_to(struct writer *w, struct open_regions *o, size_t keep, pid_t pid, uint64_t time)
{
	int ret;

	while (o->n > keep) {
		o->n--;
		ret = lp_writer__region(&w->out, time, pid, o->tid, false, o->names[o->n]);
		if (ret == 0)
			ret = lp_writer__end(&w->out);
		free(o->names[o->n]);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int writer_write_region(struct writer *w, const struct perf_event_header *h, int index)
{
	char buf[LP_REGION_NAME_CAP];
	struct region_hit hit;
	struct open_regions *o;
	size_t k;
	int ret = region_probes__read(w->r->regions, index, h, buf, sizeof(buf), &hit);

	if (ret == -ENOENT) {
		w->stats->region_unnamed++;
		return 0;
	}
	if (ret < 0)
		return 0;
	/* the probes fire in any process that runs them: the recorded ones have their mappings known */
	if (!symbolizer__maps(w->sym, hit.pid, hit.ip))
		return 0;
	if (!(o = open_of(w, hit.tid, true)))
		return -ENOMEM;
	if (hit.begin) {
		if ((ret = push(o, hit.name)) < 0 ||
		    (ret = lp_writer__region(&w->out, hit.time, hit.pid, hit.tid, true, hit.name)) < 0)
			return ret;
		w->stats->regions++;
		return lp_writer__end(&w->out);
	}
	for (k = o->n; k > 0 && strcmp(o->names[k - 1], hit.name) != 0; k--)
		;
	if (k == 0) {
		w->stats->region_orphans++;
		note_first(w->stats->first_orphan, sizeof(w->stats->first_orphan), hit.name);
		return 0;
	}
	/* inner regions left open: closed with it */
	for (size_t i = k; i < o->n; i++) {
		w->stats->region_unclosed++;
		note_first(w->stats->first_unclosed, sizeof(w->stats->first_unclosed), o->names[i]);
	}
	return close_down_to(w, o, k - 1, hit.pid, hit.time);
}

int writer_close_regions(struct writer *w, pid_t pid, pid_t tid, uint64_t time)
{
	struct open_regions *o = open_of(w, tid, false);
	int ret;

	if (!o || !o->n)
		return 0;
	for (size_t i = 0; i < o->n; i++) {
		w->stats->region_unclosed++;
		note_first(w->stats->first_unclosed, sizeof(w->stats->first_unclosed), o->names[i]);
	}
	ret = close_down_to(w, o, 0, pid, time);
	return ret;
}

void writer_free_regions(struct writer *w)
{
	struct open_regions *o;

	for (size_t i = 0; (o = htab__next(&w->regions, &i));) {
		for (size_t k = 0; k < o->n; k++)
			free(o->names[k]);
		free(o->names);
	}
	htab__release(&w->regions);
}
