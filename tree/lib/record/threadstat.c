/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "record/threadstat.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/hash.h"
#include "base/htab.h"

struct entry {
	struct htab_entry head;
	bool removed;
	struct thread_stat s;
};

struct thread_stats {
	struct htab table;
};

struct thread_stats *thread_stats__new(void)
{
	struct thread_stats *t = calloc(1, sizeof(*t));

	if (t)
		t->table = HTAB_INIT(struct entry);
	return t;
}

void thread_stats__free(struct thread_stats *t)
{
	if (!t)
		return;
	htab__release(&t->table);
	free(t);
}

static uint64_t hash_of(pid_t tid)
{
	return hash_mix((uint64_t)(uint32_t)tid);
}

static struct entry *lookup(struct thread_stats *t, pid_t tid)
{
	uint64_t h = hash_of(tid);
	struct entry *e;

	if (!t->table.n)
		return NULL;
	for (size_t i = h; (e = htab__at(&t->table, i))->head.used; i++)
		if (e->head.hash == h && !e->removed && e->s.tid == tid)
			return e;
	return NULL;
}

struct thread_stat *thread_stats__find(struct thread_stats *t, pid_t tid)
{
	struct entry *e = lookup(t, tid);

	return e ? &e->s : NULL;
}

struct thread_stat *thread_stats__get(struct thread_stats *t, pid_t pid, pid_t tid)
{
	uint64_t h = hash_of(tid);
	struct entry *e = lookup(t, tid);

	if (e)
		return &e->s;
	if (htab__reserve(&t->table) < 0)
		return NULL;
	for (size_t i = h; (e = htab__at(&t->table, i))->head.used; i++)
		;
	htab__insert(&t->table, e, h);
	e->removed = false;
	e->s = (struct thread_stat){ .pid = pid, .tid = tid };
	return &e->s;
}

void thread_stats__remove(struct thread_stats *t, pid_t tid)
{
	struct entry *e = lookup(t, tid);

	/* a tombstone: probes for other threads go on past it */
	if (e)
		e->removed = true;
}

struct thread_stat *thread_stats__next(struct thread_stats *t, size_t *i)
{
	struct entry *e;

	while ((e = htab__next(&t->table, i)))
		if (!e->removed)
			return &e->s;
	return NULL;
}

bool thread_stat__strays(const struct thread_stat *s, unsigned tolerance_pct, uint64_t min_ns)
{
	uint64_t diff;

	if (!s->has_cpu || s->cpu < min_ns)
		return false;
	diff = s->sampled_cpu > s->cpu ? s->sampled_cpu - s->cpu : s->cpu - s->sampled_cpu;
	return diff * 100 > (uint64_t)tolerance_pct * s->cpu;
}

bool thread_stats__cpu_so_far(pid_t pid, pid_t tid, uint64_t *ns)
{
	char path[64];
	unsigned long long v;
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	if (!(f = fopen(path, "r")))
		return false;
	ok = fscanf(f, "%llu", &v) == 1;
	fclose(f);
	if (ok)
		*ns = v;
	return ok;
}
