/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The timeline laid out: bands (by rank when every input has one), rows nested by spawn tree. */
#include "picture/timeline-int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "picture/embed.h"
#include "export/export-format.h"
#include "base/hash.h"
#include "base/htab.h"
#include "base/json.h"
#include "base/numparse.h"
#include "symbols/srcline.h"
#include "base/stackmap.h"
#include "base/strbuf.h"
#include "base/xml.h"

static int thread_start_cmp(const void *a, const void *b, void *ctx)
{
	const struct timeline *tl = ctx;
	const struct thread *x = &tl->threads[*(const size_t *)a], *y = &tl->threads[*(const size_t *)b];
	uint64_t xs = x->has_start ? x->start : x->first, ys = y->has_start ? y->start : y->first;

	if (xs != ys)
		return xs < ys ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * A process's row is its main thread's; its other threads follow one level
 * deeper, then the processes it spawned, each with their own below them.
 * Explicit stack: spawn trees of make are hundreds of levels of shells deep.
 */
static void place(struct layout *l, size_t root)
{
	struct timeline *tl = l->tl;
	size_t *stack = l->order + tl->nthreads;	/* second half of order: the to-do stack */
	size_t top = 0;

	stack[top++] = root;
	tl->threads[root].depth = 0;
	while (top) {
		size_t i = stack[--top];
		struct thread *t = &tl->threads[i];
		size_t from = l->kid_at[i], to = l->kid_at[i + 1];

		t->row = l->nrows;
		l->order[l->nrows++] = i;
		/*
		 * Popped last in, first out: its processes go on first, then its
		 * threads, each in reverse, so that its threads come out first, in order.
		 */
		for (int threads = 0; threads < 2; threads++)
			for (size_t k = to; k-- > from;) {
				struct thread *c = &tl->threads[l->kids[k]];

				if ((c->pid == t->pid) != threads || c->row != SIZE_MAX)
					continue;
				c->depth = t->depth + 1;
				stack[top++] = l->kids[k];
			}
	}
}

static int rank_cmp(const void *a, const void *b, void *ctx)
{
	const struct timeline *tl = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t rx = 0, ry = 0;

	numparse__u64(tl->bands[x].rank, strlen(tl->bands[x].rank), &rx);
	numparse__u64(tl->bands[y].rank, strlen(tl->bands[y].rank), &ry);
	if (rx != ry)
		return rx < ry ? -1 : 1;
	return (x > y) - (x < y);
}

static void order_bands(const struct timeline *tl, size_t *order)
{
	bool ranked = true;

	for (size_t b = 0; b < tl->nbands; b++) {
		uint64_t r;

		order[b] = b;
		if (!tl->bands[b].rank || numparse__u64(tl->bands[b].rank, strlen(tl->bands[b].rank), &r) < 0)
			ranked = false;
	}
	if (ranked)
		qsort_r(order, tl->nbands, sizeof(*order), rank_cmp, (void *)tl);
}

/* Key of a process in a band: its main thread is the one whose tid is its pid. */
static uint64_t proc_hash(size_t band, int64_t pid)
{
	return hash_mix((uint64_t)pid * 0x9e3779b97f4a7c15u ^ band);
}

/*
 * A thread with no spawn record (there before the recording began) hangs
 * under its process's main thread.
 */
static int adopt_threads(struct timeline *tl)
{
	struct htab mains = HTAB_INIT(struct live);
	struct live *e;

	for (size_t i = 0; i < tl->nthreads; i++) {
		const struct thread *t = &tl->threads[i];
		uint64_t h = proc_hash(t->band, t->pid);

		if (t->tid != t->pid)
			continue;
		if (htab__reserve(&mains) < 0) {
			htab__release(&mains);
			return -ENOMEM;
		}
		for (size_t k = h; (e = htab__at(&mains, k))->head.used; k++)
			if (e->head.hash == h && tl->threads[e->thread].pid == t->pid &&
			    tl->threads[e->thread].band == t->band)
				break;
		if (!e->head.used) {
			htab__insert(&mains, e, h);
			e->thread = i;
		}
	}
	for (size_t i = 0; mains.n && i < tl->nthreads; i++) {
		struct thread *t = &tl->threads[i];
		uint64_t h = proc_hash(t->band, t->pid);

		if (t->parent >= 0 || t->tid == t->pid)
			continue;
		for (size_t k = h; (e = htab__at(&mains, k))->head.used; k++)
			if (e->head.hash == h && tl->threads[e->thread].pid == t->pid &&
			    tl->threads[e->thread].band == t->band) {
				t->parent = (ptrdiff_t)e->thread;
				break;
			}
	}
	/* a thread outlives neither its process nor the exit of its main thread */
	for (size_t i = 0; mains.n && i < tl->nthreads; i++) {
		struct thread *t = &tl->threads[i];
		uint64_t h = proc_hash(t->band, t->pid);

		if (t->has_end || t->tid == t->pid)
			continue;
		for (size_t k = h; (e = htab__at(&mains, k))->head.used; k++)
			if (e->head.hash == h && tl->threads[e->thread].pid == t->pid &&
			    tl->threads[e->thread].band == t->band) {
				const struct thread *m = &tl->threads[e->thread];

				if (m->has_end && (!t->seen || m->end >= t->last)) {
					t->end = m->end;
					t->has_end = t->ended_with_process = true;
				}
				break;
			}
	}
	htab__release(&mains);
	return 0;
}

int timeline__lay_out(struct layout *l)
{
	struct timeline *tl = l->tl;
	size_t n = tl->nthreads, *roots = NULL, nroots = 0;
	int ret = -ENOMEM;

	l->order = malloc(sizeof(size_t) * (2 * n + 1));
	l->kids = malloc(sizeof(size_t) * (n + 1));
	l->kid_at = calloc(n + 2, sizeof(size_t));
	roots = malloc(sizeof(size_t) * (n + 1));
	l->band_order = malloc(sizeof(size_t) * (tl->nbands + 1));
	if (!l->order || !l->kids || !l->kid_at || !roots || !l->band_order)
		goto cleanup;
	order_bands(tl, l->band_order);
	/*
	 * A thread hangs under its spawner; a process's other threads (no spawn
	 * record: they were there before the recording) under its main thread.
	 */
	if (adopt_threads(tl) < 0)
		goto cleanup;
	for (size_t i = 0; i < n; i++) {
		tl->threads[i].row = SIZE_MAX;
		if (tl->threads[i].parent >= 0)
			l->kid_at[tl->threads[i].parent + 1]++;
	}
	for (size_t i = 0; i < n; i++)
		l->kid_at[i + 1] += l->kid_at[i];
	{
		size_t *fill = l->order;	/* scratch until the rows are placed */

		memcpy(fill, l->kid_at, sizeof(size_t) * (n + 1));
		for (size_t i = 0; i < n; i++) {
			if (tl->threads[i].parent >= 0)
				l->kids[fill[tl->threads[i].parent]++] = i;
			else
				roots[nroots++] = i;
		}
	}
	for (size_t i = 0; i < n; i++)
		qsort_r(l->kids + l->kid_at[i], l->kid_at[i + 1] - l->kid_at[i], sizeof(size_t), thread_start_cmp, tl);
	qsort_r(roots, nroots, sizeof(size_t), thread_start_cmp, tl);
	/* bands in rank order (a job's streams come in glob order: 10 before 2), roots by start within each */
	for (size_t k = 0; k < tl->nbands; k++) {
		size_t b = l->band_order[k];

		tl->bands[b].first_row = l->nrows;
		for (size_t r = 0; r < nroots; r++)
			if (tl->threads[roots[r]].band == b)
				place(l, roots[r]);
		/* spawn records that make a loop (a damaged stream): each thread still gets its row */
		for (size_t i = 0; i < n; i++)
			if (tl->threads[i].band == b && tl->threads[i].row == SIZE_MAX) {
				tl->threads[i].parent = -1;
				place(l, i);
			}
		tl->bands[b].end_row = l->nrows;
	}
	ret = 0;
cleanup:
	free(roots);
	return ret;
}
