/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "record/followgate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/htab.h"
#include "record/perfrecord.h"

/* A thread seen: followed, or once followed and gone (open addressing keeps its slot). */
struct followed {
	struct htab_entry head;
	pid_t tid;
	bool on;
	bool exiting;	/* its EXIT was kept: in the exiting list */
	uint64_t since;	/* its FORK's time: an earlier record of its number is another thread's */
};

/* A record held until its task is known, in the round it was read. */
struct held {
	uint64_t time, order;
	unsigned round;
	struct perf_event_header *h;
};

/* A followed thread that exited, forgotten once the round after its exit's has been read. */
struct exiting {
	pid_t tid;
	unsigned round;
};

struct follow_gate {
	struct htab threads;	/* of struct followed */
	struct held *held;
	size_t nheld, held_cap;
	struct exiting *exiting;
	size_t nexiting, exiting_cap;
	unsigned round;
	uint64_t next_order, dropped;
};

struct follow_gate *follow_gate__new(void)
{
	struct follow_gate *g = calloc(1, sizeof(*g));

	if (g)
		g->threads = HTAB_INIT(struct followed);
	return g;
}

void follow_gate__free(struct follow_gate *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->nheld; i++)
		free(g->held[i].h);
	free(g->held);
	free(g->exiting);
	htab__release(&g->threads);
	free(g);
}

static struct followed *find(const struct follow_gate *g, pid_t tid)
{
	uint64_t h = hash_mix((uint64_t)(uint32_t)tid);
	struct followed *e;

	if (!g->threads.n)
		return NULL;
	for (size_t i = h; (e = htab__at(&g->threads, i))->head.used; i++)
		if (e->head.hash == h && e->tid == tid)
			return e;
	return NULL;
}

/* The followed thread a record of tid at time is of, or NULL. */
static struct followed *followed(const struct follow_gate *g, pid_t tid, uint64_t time)
{
	struct followed *e = find(g, tid);

	return e && e->on && time >= e->since ? e : NULL;
}

static int follow_since(struct follow_gate *g, pid_t tid, uint64_t since)
{
	uint64_t h = hash_mix((uint64_t)(uint32_t)tid);
	struct followed *e;

	if (htab__reserve(&g->threads) < 0)
		return -ENOMEM;
	for (size_t i = h; (e = htab__at(&g->threads, i))->head.used; i++)
		if (e->head.hash == h && e->tid == tid)
			break;
	/* (a number a thread that exited had is the new thread's) */
	if (!e->head.used) {
		htab__insert(&g->threads, e, h);
		e->tid = tid;
	}
	e->on = true;
	e->exiting = false;
	e->since = since;
	return 0;
}

int follow_gate__follow(struct follow_gate *g, pid_t tid)
{
	return follow_since(g, tid, 0);
}

static int note_exit(struct follow_gate *g, struct followed *e)
{
	if (g->nexiting == g->exiting_cap) {
		size_t cap = g->exiting_cap ? g->exiting_cap * 2 : 64;
		struct exiting *v = realloc(g->exiting, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		g->exiting = v;
		g->exiting_cap = cap;
	}
	g->exiting[g->nexiting++] = (struct exiting){ e->tid, g->round };
	e->exiting = true;
	return 0;
}

/*
 * Whether h is to be kept, and what keeping it means for the threads
 * followed: 1 kept, 0 not known to be followed, -ENOMEM.
 */
static int decide(struct follow_gate *g, const struct perf_event_header *h)
{
	pid_t parent, tid = perf_record__tid(h, &parent);
	uint64_t time = perf_record__time(h);
	struct followed *e;

	if (tid < 0)
		return 1;
	if (h->type == PERF_RECORD_FORK) {
		if (!followed(g, parent, time))
			return 0;
		return follow_since(g, tid, time) < 0 ? -ENOMEM : 1;
	}
	if (!(e = followed(g, tid, time)))
		return 0;
	if (h->type == PERF_RECORD_EXIT && !e->exiting && note_exit(g, e) < 0)
		return -ENOMEM;
	return 1;
}

int follow_gate__offer(struct follow_gate *g, const struct perf_event_header *h)
{
	int ret = decide(g, h);
	struct perf_event_header *copy;

	if (ret != 0)
		return ret;
	if (g->nheld == g->held_cap) {
		size_t cap = g->held_cap ? g->held_cap * 2 : 256;
		struct held *v = realloc(g->held, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		g->held = v;
		g->held_cap = cap;
	}
	if (!(copy = malloc(h->size)))
		return -ENOMEM;
	memcpy(copy, h, h->size);
	g->held[g->nheld++] = (struct held){ perf_record__time(h), g->next_order++, g->round, copy };
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct held *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void forget_exited(struct follow_gate *g)
{
	size_t kept = 0;

	for (size_t i = 0; i < g->nexiting; i++) {
		struct followed *e;

		if (g->exiting[i].round < g->round) {
			/* unless a FORK gave its number to a new thread meanwhile */
			if ((e = find(g, g->exiting[i].tid)) && e->exiting)
				e->on = e->exiting = false;
		} else {
			g->exiting[kept++] = g->exiting[i];
		}
	}
	g->nexiting = kept;
}

int follow_gate__end_round(struct follow_gate *g, perf_record_fn keep, void *ctx)
{
	size_t still = 0, i;
	int ret = 0;

	qsort(g->held, g->nheld, sizeof(*g->held), by_time);
	for (i = 0; i < g->nheld; i++) {
		struct held *r = &g->held[i];
		int kept = decide(g, r->h);

		if ((ret = kept) < 0 || (kept == 1 && (ret = keep(ctx, r->h)) < 0))
			break;
		if (kept == 1 || r->round < g->round) {
			g->dropped += kept != 1;
			free(r->h);
		} else {
			g->held[still++] = *r;
		}
	}
	ret = ret < 0 ? ret : 0;
	/* what an error left undecided stays held */
	memmove(g->held + still, g->held + i, (g->nheld - i) * sizeof(*g->held));
	g->nheld = still + (g->nheld - i);
	if (ret < 0)
		return ret;
	forget_exited(g);
	g->round++;
	return 0;
}

uint64_t follow_gate__held_from(const struct follow_gate *g)
{
	uint64_t from = UINT64_MAX;

	for (size_t i = 0; i < g->nheld; i++)
		if (g->held[i].time < from)
			from = g->held[i].time;
	return from;
}

uint64_t follow_gate__dropped(const struct follow_gate *g)
{
	return g->dropped;
}
