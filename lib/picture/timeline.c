#include "timeline.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "embed.h"
#include "export-format.h"
#include "hash.h"
#include "htab.h"
#include "json.h"
#include "numparse.h"
#include "srcline.h"
#include "stackmap.h"
#include "strbuf.h"
#include "xml.h"

struct span {
	uint64_t start, end;
	uint32_t stack;		/* its entry in the stacks map */
};

struct spans {
	struct span *v;
	size_t n, cap;
};

struct spawn_frame {
	size_t name, dso;	/* offsets into the thread's spawn text */
	size_t name_len, dso_len;
	uint64_t offset;
	bool has_offset;
};

struct thread {
	size_t band;
	int64_t pid, tid;
	char *comm, *exe, *status;
	ptrdiff_t parent;	/* the spawning thread, or -1 */
	uint64_t spawned;
	struct strbuf spawn_text;
	struct spawn_frame *spawn;
	size_t nspawn;
	bool has_spawn;
	uint64_t start, end;
	bool has_start, has_end;
	bool ended_with_process;	/* no exit of its own: its process's */
	uint64_t first, last;	/* the samples' extent */
	bool seen;
	uint64_t *execs;
	size_t nexecs;
	uint64_t cpu;		/* exact, from a T record */
	bool has_cpu;
	uint64_t sampled_cpu, sampled_off;
	struct spans on, off;
	/* layout */
	size_t row;
	uint32_t depth;
};

/* The thread now using a tid in the band being read. */
struct live {
	struct htab_entry head;
	int64_t tid;
	size_t thread;
};

struct band {
	char *name, *host, *rank;
	uint64_t start, realtime;
	bool has_start, has_realtime;
	bool has_procs;
	uint64_t first, last;	/* everything it holds */
	bool seen;
	size_t first_row, end_row;
};

struct timeline {
	const struct timeline_opts *o;
	struct thread *threads;
	size_t nthreads, cap;
	struct band *bands;
	size_t nbands;
	struct htab live;
	struct stackmap *stacks;	/* key: thread index (8 bytes), then the escaped STACK */
	struct strbuf key;
	size_t cpu_event, off_event;
};

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
static void spans__order(struct spans *s)
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
	if (!tl->stacks) {
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
		t->sampled_cpu += s->s->weight;
		ret = spans__push(&t->on, from, to, e->id);
	} else {
		t->sampled_off += s->s->weight;
		ret = spans__push(&t->off, from, to, e->id);
	}
	if (ret < 0)
		return lp_error__set(x->err, -ENOMEM, "out of memory");
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
		lp_warn(x->o->warn, x->o->ctx, in->name, 0,
			"no P records: threads are placed by their samples and not nested under their parents");
	htab__clear(&tl->live);
	return 0;
}

/* ---- layout ---- */

struct layout {
	struct timeline *tl;
	size_t *band_order;	/* bands as drawn: by rank when every input has one */
	size_t *order;		/* rows: thread indexes */
	size_t nrows;
	size_t *kids;		/* children of each thread, CSR-style */
	size_t *kid_at;
};

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

	parse_u64(tl->bands[x].rank, strlen(tl->bands[x].rank), &rx);
	parse_u64(tl->bands[y].rank, strlen(tl->bands[y].rank), &ry);
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
		if (!tl->bands[b].rank || parse_u64(tl->bands[b].rank, strlen(tl->bands[b].rank), &r) < 0)
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

static int lay_out(struct layout *l)
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

/* ---- writing ---- */

struct clock {
	bool aligned;		/* bands on CLOCK_REALTIME */
	int64_t *shift;		/* per band: add to a time, then subtract origin */
	uint64_t span;
};

static uint64_t rel(const struct clock *c, size_t band, uint64_t t)
{
	int64_t v = (int64_t)t + c->shift[band];

	return v < 0 ? 0 : (uint64_t)v;
}

/*
 * Streams from several hosts share CLOCK_REALTIME (#lp.realtime is its value
 * at #lp.start); without it on every band, each band starts at 0.
 */
static int set_clock(struct timeline *tl, struct clock *c)
{
	int64_t origin = INT64_MAX;
	bool any = false;

	c->shift = calloc(tl->nbands ? tl->nbands : 1, sizeof(*c->shift));
	if (!c->shift)
		return -ENOMEM;
	c->aligned = tl->nbands > 1;
	for (size_t b = 0; b < tl->nbands; b++)
		if (tl->bands[b].seen && !(tl->bands[b].has_start && tl->bands[b].has_realtime))
			c->aligned = false;
	for (size_t b = 0; b < tl->nbands; b++) {
		struct band *bd = &tl->bands[b];

		if (!bd->seen)
			continue;
		c->shift[b] = c->aligned ? (int64_t)(bd->realtime - bd->start) : -(int64_t)bd->first;
		if ((int64_t)bd->first + c->shift[b] < origin)
			origin = (int64_t)bd->first + c->shift[b];
		any = true;
	}
	if (!any)
		origin = 0;
	c->span = 0;
	for (size_t b = 0; b < tl->nbands; b++) {
		c->shift[b] -= origin;
		if (tl->bands[b].seen && rel(c, b, tl->bands[b].last) > c->span)
			c->span = rel(c, b, tl->bands[b].last);
	}
	return 0;
}

static int add_str(struct strbuf *j, const char *s)
{
	return s ? json_string(j, s, strlen(s)) : strbuf__add(j, "null", 4);
}

/* The spawning stack, leaf first, each frame with its file:line where debug information has it. */
static int spawn_json(struct export_ctx *x, struct srclines *src, const struct thread *t, struct strbuf *j)
{
	int ret = strbuf__addc(j, '[');

	for (size_t k = t->nspawn; ret == 0 && k-- > 0;) {
		const struct spawn_frame *f = &t->spawn[k];
		const char *name = t->spawn_text.s + f->name, *dso = t->spawn_text.s + f->dso;
		struct srcline line;
		const char *reason = NULL;
		int found = 0;

		if (k + 1 < t->nspawn)
			ret = strbuf__addc(j, ',');
		if (ret == 0 && src && f->has_offset && (found = srclines__frame(src, dso, f->dso_len, f->offset,
										 k + 1 == t->nspawn, &line, &reason)) < 0)
			ret = found;
		/* said once per file: the picture comes out, without these lines */
		if (reason)
			lp_warn(x->o->warn, x->o->ctx, NULL, 0, "'%.*s': %s: spawning stacks without file:line",
				(int)f->dso_len, dso, reason);
		if (ret == 0 && found > 0) {
			struct strbuf b = STRBUF_INIT;

			ret = strbuf__addf(&b, "%.*s %s:%d", (int)f->name_len, name, line.file, line.line);
			if (ret == 0)
				ret = json_string(j, b.s, b.len);
			strbuf__release(&b);
		} else if (ret == 0) {
			ret = json_string(j, name, f->name_len);
		}
	}
	return ret ? ret : strbuf__addc(j, ']');
}

static int thread_json(struct export_ctx *x, struct timeline *tl, const struct clock *c, struct srclines *src, size_t row,
		       const size_t *order, struct strbuf *j)
{
	const struct thread *t = &tl->threads[order[row]];
	uint64_t start = t->has_start ? t->start : t->first;
	int ret;

	ret = strbuf__addf(j, "%s{\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"d\":%" PRIu32 ",\"p\":%td,"
			   "\"start\":%" PRIu64 ",\"end\":",
			   row ? "," : "", t->pid, t->tid, t->depth,
			   t->parent >= 0 ? (ptrdiff_t)tl->threads[t->parent].row : (ptrdiff_t)-1, rel(c, t->band, start));
	if (ret == 0)
		ret = t->has_end ? strbuf__addf(j, "%" PRIu64, rel(c, t->band, t->end)) : strbuf__add(j, "null", 4);
	if (ret == 0)
		ret = strbuf__addf(j, ",\"withproc\":%s,\"last\":%" PRIu64 ",\"scpu\":%" PRIu64 ",\"soff\":%" PRIu64 ",\"non\":%zu,"
				   "\"noff\":%zu,\"cpu\":",
				   t->ended_with_process ? "true" : "false", rel(c, t->band, t->seen ? t->last : start), t->sampled_cpu, t->sampled_off, t->on.n,
				   t->off.n);
	if (ret == 0)
		ret = t->has_cpu ? strbuf__addf(j, "%" PRIu64, t->cpu) : strbuf__add(j, "null", 4);
	if (ret == 0)
		ret = strbuf__add(j, ",\"comm\":", 8) ?: add_str(j, t->comm ? t->comm : "?");
	if (ret == 0)
		ret = strbuf__add(j, ",\"exe\":", 7) ?: add_str(j, t->exe);
	if (ret == 0)
		ret = strbuf__add(j, ",\"status\":", 10) ?: add_str(j, t->status);
	if (ret == 0)
		ret = strbuf__add(j, ",\"execs\":[", 10);
	for (size_t k = 0; ret == 0 && k < t->nexecs; k++)
		ret = strbuf__addf(j, "%s%" PRIu64, k ? "," : "", rel(c, t->band, t->execs[k]));
	if (ret == 0)
		ret = strbuf__addc(j, ']');
	if (ret == 0 && t->has_spawn) {
		ret = strbuf__addf(j, ",\"spawned\":%" PRIu64 ",\"spawn\":", rel(c, t->band, t->spawned));
		if (ret == 0)
			ret = spawn_json(x, src, t, j);
	}
	return ret ? ret : strbuf__addc(j, '}');
}

static int band_json(const struct band *b, size_t i, struct strbuf *j)
{
	int ret = strbuf__addf(j, "%s{\"rows\":[%zu,%zu],\"name\":", i ? "," : "", b->first_row, b->end_row);

	if (ret == 0)
		ret = add_str(j, b->name);
	if (ret == 0)
		ret = strbuf__add(j, ",\"host\":", 8) ?: add_str(j, b->host);
	if (ret == 0)
		ret = strbuf__add(j, ",\"rank\":", 8) ?: add_str(j, b->rank);
	return ret ? ret : strbuf__addc(j, '}');
}

/*
 * Where each thread's stacks are in the map sorted by key (the thread index
 * first, big-endian: each thread's stacks are one run), and each entry's
 * place in its thread's run.
 */
struct stack_index {
	struct stack_entry **sorted;
	size_t *first;		/* per thread, and one past the last */
	uint32_t *pos;		/* per entry id */
};

static int index_stacks(struct timeline *tl, struct stack_index *si)
{
	size_t n = stackmap__size(tl->stacks), at = 0;

	si->sorted = stackmap__sorted(tl->stacks);
	si->first = calloc(tl->nthreads + 1, sizeof(*si->first));
	si->pos = calloc(n ? n : 1, sizeof(*si->pos));
	if ((!si->sorted && n) || !si->first || !si->pos)
		return -ENOMEM;
	for (size_t t = 0; t <= tl->nthreads; t++) {
		while (at < n) {
			uint64_t id = 0;

			for (int k = 0; k < 8; k++)
				id = id << 8 | (unsigned char)si->sorted[at]->key[k];
			if (id >= t)
				break;
			at++;
		}
		si->first[t] = at;
	}
	for (size_t t = 0; t < tl->nthreads; t++)
		for (size_t k = si->first[t]; k < si->first[t + 1]; k++)
			si->pos[si->sorted[k]->id] = (uint32_t)(k - si->first[t]);
	return 0;
}

/*
 * Intervals of each row as varints, on-CPU then off-CPU: first every
 * interval's gap from the previous end and length, then every interval's
 * stack (its place in the row's list). Apart, each compresses: interleaved,
 * the small stack numbers broke deflate's matches and doubled the file.
 */
static int intervals(struct timeline *tl, const struct clock *c, const struct layout *l,
		     const struct stack_index *si, struct embed *z, struct strbuf *b)
{
	int ret = 0;

	for (int column = 0; ret == 0 && column < 2; column++)
		for (size_t r = 0; ret == 0 && r < l->nrows; r++) {
			const struct thread *t = &tl->threads[l->order[r]];

			for (int which = 0; ret == 0 && which < 2; which++) {
				const struct spans *s = which ? &t->off : &t->on;
				uint64_t prev = 0;

				for (size_t k = 0; ret == 0 && k < s->n; k++) {
					uint64_t a = rel(c, t->band, s->v[k].start), e = rel(c, t->band, s->v[k].end);

					if (column == 0)
						ret = embed_varint(b, a - prev) ?: embed_varint(b, e - a);
					else
						ret = embed_varint(b, si->pos[s->v[k].stack]);
					prev = e;
				}
				if (ret == 0)
					ret = embed__drain(z, b, 1 << 16);
			}
		}
	if (ret == 0)
		ret = embed__drain(z, b, 0);
	strbuf__reset(b);
	return ret;
}

/* Each row's stacks: count, then per stack its length, bytes, on and off weights. */
static int stacks(const struct layout *l, const struct stack_index *si, struct embed *z, struct strbuf *b)
{
	int ret = 0;

	for (size_t r = 0; ret == 0 && r < l->nrows; r++) {
		size_t t = l->order[r];

		ret = embed_varint(b, si->first[t + 1] - si->first[t]);
		for (size_t k = si->first[t]; ret == 0 && k < si->first[t + 1]; k++) {
			const struct stack_entry *e = si->sorted[k];

			ret = embed_varint(b, e->len - 8) ?: strbuf__add(b, e->key + 8, e->len - 8) ?:
				embed_varint(b, e->count[0]) ?: embed_varint(b, e->count[1]);
			if (ret == 0)
				ret = embed__drain(z, b, 1 << 16);
		}
	}
	if (ret == 0)
		ret = embed__drain(z, b, 0);
	strbuf__reset(b);
	return ret;
}

static int emit(FILE *out, const char *s, size_t len)
{
	return len && fwrite_unlocked(s, 1, len, out) != len ? -EIO : 0;
}

#define emit_lit(out, s) emit(out, s, sizeof(s) - 1)

static int emit_xml_text(FILE *out, const char *s)
{
	struct strbuf b = STRBUF_INIT;
	int ret = xml_escape(&b, s, strlen(s));

	if (ret == 0)
		ret = emit(out, b.s, b.len);
	strbuf__release(&b);
	return ret;
}

static int tl_finish(void *st, struct export_ctx *x)
{
	struct timeline *tl = st;
	const struct timeline_opts *o = tl->o;
	struct layout l = { .tl = tl };
	struct clock c = { 0 };
	struct stack_index si = { 0 };
	struct srclines *src = NULL;
	struct strbuf j = STRBUF_INIT;
	struct embed z;
	bool zstarted = false;
	FILE *out = x->out;
	double fs = o->fontsize, top, height, labelw = o->width * 0.22 < 360 ? o->width * 0.22 : 360;
	int ret;

	for (size_t i = 0; i < tl->nthreads; i++) {
		struct thread *t = &tl->threads[i];

		spans__order(&t->on);
		spans__order(&t->off);
	}
	if (tl->nthreads == 0) {
		ret = lp_error__set(x->err, -ENODATA, "no threads in the input: nothing to draw");
		x->err->file = NULL;
		goto cleanup;
	}
	if ((ret = lay_out(&l)) < 0 || (ret = set_clock(tl, &c)) < 0)
		goto nomem;
	if (o->srclines && !(src = srclines__new()))
		goto nomem;
	if (memmem(o->js, o->jslen, "]]>", 3) || memmem(o->css, o->csslen, "]]>", 3)) {
		ret = lp_error__set(x->err, -EINVAL, "the script would end its CDATA section");
		goto cleanup;
	}
	top = fs * 6.5;
	height = top + (double)(l.nrows + tl->nbands) * o->rowheight + fs * 4;
	ret = strbuf__addf(&j, "{\"v\":1,\"cfg\":{\"width\":%d,\"rowh\":%d,\"fs\":%g,\"labelw\":%.0f,\"top\":%.0f,"
			   "\"aligned\":%s,\"span\":%" PRIu64 ",\"title\":",
			   o->width, o->rowheight, fs, labelw, top, c.aligned ? "true" : "false", c.span);
	if (ret == 0)
		ret = add_str(&j, o->title) ?: strbuf__add(&j, "},\"bands\":[", 11);
	for (size_t b = 0; ret == 0 && b < tl->nbands; b++)
		ret = band_json(&tl->bands[l.band_order[b]], b, &j);
	if (ret == 0)
		ret = strbuf__add(&j, "],\"threads\":[", 13);
	for (size_t r = 0; ret == 0 && r < l.nrows; r++)
		ret = thread_json(x, tl, &c, src, r, l.order, &j);
	if (ret == 0)
		ret = strbuf__add(&j, "]}", 2);
	if (ret < 0)
		goto nomem;

	if (fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
			 "<svg version=\"1.1\" id=\"timeline\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\" "
			 "xmlns=\"http://www.w3.org/2000/svg\" xmlns:xhtml=\"http://www.w3.org/1999/xhtml\">\n",
		    o->width, height, o->width, height) < 0)
		goto io;
	ret = emit_lit(out, "<style type=\"text/css\"><![CDATA[\n") ?: emit(out, o->css, o->csslen) ?:
		emit_lit(out, "text { font-family: ") ?: emit_xml_text(out, o->fonttype);
	if (ret == 0 && fprintf(out, "; font-size: %gpx; }\n]]></style>\n", fs) < 0)
		ret = -EIO;
	ret = ret ?: emit_lit(out, "<script type=\"text/ecmascript\"><![CDATA[\n") ?: emit(out, o->js, o->jslen) ?:
		emit_lit(out, "]]></script>\n");
	if (ret < 0)
		goto io;
	if (fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" fill=\"#f8f8f4\"/>\n"
			 "<text id=\"title\" x=\"%.1f\" y=\"%.0f\">",
		    o->width, height, o->width / 2.0, fs * 2) < 0 ||
	    emit_xml_text(out, o->title) < 0 ||
	    fprintf(out, "</text>\n<text id=\"noscript\" x=\"%.1f\" y=\"%.0f\">This timeline is drawn by its script: "
			 "open it in a browser with JavaScript on.</text>\n<g id=\"tl\"></g>\n",
		    o->width / 2.0, top + fs * 2) < 0)
		goto io;
	if (emit_lit(out, "<metadata id=\"lp-timeline\">\n") < 0)
		goto io;
	if (embed__start(&z, out, 6) < 0)
		goto nomem;
	zstarted = true;
	{
		unsigned char len4[4] = { (unsigned char)j.len, (unsigned char)(j.len >> 8),
					  (unsigned char)(j.len >> 16), (unsigned char)(j.len >> 24) };

		if (j.len > UINT32_MAX)
			goto nomem;
		ret = embed__write(&z, len4, 4) ?: embed__write(&z, j.s, j.len);
	}
	strbuf__reset(&j);
	ret = ret ?: index_stacks(tl, &si) ?: intervals(tl, &c, &l, &si, &z, &j) ?: stacks(&l, &si, &z, &j);
	zstarted = false;
	if (ret < 0) {
		embed__abort(&z);
		goto fail;
	}
	if ((ret = embed__finish(&z)) < 0 || emit_lit(out, "</metadata>\n</svg>\n") < 0)
		goto io;
	ret = 0;
	goto cleanup;
io:
	ret = export_write_failed(x);
	goto cleanup;
fail:
	if (ret == -EIO)
		goto io;
nomem:
	ret = lp_error__set(x->err, ret == -EOVERFLOW ? ret : -ENOMEM, "%s",
			    ret == -EOVERFLOW ? "a number does not fit 64 bits" : "out of memory");
cleanup:
	if (zstarted)
		embed__abort(&z);
	strbuf__release(&j);
	srclines__free(src);
	free(c.shift);
	free(l.order);
	free(l.kids);
	free(l.kid_at);
	free(l.band_order);
	free(si.first);
	free(si.pos);
	return ret;
}

static void tl_free(void *st)
{
	struct timeline *tl = st;

	for (size_t i = 0; i < tl->nthreads; i++) {
		struct thread *t = &tl->threads[i];

		free(t->comm);
		free(t->exe);
		free(t->status);
		free(t->execs);
		free(t->spawn);
		strbuf__release(&t->spawn_text);
		free(t->on.v);
		free(t->off.v);
	}
	free(tl->threads);
	for (size_t b = 0; b < tl->nbands; b++) {
		free(tl->bands[b].name);
		free(tl->bands[b].host);
		free(tl->bands[b].rank);
	}
	free(tl->bands);
	htab__release(&tl->live);
	stackmap__free(tl->stacks);
	strbuf__release(&tl->key);
	free(tl);
}

const struct export_ops timeline_ops = {
	.begin = tl_begin,
	.sample = tl_sample,
	.proc = tl_proc,
	.thread = tl_thread,
	.input_end = tl_input_end,
	.finish = tl_finish,
	.free = tl_free,
};
