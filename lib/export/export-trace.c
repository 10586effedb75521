/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Trace Event JSON format (Perfetto UI, chrome://tracing): one track per
 * thread under its process. On-CPU samples in a row with the same leaf frame
 * become one complete ("X") slice named by that frame; each off-CPU interval
 * is a slice of its real length; custom events, exec, spawn and exit are
 * instant events; comm and T records are thread metadata. Slices of a thread
 * never overlap and are written in time order (a sample's span is
 * [TIME - WEIGHT, TIME], cut where the thread's previous slice ended), so
 * every viewer nests them the same way. Only one open run per thread is
 * kept: memory grows with threads, not samples.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-format.h"
#include "base/hash.h"
#include "base/htab.h"
#include "base/json.h"
#include "base/strbuf.h"

struct thread {
	int64_t pid, tid;
	uint64_t last_end;	/* where its last written slice ended */
	bool in_run;
	uint64_t run_start, run_end, run_samples, run_weight;
	struct strbuf run_leaf, run_stack;
	struct strbuf comm;	/* as last named in the trace */
	bool named;
};

struct thread_slot {
	struct htab_entry head;
	struct thread *t;
};

struct trace {
	struct htab threads;
	struct strbuf ev;	/* the event being built */
	struct strbuf name;	/* a slice's prefixed name */
	bool first;		/* no event written yet: no comma before it */
};

static void *begin(struct export_ctx *x)
{
	struct trace *tr = calloc(1, sizeof(*tr));

	if (!tr)
		return NULL;
	tr->threads = HTAB_INIT(struct thread_slot);
	tr->first = true;
	if (fputs("{\"traceEvents\":[\n", x->out) == EOF) {
		free(tr);
		errno = EIO;
		return NULL;
	}
	return tr;
}

static void thread_free(struct thread *t)
{
	strbuf__release(&t->run_leaf);
	strbuf__release(&t->run_stack);
	strbuf__release(&t->comm);
	free(t);
}

static void clear_threads(struct trace *tr)
{
	struct thread_slot *e;

	for (size_t i = 0; (e = htab__next(&tr->threads, &i));)
		thread_free(e->t);
	htab__clear(&tr->threads);
}

static void free_state(void *st)
{
	struct trace *tr = st;

	clear_threads(tr);
	htab__release(&tr->threads);
	strbuf__release(&tr->ev);
	strbuf__release(&tr->name);
	free(tr);
}

static struct thread *thread_of(struct trace *tr, int64_t pid, int64_t tid)
{
	uint64_t h = hash_mix(hash_word((uint64_t)pid, (uint64_t)tid));
	struct thread_slot *e;

	if (htab__reserve(&tr->threads) < 0)
		return NULL;
	for (size_t i = h; (e = htab__at(&tr->threads, i))->head.used; i++)
		if (e->head.hash == h && e->t->pid == pid && e->t->tid == tid)
			return e->t;
	e->t = calloc(1, sizeof(*e->t));
	if (!e->t)
		return NULL;
	e->t->pid = pid;
	e->t->tid = tid;
	htab__insert(&tr->threads, e, h);
	return e->t;
}

static bool holds(const struct strbuf *b, struct lp_span s)
{
	return b->len == s.len && (s.len == 0 || memcmp(b->s, s.s, s.len) == 0);
}

/* ---- building events ---- */

static int ts(struct strbuf *b, const char *key, uint64_t ns)
{
	return strbuf__addf(b, ",\"%s\":%" PRIu64 ".%03" PRIu64, key, ns / 1000, ns % 1000);
}

static int key_string(struct strbuf *b, const char *key, const char *s, size_t len)
{
	int ret = strbuf__addf(b, ",\"%s\":", key);

	return ret ? ret : json__string(b, s, len);
}

/* Starts {"ph":PH,"pid":..,"tid":..[,"ts":..]: the caller adds the rest, then end_event. */
static int start_event(struct trace *tr, const char *ph, const struct thread *t)
{
	strbuf__reset(&tr->ev);
	return strbuf__addf(&tr->ev, "%s{\"ph\":\"%s\",\"pid\":%" PRId64 ",\"tid\":%" PRId64,
			    tr->first ? "" : ",\n", ph, t->pid, t->tid);
}

static int end_event(struct trace *tr, struct export_ctx *x)
{
	int ret = strbuf__addc(&tr->ev, '}');

	if (ret < 0)
		return lp_error__set(x->err, ret, "out of memory");
	if (fwrite(tr->ev.s, 1, tr->ev.len, x->out) != tr->ev.len)
		return export__write_failed(x);
	tr->first = false;
	return 0;
}

static int stack_text(struct strbuf *b, const struct export_stack *s)
{
	int ret = 0;

	strbuf__reset(b);
	for (size_t i = 0; ret == 0 && i < s->n; i++) {
		if (i)
			ret = strbuf__addc(b, ';');
		if (ret == 0)
			ret = strbuf__add(b, s->frames[i].name.s, s->frames[i].name.len);
	}
	return ret;
}

static struct lp_span leaf_of(const struct export_stack *s)
{
	return s->n ? s->frames[s->n - 1].name : LP_SPAN("[no stack]");
}

/* Names the thread (and its process, from its main thread) when its comm is new. */
static int name_thread(struct trace *tr, struct export_ctx *x, struct thread *t, struct lp_span comm)
{
	const struct export_input *in = &x->inputs[x->ninputs - 1];
	int ret;

	if (t->named && holds(&t->comm, comm))
		return 0;
	t->named = true;
	strbuf__reset(&t->comm);
	if ((ret = strbuf__add(&t->comm, comm.s, comm.len)) < 0 || (ret = start_event(tr, "M", t)) < 0 ||
	    (ret = add_lit(&tr->ev, ",\"name\":\"thread_name\",\"args\":{\"name\":")) < 0 ||
	    (ret = json__string(&tr->ev, comm.s, comm.len)) < 0 || (ret = strbuf__addc(&tr->ev, '}')) < 0)
		return lp_error__set(x->err, ret, "out of memory");
	if ((ret = end_event(tr, x)) < 0 || t->pid != t->tid)
		return ret;
	/* processes carry the host and rank of their recording, where it has them */
	if ((ret = start_event(tr, "M", t)) < 0 ||
	    (ret = add_lit(&tr->ev, ",\"name\":\"process_name\",\"args\":{\"name\":")) < 0 ||
	    (ret = json__string(&tr->ev, comm.s, comm.len)) < 0 ||
	    (in->host && (ret = key_string(&tr->ev, "host", in->host, strlen(in->host))) < 0) ||
	    (in->rank && (ret = key_string(&tr->ev, "rank", in->rank, strlen(in->rank))) < 0) ||
	    (ret = strbuf__addc(&tr->ev, '}')) < 0)
		return lp_error__set(x->err, ret, "out of memory");
	return end_event(tr, x);
}

/* Writes a slice [start, end) on t's track; later slices start no earlier than its end. */
static int slice(struct trace *tr, struct thread *t, const char *cat, const char *prefix,
		 struct lp_span name, uint64_t start, uint64_t end)
{
	int ret;

	if (start < t->last_end)
		start = t->last_end;
	if (end < start)
		end = start;
	t->last_end = end;
	if ((ret = start_event(tr, "X", t)) < 0 || (ret = strbuf__addf(&tr->ev, ",\"cat\":\"%s\"", cat)) < 0 ||
	    (ret = ts(&tr->ev, "ts", start)) < 0 || (ret = ts(&tr->ev, "dur", end - start)) < 0 ||
	    (ret = strbuf__addf(&tr->ev, ",\"name\":")) < 0)
		return ret;
	if (!*prefix)
		return json__string(&tr->ev, name.s, name.len);
	/* the prefix and name as one string, built where the last one was */
	strbuf__reset(&tr->name);
	ret = strbuf__add(&tr->name, prefix, strlen(prefix)) ?: strbuf__add(&tr->name, name.s, name.len);
	return ret ? ret : json__string(&tr->ev, tr->name.s, tr->name.len);
}

static int close_run(struct trace *tr, struct export_ctx *x, struct thread *t)
{
	int ret;

	if (!t->in_run)
		return 0;
	t->in_run = false;
	ret = slice(tr, t, "on-CPU", "", lp_span__of(&t->run_leaf), t->run_start, t->run_end);
	if (ret == 0)
		ret = strbuf__addf(&tr->ev, ",\"args\":{\"samples\":%" PRIu64 ",\"weight_ns\":%" PRIu64,
				   t->run_samples, t->run_weight);
	if (ret == 0)
		ret = key_string(&tr->ev, "stack", t->run_stack.s, t->run_stack.len);
	if (ret == 0)
		ret = strbuf__addc(&tr->ev, '}');
	if (ret < 0)
		return lp_error__set(x->err, ret, "out of memory");
	return end_event(tr, x);
}

static int on_cpu(struct trace *tr, struct export_ctx *x, struct thread *t, const struct export_sample *xs,
		  const struct export_stack *stack)
{
	const struct lp_sample *s = xs->s;
	struct lp_span leaf = leaf_of(stack);
	uint64_t start = s->time > s->weight ? s->time - s->weight : 0;
	int ret;

	/* a run goes on while the leaf stays and the thread was not away for longer than a sample */
	if (t->in_run && (!holds(&t->run_leaf, leaf) ||
			  start > t->run_end + s->weight)) {
		if ((ret = close_run(tr, x, t)) < 0)
			return ret;
	}
	if (!t->in_run) {
		t->in_run = true;
		t->run_start = start;
		t->run_samples = t->run_weight = 0;
		strbuf__reset(&t->run_leaf);
		if (strbuf__add(&t->run_leaf, leaf.s, leaf.len) < 0 || stack_text(&t->run_stack, stack) < 0)
			return lp_error__set(x->err, -ENOMEM, "out of memory");
	}
	if (s->time > t->run_end || t->run_samples == 0)
		t->run_end = s->time;
	t->run_samples++;
	t->run_weight += s->weight;
	return 0;
}

/* KEY=VALUE fields as ,"KEY":"VALUE" members of the object being built (a bare KEY is true). */
static int attrs_json(struct strbuf *b, const struct lp_span *attrs, size_t n)
{
	int ret = 0;

	for (size_t i = 0; ret == 0 && i < n; i++) {
		const char *eq = memchr(attrs[i].s, '=', attrs[i].len);
		size_t klen = eq ? (size_t)(eq - attrs[i].s) : attrs[i].len;

		ret = strbuf__addc(b, ',') ?: json__string(b, attrs[i].s, klen) ?: strbuf__addc(b, ':') ?:
			(eq ? json__string(b, eq + 1, attrs[i].len - klen - 1) : add_lit(b, "true"));
	}
	return ret;
}

static int sample_args(struct trace *tr, const struct export_sample *xs, const struct export_stack *frames)
{
	struct strbuf stack = STRBUF_INIT;
	int ret = stack_text(&stack, frames);

	if (ret == 0)
		ret = strbuf__addf(&tr->ev, ",\"args\":{\"weight\":%" PRIu64, xs->s->weight);
	if (ret == 0)
		ret = key_string(&tr->ev, "stack", stack.s, stack.len);
	/* the record's own attributes: state=, fd=, count=... */
	if (ret == 0)
		ret = attrs_json(&tr->ev, xs->s->attrs, xs->s->nattrs);
	if (ret == 0)
		ret = strbuf__addc(&tr->ev, '}');
	strbuf__release(&stack);
	return ret;
}

static int sample(void *st, struct export_ctx *x, const struct export_sample *xs)
{
	struct trace *tr = st;
	const struct export_event *ev = &x->events[xs->event];
	struct thread *t = thread_of(tr, xs->s->pid, xs->s->tid);
	struct export_stack stack;
	int ret;

	if (!t)
		return lp_error__set(x->err, -ENOMEM, "out of memory");
	if ((ret = name_thread(tr, x, t, xs->comm)) < 0 || (ret = export_sample__stack(x, &stack)) < 0)
		return ret;
	if (!ev->offcpu && ev->in_ns)
		return on_cpu(tr, x, t, xs, &stack);
	if ((ret = close_run(tr, x, t)) < 0)
		return ret;
	if (ev->offcpu) {
		ret = slice(tr, t, "off-CPU", "[off-CPU] ", leaf_of(&stack), xs->s->time, xs->s->time + xs->dur);
	} else {
		ret = start_event(tr, "i", t);
		if (ret == 0)
			ret = add_lit(&tr->ev, ",\"s\":\"t\",\"cat\":\"event\"");
		if (ret == 0)
			ret = ts(&tr->ev, "ts", xs->s->time);
		if (ret == 0)
			ret = key_string(&tr->ev, "name", ev->key, strlen(ev->key));
	}
	if (ret == 0)
		ret = sample_args(tr, xs, &stack);
	if (ret < 0)
		return lp_error__set(x->err, ret, "out of memory");
	return end_event(tr, x);
}

static int proc(void *st, struct export_ctx *x, const struct export_proc *xp)
{
	struct trace *tr = st;
	const struct lp_proc *p = xp->p;
	struct thread *t = thread_of(tr, p->pid, p->tid);
	struct strbuf stack = STRBUF_INIT;
	struct lp_span v;
	int ret;

	if (!t)
		return lp_error__set(x->err, -ENOMEM, "out of memory");
	if ((ret = close_run(tr, x, t)) < 0)
		return ret;
	if (p->what == LP_PROC_EXEC)
		t->named = false;	/* named anew below, the process too */
	if ((ret = name_thread(tr, x, t, xp->comm)) < 0 || p->what == LP_PROC_COMM || p->what == LP_PROC_OTHER)
		return ret;
	ret = start_event(tr, "i", t);
	if (ret == 0)
		ret = strbuf__addf(&tr->ev, ",\"s\":\"t\",\"cat\":\"lifecycle\",\"name\":\"%s\"", lp_proc__name(p->what));
	if (ret == 0)
		ret = ts(&tr->ev, "ts", p->time);
	if (ret == 0)
		ret = add_lit(&tr->ev, ",\"args\":{");
	if (ret == 0 && p->what == LP_PROC_EXEC)
		ret = strbuf__addf(&tr->ev, "\"path\":") ?: json__string(&tr->ev, xp->path.s, xp->path.len);
	if (ret == 0 && p->what == LP_PROC_SPAWN) {
		ret = strbuf__addf(&tr->ev, "\"parent\":\"%" PRId64 "/%" PRId64 "\"", p->ppid, p->ptid);
		if (ret == 0)
			ret = stack_text(&stack, &xp->stack);
		if (ret == 0)
			ret = key_string(&tr->ev, "stack", stack.s, stack.len);
	}
	if (ret == 0 && p->what == LP_PROC_EXIT) {
		bool any = false;

		if (lp_attrs__find(xp->fields->v + 6, xp->fields->n - 6, "status", &v) == 1) {
			ret = add_lit(&tr->ev, "\"status\":") ?: json__string(&tr->ev, v.s, v.len);
			any = true;
		}
		if (ret == 0 && lp_attrs__find(xp->fields->v + 6, xp->fields->n - 6, "signal", &v) == 1)
			ret = (any ? add_lit(&tr->ev, ",\"signal\":") : add_lit(&tr->ev, "\"signal\":")) ?:
				json__string(&tr->ev, v.s, v.len);
	}
	if (ret == 0)
		ret = strbuf__addc(&tr->ev, '}');
	strbuf__release(&stack);
	if (ret < 0)
		return lp_error__set(x->err, ret, "out of memory");
	return end_event(tr, x);
}

/* A thread's summary: its metadata, with the times of its T record. */
static int thread_summary(void *st, struct export_ctx *x, const struct export_thread *xt)
{
	struct trace *tr = st;
	const struct lp_thread *th = xt->t;
	struct thread *t = thread_of(tr, th->pid, th->tid);
	int ret;

	if (!t)
		return lp_error__set(x->err, -ENOMEM, "out of memory");
	if ((ret = close_run(tr, x, t)) < 0)
		return ret;
	ret = start_event(tr, "M", t);
	if (ret == 0)
		ret = add_lit(&tr->ev, ",\"name\":\"thread_name\",\"args\":{\"name\":");
	if (ret == 0)
		ret = json__string(&tr->ev, xt->comm.s, xt->comm.len);
	if (ret == 0)
		ret = attrs_json(&tr->ev, th->attrs, th->nattrs);
	if (ret == 0)
		ret = strbuf__addc(&tr->ev, '}');
	if (ret < 0)
		return lp_error__set(x->err, ret, "out of memory");
	return end_event(tr, x);
}

/* Pids of one recording are not those of the next: every run ends with its input. */
static int input_end(void *st, struct export_ctx *x)
{
	struct trace *tr = st;
	struct thread_slot *e;
	int ret;

	for (size_t i = 0; (e = htab__next(&tr->threads, &i));)
		if ((ret = close_run(tr, x, e->t)) < 0)
			return ret;
	clear_threads(tr);
	return 0;
}

static int finish(void *st, struct export_ctx *x)
{
	(void)st;
	if (fputs("\n],\n\"displayTimeUnit\":\"ns\",\"otherData\":{\"exporter\":\"lp-export\"}}\n", x->out) == EOF ||
	    fflush(x->out) != 0)
		return export__write_failed(x);
	return 0;
}

const struct export_ops export__trace_ops = {
	.in_time_order = true,
	.begin = begin,
	.sample = sample,
	.proc = proc,
	.thread = thread_summary,
	.input_end = input_end,
	.finish = finish,
	.free = free_state,
};
