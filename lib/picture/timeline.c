/* SPDX-License-Identifier: GPL-2.0-or-later */
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

static char *dup_span(struct lp_span s)
{
	char *p = malloc(s.len + 1);

	if (p) {
		memcpy(p, s.s, s.len);
		p[s.len] = 0;
	}
	return p;
}

static int set_string(char **slot, struct lp_span s)
{
	char *p = dup_span(s);

	if (!p)
		return -ENOMEM;
	free(*slot);
	*slot = p;
	return 0;
}

static int spans__push(struct spans *s, uint64_t start, uint64_t end, uint32_t stack)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct span *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct span){ start, end, stack };
	return 0;
}

static int wakes__push(struct wakes *w, uint64_t at, int64_t pid, int64_t tid)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		struct wake *v = realloc(w->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n++] = (struct wake){ at, pid, tid };
	return 0;
}

/* An off-CPU interval [from, to)'s wake-up: as long before its end as it then waited for a CPU. */
static int keep_wake(struct thread *t, const struct lp_sample *s, uint64_t from, uint64_t to, struct lp_error *err)
{
	struct lp_wait w;
	int ret;

	if ((ret = lp_sample__wait(s, &w, err)) < 0)
		return ret;
	if (w.by == LP_WOKEN_UNSEEN)
		return 0;
	if (wakes__push(&t->wakes, w.has_queued && w.queued <= to - from ? to - w.queued : to,
			w.by == LP_WOKEN_BY_THREAD ? w.pid : 0, w.by == LP_WOKEN_BY_THREAD ? w.tid : 0) < 0)
		return lp_error__set(err, -ENOMEM, "out of memory");
	return 0;
}

static int regions__push(struct region_spans *g, struct region_span r)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 8;
		struct region_span *v = realloc(g->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		g->v = v;
		g->cap = cap;
	}
	g->v[g->n++] = r;
	return 0;
}

/* Regions still open as the input ends: to their thread's end. */
void timeline__close_regions(struct thread *t)
{
	uint64_t end = t->has_end ? t->end : t->last;

	for (size_t j = 0; j < t->regions.nopen; j++) {
		struct region_span *g = &t->regions.v[t->regions.open[j]];

		g->end = end > g->start ? end : g->start;
	}
	t->regions.nopen = 0;
}

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start ? 1 : (x->end > y->end) - (x->end < y->end);
}

/*
 * In time order, each starting where the one before ended at the earliest:
 * a sample's CPU time before it can overlap the one before by the timer's
 * jitter. Each keeps its stack: a flame chart draws them one by one.
 */
void timeline__spans_order(struct spans *s)
{
	uint64_t end = 0;

	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), span_cmp);
	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i].start < end)
			s->v[i].start = end;
		if (s->v[i].end < s->v[i].start)
			s->v[i].end = s->v[i].start;
		end = s->v[i].end;
	}
}

static void see(struct timeline *tl, struct thread *t, uint64_t from, uint64_t to)
{
	struct band *b = &tl->bands[t->band];

	if (!t->seen || from < t->first)
		t->first = from;
	if (!t->seen || to > t->last)
		t->last = to;
	t->seen = true;
	if (!b->seen || from < b->first)
		b->first = from;
	if (!b->seen || to > b->last)
		b->last = to;
	b->seen = true;
}

static struct live *live_slot(struct timeline *tl, int64_t tid)
{
	uint64_t h = hash_mix((uint64_t)tid);
	struct live *e;

	for (size_t i = h; (e = htab__at(&tl->live, i))->head.used; i++)
		if (e->tid == tid)
			return e;
	return e;
}

/* The thread using tid now, or a new one: -ENOMEM, else its index. */
static ptrdiff_t thread_of(struct timeline *tl, int64_t pid, int64_t tid, bool fresh)
{
	struct live *e;
	struct thread *t;

	if (htab__reserve(&tl->live) < 0)
		return -ENOMEM;
	e = live_slot(tl, tid);
	if (e->head.used && !fresh)
		return (ptrdiff_t)e->thread;
	if (tl->nthreads == tl->cap) {
		size_t cap = tl->cap ? tl->cap * 2 : 64;
		struct thread *v = realloc(tl->threads, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		tl->threads = v;
		tl->cap = cap;
	}
	t = &tl->threads[tl->nthreads];
	memset(t, 0, sizeof(*t));
	t->band = tl->nbands - 1;
	t->pid = pid;
	t->tid = tid;
	t->parent = -1;
	if (!e->head.used) {
		htab__insert(&tl->live, e, hash_mix((uint64_t)tid));
		e->tid = tid;
	}
	e->thread = tl->nthreads;
	return (ptrdiff_t)tl->nthreads++;
}

static void *tl_begin(struct export_ctx *x)
{
	struct timeline *tl = calloc(1, sizeof(*tl));

	if (!tl)
		return NULL;
	tl->o = x->o->format_opts;
	tl->live = HTAB_INIT(struct live);
	tl->stacks = stackmap__new();
	tl->region_names = stackmap__new();
	if (!tl->stacks || !tl->region_names) {
		stackmap__free(tl->stacks);
		stackmap__free(tl->region_names);
		free(tl);
		errno = ENOMEM;
		return NULL;
	}
	tl->cpu_event = tl->off_event = SIZE_MAX;
	return tl;
}

/* A band for the input being read, made when its first record comes. */
static int band_of_input(struct timeline *tl, struct export_ctx *x)
{
	const struct export_input *in = &x->inputs[x->ninputs - 1];
	struct band *v, *b;

	if (tl->nbands == x->ninputs)
		return 0;
	v = realloc(tl->bands, x->ninputs * sizeof(*v));
	if (!v)
		return -ENOMEM;
	tl->bands = v;
	b = &v[tl->nbands++];
	memset(b, 0, sizeof(*b));
	b->name = strdup(in->name);
	b->host = in->host ? strdup(in->host) : NULL;
	b->rank = in->rank ? strdup(in->rank) : NULL;
	if (!b->name || (in->host && !b->host) || (in->rank && !b->rank))
		return -ENOMEM;
	return 0;
}

static int tl_sample(void *st, struct export_ctx *x, const struct export_sample *s)
{
	struct timeline *tl = st;
	const char *key = x->events[s->event].key;
	bool on = strcmp(key, "cpu") == 0, off = !on && x->events[s->event].offcpu;
	uint64_t from, to;
	ptrdiff_t i;
	struct thread *t;
	struct stack_entry *e;
	int ret;

	if (!on && !off)
		return 0;
	if ((ret = band_of_input(tl, x)) < 0 || (i = thread_of(tl, s->s->pid, s->s->tid, false)) < 0)
		return lp_error__set(x->err, -ENOMEM, "out of memory");
	t = &tl->threads[i];
	if (!t->comm && set_string(&t->comm, s->comm) < 0)
		return lp_error__set(x->err, -ENOMEM, "out of memory");
	/* a cpu sample stands for the CPU time before it, an off-CPU one for its interval */
	from = on ? (s->s->time > s->s->weight ? s->s->time - s->s->weight : 0) : s->s->time;
	to = on ? s->s->time : s->s->time + s->dur;
	/* each thread's stacks, for its flame graph and flame chart */
	strbuf__reset(&tl->key);
	{
		uint64_t id = (uint64_t)i;
		unsigned char be[8];

		for (int k = 0; k < 8; k++)
			be[k] = (unsigned char)(id >> (56 - 8 * k));
		if (strbuf__add(&tl->key, (const char *)be, 8) < 0 ||
		    strbuf__add(&tl->key, s->s->stack.s, s->s->stack.len) < 0 ||
		    !(e = stackmap__add(tl->stacks, tl->key.s, tl->key.len, on ? 0 : 1, s->s->weight)))
			return lp_error__set(x->err, errno == EOVERFLOW ? -EOVERFLOW : -ENOMEM, "%s",
					     errno == EOVERFLOW ? "a thread's total weight does not fit 64 bits" :
					     "out of memory");
	}
	if (on) {
		struct lp_span v;

		t->sampled_cpu += s->s->weight;
		/* time no sample stood for is in the thread's flame graph, not at a place of its row */
		if (lp_sample__attr(s->s, "unsampled", &v))
			return 0;
		ret = spans__push(&t->on, from, to, e->id);
	} else {
		t->sampled_off += s->s->weight;
		ret = spans__push(&t->off, from, to, e->id);
	}
	if (ret < 0)
		return lp_error__set(x->err, -ENOMEM, "out of memory");
	if (off && (ret = keep_wake(t, s->s, from, to, x->err)) < 0)
		return ret;
	see(tl, t, from, to);
	return 0;
}

static int keep_spawn(struct thread *t, const struct export_stack *st)
{
	strbuf__reset(&t->spawn_text);
	free(t->spawn);
	t->nspawn = 0;
	t->spawn = calloc(st->n ? st->n : 1, sizeof(*t->spawn));
	if (!t->spawn)
		return -ENOMEM;
	for (size_t i = 0; i < st->n; i++) {
		const struct export_frame *f = &st->frames[i];
		struct spawn_frame *sf = &t->spawn[i];

		sf->name = t->spawn_text.len;
		sf->name_len = f->name.len;
		if (strbuf__add(&t->spawn_text, f->name.s, f->name.len) < 0 || strbuf__addc(&t->spawn_text, 0) < 0)
			return -ENOMEM;
		sf->dso = t->spawn_text.len;
		sf->dso_len = f->dso.len;
		if (strbuf__add(&t->spawn_text, f->dso.s, f->dso.len) < 0 || strbuf__addc(&t->spawn_text, 0) < 0)
			return -ENOMEM;
		sf->offset = f->offset;
		sf->has_offset = f->has_offset;
	}
	t->nspawn = st->n;
	t->has_spawn = true;
	return 0;
}

static int tl_proc(void *st, struct export_ctx *x, const struct export_proc *xp)
{
	struct timeline *tl = st;
	const struct lp_proc *p = xp->p;
	struct thread *t;
	ptrdiff_t i, parent = -1;
	int ret;

	if ((ret = band_of_input(tl, x)) < 0)
		goto nomem;
	tl->bands[tl->nbands - 1].has_procs = true;
	if (p->what == LP_PROC_SPAWN) {
		/* the parent is known before the child takes a slot that may be its own */
		if ((parent = thread_of(tl, p->ppid, p->ptid, false)) < 0)
			goto nomem;
		if (!tl->threads[parent].comm && set_string(&tl->threads[parent].comm, xp->comm) < 0)
			goto nomem;
		i = thread_of(tl, p->pid, p->tid, false);
		/* a tid used again after its thread ended is a new thread */
		if (i >= 0 && (tl->threads[i].has_spawn || tl->threads[i].has_end))
			i = thread_of(tl, p->pid, p->tid, true);
	} else {
		i = thread_of(tl, p->pid, p->tid, false);
	}
	if (i < 0)
		goto nomem;
	t = &tl->threads[i];
	switch (p->what) {
	case LP_PROC_SPAWN:
		t->parent = parent == i ? -1 : parent;
		t->spawned = p->time;
		if (!t->has_start || p->time < t->start) {
			t->start = p->time;
			t->has_start = true;
		}
		if (keep_spawn(t, &xp->stack) < 0 || set_string(&t->comm, xp->comm) < 0)
			goto nomem;
		break;
	case LP_PROC_EXEC: {
		uint64_t *v = realloc(t->execs, (t->nexecs + 1) * sizeof(*v));

		if (!v)
			goto nomem;
		t->execs = v;
		v[t->nexecs++] = p->time;
		if (set_string(&t->exe, xp->path) < 0 || set_string(&t->comm, xp->comm) < 0)
			goto nomem;
		break;
	}
	case LP_PROC_COMM:
		if (set_string(&t->comm, xp->comm) < 0)
			goto nomem;
		break;
	case LP_PROC_EXIT: {
		struct lp_span v;

		t->end = p->time;
		t->has_end = true;
		if (!t->comm && set_string(&t->comm, xp->comm) < 0)
			goto nomem;
		if (lp_attrs__find(xp->fields->v, xp->fields->n, "status", &v) && set_string(&t->status, v) < 0)
			goto nomem;
		break;
	}
	default:
		return 0;
	}
	see(tl, t, p->time, p->time);
	return 0;
nomem:
	return lp_error__set(x->err, -ENOMEM, "out of memory");
}

static int tl_thread(void *st, struct export_ctx *x, const struct export_thread *xt)
{
	struct timeline *tl = st;
	const struct lp_thread *lt = xt->t;
	struct thread *t;
	uint64_t v;
	ptrdiff_t i;
	int ret;

	if (band_of_input(tl, x) < 0 || (i = thread_of(tl, lt->pid, lt->tid, false)) < 0)
		return lp_error__set(x->err, -ENOMEM, "out of memory");
	t = &tl->threads[i];
	if (!t->comm && set_string(&t->comm, xt->comm) < 0)
		return lp_error__set(x->err, -ENOMEM, "out of memory");
	if ((ret = lp_thread__attr_u64(lt, "cpu", &v)) < 0)
		return lp_error__set(x->err, ret, "cpu= is not a number");
	if (ret) {
		t->cpu = v;
		t->has_cpu = true;
	}
	if ((ret = lp_thread__attr_u64(lt, "start", &v)) < 0)
		return lp_error__set(x->err, ret, "start= is not a number");
	if (ret && (!t->has_start || v < t->start)) {
		t->start = v;
		t->has_start = true;
		see(tl, t, v, v);
	}
	if ((ret = lp_thread__attr_u64(lt, "end", &v)) < 0)
		return lp_error__set(x->err, ret, "end= is not a number");
	if (ret && !t->has_end) {
		t->end = v;
		t->has_end = true;
		see(tl, t, v, v);
	}
	return 0;
}

static int tl_input_end(void *st, struct export_ctx *x)
{
	struct timeline *tl = st;
	const struct export_input *in = &x->inputs[x->ninputs - 1];
	struct band *b;

	/* an input with no records still gets its (empty) band: say it was read */
	if (band_of_input(tl, x) < 0)
		return lp_error__set(x->err, -ENOMEM, "out of memory");
	b = &tl->bands[tl->nbands - 1];
	b->start = in->start;
	b->has_start = in->has_start;
	b->realtime = in->realtime;
	b->has_realtime = in->has_realtime;
	if (!b->has_procs && b->seen)
		lp_error__warn(x->o->warn, x->o->ctx, in->name, 0,
			"no P records: threads are placed by their samples and not nested under their parents");
	htab__clear(&tl->live);
	return 0;
}

/* A C record: a region begins on its thread, or ends with those opened inside it (an end of none is left out). */
static int tl_region(void *st, struct export_ctx *x, const struct lp_region *c)
{
	struct timeline *tl = st;
	struct region_spans *g;
	struct stack_entry *e;
	ptrdiff_t i;
	size_t k;

	if (band_of_input(tl, x) < 0 || (i = thread_of(tl, c->pid, c->tid, false)) < 0)
		return lp_error__set(x->err, -ENOMEM, "out of memory");
	g = &tl->threads[i].regions;
	if (c->begin) {
		if (g->nopen == g->open_cap) {
			size_t cap = g->open_cap ? g->open_cap * 2 : 4, *v = realloc(g->open, cap * sizeof(*v));

			if (!v)
				return lp_error__set(x->err, -ENOMEM, "out of memory");
			g->open = v;
			g->open_cap = cap;
		}
		if (!(e = stackmap__add(tl->region_names, c->name.s, c->name.len, 0, 1)) ||
		    regions__push(g, (struct region_span){ c->time, 0, e->id, (uint32_t)g->nopen }) < 0)
			return lp_error__set(x->err, -ENOMEM, "out of memory");
		g->open[g->nopen++] = g->n - 1;
		return 0;
	}
	for (k = g->nopen; k > 0; k--) {
		const struct stack_entry *n = stackmap__entry(tl->region_names, g->v[g->open[k - 1]].name);

		if (n && lp_span__eq(c->name, n->key, n->len))
			break;
	}
	if (k == 0)
		return 0;
	for (size_t j = k - 1; j < g->nopen; j++)
		g->v[g->open[j]].end = c->time;
	g->nopen = k - 1;
	return 0;
}

const struct export_ops timeline__ops = {
	.region = tl_region,
	.begin = tl_begin,
	.sample = tl_sample,
	.proc = tl_proc,
	.thread = tl_thread,
	.input_end = tl_input_end,
	.finish = timeline__finish,
	.free = timeline__free,
};
