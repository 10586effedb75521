/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "export/export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-format.h"
#include "base/lines.h"
#include "stream/lpstream.h"
#include "base/numparse.h"
#include "base/stackmap.h"
#include "base/strbuf.h"

struct exporter {
	struct export_opts o;
	const struct export_ops *ops;
	void *state;
	struct export_ctx x;
	struct lines *lines;
	/* one record's unescaped text: its comm apart (it must not move when frames are added), path, frames */
	struct strbuf comm, text;
	struct export_frame *frames;
	size_t frames_cap;
	size_t last_event;	/* samples come in runs of one event: look there first */
	const struct lp_sample *sample;	/* the one being handed to the format */
	struct export_stack stack;	/* its frames, once decoded */
	bool decoded;
};

static const struct {
	const char *name;
	enum export_format format;
	const struct export_ops *ops;
} formats[] = {
	{ "pprof", EXPORT_PPROF, &export__pprof_ops },
	{ "speedscope", EXPORT_SPEEDSCOPE, &export__speedscope_ops },
	{ "trace", EXPORT_TRACE, &export__trace_ops },
	{ "perf-script", EXPORT_PERF_SCRIPT, &export__perf_script_ops },
};

int export_format__parse(const char *name, enum export_format *f)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(name, formats[i].name) == 0) {
			*f = formats[i].format;
			return 0;
		}
	return -EINVAL;
}

static char *span_dup(struct lp_span s)
{
	struct strbuf b = STRBUF_INIT;

	if (lp_span__unescape_to(&b, s) < 0 || strbuf__addc(&b, 0) < 0) {
		strbuf__release(&b);
		errno = ENOMEM;
		return NULL;
	}
	return b.s;
}

static int add_event(struct exporter *e, const char *key, size_t keylen, const char *title, const char *unit)
{
	struct export_event *v = realloc(e->x.events, (e->x.nevents + 1) * sizeof(*v));
	struct export_event *ev;

	if (!v)
		return -ENOMEM;
	e->x.events = v;
	ev = &v[e->x.nevents];
	*ev = (struct export_event){ 0 };
	ev->key = strndup(key, keylen);
	ev->title = strdup(title ? title : ev->key ? ev->key : "");
	ev->unit = strdup(unit);
	if (!ev->key || !ev->title || !ev->unit) {
		free(ev->key);
		free(ev->title);
		free(ev->unit);
		return -ENOMEM;
	}
	ev->offcpu = strcmp(ev->key, "offcpu") == 0;
	ev->in_ns = strcmp(ev->unit, "ns") == 0;
	return (int)e->x.nevents++;
}

struct exporter *exporter__new(const struct export_opts *o, FILE *out)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (formats[i].format == o->format)
			return exporter__new_with(o, formats[i].ops, out);
	errno = EINVAL;
	return NULL;
}

struct exporter *exporter__new_with(const struct export_opts *o, const struct export_ops *ops, FILE *out)
{
	struct exporter *e = calloc(1, sizeof(*e));
	int err = ENOMEM;

	if (!e)
		return NULL;
	e->o = *o;
	e->x.owner = e;
	e->x.out = out;
	e->x.o = &e->o;
	e->ops = ops;
	/* the two events every recording has come first, in this order */
	if (add_event(e, "cpu", 3, "on-CPU time", "ns") < 0 || add_event(e, "offcpu", 6, "off-CPU time", "ns") < 0)
		goto fail;
	e->state = e->ops->begin(&e->x);
	if (!e->state) {
		err = errno;
		goto fail;
	}
	return e;
fail:
	exporter__free(e);
	errno = err;
	return NULL;
}

void exporter__free(struct exporter *e)
{
	if (!e)
		return;
	if (e->state)
		e->ops->free(e->state);
	for (size_t i = 0; i < e->x.nevents; i++) {
		free(e->x.events[i].key);
		free(e->x.events[i].title);
		free(e->x.events[i].unit);
	}
	free(e->x.events);
	for (size_t i = 0; i < e->x.ninputs; i++) {
		free(e->x.inputs[i].name);
		free(e->x.inputs[i].host);
		free(e->x.inputs[i].rank);
	}
	free(e->x.inputs);
	strbuf__release(&e->comm);
	strbuf__release(&e->text);
	free(e->frames);
	free(e);
}

static bool event_wanted(const struct exporter *e, const char *key)
{
	if (!e->o.events)
		return true;
	for (size_t i = 0; i < e->o.nevents; i++)
		if (strcmp(e->o.events[i], key) == 0)
			return true;
	return false;
}

static int find_event(const struct exporter *e, struct lp_span key)
{
	for (size_t i = 0; i < e->x.nevents; i++)
		if (lp_span__eq(key, e->x.events[i].key, strlen(e->x.events[i].key)))
			return (int)i;
	return -1;
}

/*
 * What a sample of a known event stands for (a time event's nanoseconds at
 * freq=HZ), the first #lp.sampling line naming it holding; other modes
 * (every-interval) stand for no fixed amount.
 */
static int sampling_line(struct exporter *e, const struct lp_sampling *sm)
{
	int ev = find_event(e, sm->event);

	if (ev < 0 || e->x.events[ev].period)
		return 0;
	if (sm->mode == LP_SAMPLING_FREQ && e->x.events[ev].in_ns)
		e->x.events[ev].period = 1000000000 / sm->value;
	else if (sm->mode == LP_SAMPLING_PERIOD)
		e->x.events[ev].period = sm->value;
	return 0;
}

/* Where each input was made and when it started (checked by the reader); the first of each holds. */
static int meta_line(void *ctx, struct lp_reader *r, const struct lp_meta *mp)
{
	struct exporter *e = ctx;
	struct export_input *in = &e->x.inputs[e->x.ninputs - 1];
	char **slot = NULL;
	struct lp_sampling sm;

	(void)r;
	if (lp_sampling__parse(mp, &sm, NULL) == 1)
		return sampling_line(e, &sm);
	switch (mp->known) {
	case LP_META_START:
		if (!in->has_start) {
			in->start = mp->number;
			in->has_start = true;
		}
		return 0;
	case LP_META_REALTIME:
		if (!in->has_realtime) {
			in->realtime = mp->number;
			in->has_realtime = true;
		}
		return 0;
	case LP_META_HOST:
		slot = &in->host;
		break;
	case LP_META_RANK:
		slot = &in->rank;
		break;
	default:
		return 0;
	}
	if (*slot)
		return 0;
	*slot = span_dup(mp->values[0]);
	return *slot ? 0 : -ENOMEM;
}

/* An #lp.event line defines a custom event's title and unit; the first definition of a key holds. */
static int event_def(void *ctx, struct lp_reader *r, const struct lp_event_def *d)
{
	struct exporter *e = ctx;
	char *title, *unit;
	int ret;

	(void)r;
	if (find_event(e, d->key) >= 0)
		return 0;
	title = span_dup(d->title);
	unit = span_dup(d->unit);
	ret = title && unit ? add_event(e, d->key.s, d->key.len, title, unit) : -ENOMEM;
	free(title);
	free(unit);
	return ret < 0 ? ret : 0;
}

/* Unescapes span into e->text; its place there as offset and length. */
static int unescape_field(struct exporter *e, struct lp_span s, size_t *at, size_t *len)
{
	int ret;

	*at = e->text.len;
	if ((ret = lp_span__unescape_to(&e->text, s)) < 0)
		return ret;
	*len = e->text.len - *at;
	return 0;
}

/* The record's COMM, unescaped into its own buffer. */
static int unescape_comm(struct exporter *e, struct lp_span s, struct lp_span *out)
{
	int ret;

	strbuf__reset(&e->comm);
	if ((ret = lp_span__unescape_to(&e->comm, s)) < 0)
		return ret;
	*out = lp_span__of(&e->comm);
	return 0;
}

/* Where text at offset at is; an empty buffer has no address yet, and "" stands for it. */
static struct lp_span text_span(const struct exporter *e, size_t at, size_t len)
{
	return (struct lp_span){ e->text.s ? e->text.s + at : "", len };
}

/*
 * Frames of an escaped STACK and LOCS, root first; their text in e->text from
 * base on. Spans are set once all text is in, as the buffer may move.
 */
static int decode_stack(struct exporter *e, struct lp_span stack, struct lp_span locs,
			struct export_stack *out)
{
	struct lp_list_iter names, places;
	struct lp_span item, place;
	bool has_locs = !lp_span__eq(locs, "-", 1);
	size_t n = 0;
	int ret;

	lp_list_iter__init(&names, stack);
	lp_list_iter__init(&places, has_locs ? locs : (struct lp_span){ "", 0 });
	while (lp_list_iter__next(&names, &item, NULL)) {
		struct export_frame *f;
		size_t at, len;

		if (n == e->frames_cap) {
			size_t cap = e->frames_cap ? e->frames_cap * 2 : 64;
			struct export_frame *v = realloc(e->frames, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			e->frames = v;
			e->frames_cap = cap;
		}
		f = &e->frames[n++];
		memset(f, 0, sizeof(*f));
		if ((ret = unescape_field(e, item, &at, &len)) < 0)
			return ret;
		f->name = (struct lp_span){ (const char *)at, len };
		if (lp_list_iter__next(&places, &place, NULL)) {
			struct lp_loc loc;

			if ((ret = unescape_field(e, place, &at, &len)) < 0)
				return ret;
			/* the DSO is the item's start */
			lp_loc__parse(text_span(e, at, len), &loc);
			f->dso = (struct lp_span){ (const char *)at, loc.dso.len };
			f->offset = loc.offset;
			f->has_offset = loc.has_offset;
		}
	}
	/* offsets into the text become pointers now that it has stopped moving */
	for (size_t i = 0; i < n; i++) {
		e->frames[i].name = text_span(e, (size_t)e->frames[i].name.s, e->frames[i].name.len);
		e->frames[i].dso = text_span(e, (size_t)e->frames[i].dso.s, e->frames[i].dso.len);
	}
	out->frames = e->frames;
	out->n = n;
	return 0;
}

static int sample_record(void *ctx, struct lp_reader *r, const struct lp_sample *sp)
{
	struct exporter *e = ctx;
	struct lp_error *err = e->x.err;
	struct export_sample xs = { .s = sp, .cpu = -1 };
	struct lp_span v;
	int ret, ev;

	(void)r;
	if (e->last_event < e->x.nevents &&
	    lp_span__eq(sp->event, e->x.events[e->last_event].key, strlen(e->x.events[e->last_event].key)))
		ev = (int)e->last_event;
	else if ((ev = find_event(e, sp->event)) < 0 &&
		 (ev = add_event(e, sp->event.s, sp->event.len, NULL, "events")) < 0)
		return lp_error__set(err, ev, "out of memory");
	e->last_event = (size_t)ev;
	if (!event_wanted(e, e->x.events[ev].key))
		return 0;
	xs.event = (size_t)ev;
	xs.dur = sp->weight;
	if (lp_sample__attr(sp, "dur", &v) && numparse__u64(v.s, v.len, &xs.dur) < 0)
		return lp_error__set(err, -EINVAL, "dur= is not a number");
	if (lp_sample__attr(sp, "cpu", &v) && numparse__i64(v.s, v.len, &xs.cpu) < 0)
		return lp_error__set(err, -EINVAL, "cpu= is not a number");
	strbuf__reset(&e->text);
	if ((ret = unescape_comm(e, sp->comm, &xs.comm)) < 0)
		return lp_error__set(err, ret, "%s", ret == -EINVAL ? "bad escape in COMM" : "out of memory");
	e->sample = sp;
	e->decoded = false;
	ret = e->ops->sample(e->state, &e->x, &xs);
	e->sample = NULL;
	return ret;
}

int export_sample__stack(struct export_ctx *x, struct export_stack *out)
{
	struct exporter *e = x->owner;
	int ret;

	if (!e->decoded) {
		ret = decode_stack(e, e->sample->stack, e->sample->locs, &e->stack);
		if (ret < 0)
			return lp_error__set(x->err, ret, "%s", ret == -EINVAL ? "bad escape in STACK or LOCS" :
					     "out of memory");
		e->decoded = true;
	}
	*out = e->stack;
	return 0;
}

static int proc_record(void *ctx, struct lp_reader *r, const struct lp_proc *pp)
{
	struct exporter *e = ctx;
	struct lp_error *err = e->x.err;
	struct export_proc xp = { .p = pp, .fields = lp_reader__fields(r) };
	size_t path_at = 0, path_len = 0;
	int ret;

	if (!e->ops->proc)
		return 0;
	strbuf__reset(&e->text);
	ret = unescape_comm(e, pp->comm, &xp.comm);
	if (ret == 0 && pp->what == LP_PROC_EXEC)
		ret = unescape_field(e, pp->path, &path_at, &path_len);
	if (ret == 0 && pp->what == LP_PROC_SPAWN)
		ret = decode_stack(e, pp->stack, pp->locs, &xp.stack);
	if (ret < 0)
		return lp_error__set(err, ret, "%s", ret == -EINVAL ? "bad escape" : "out of memory");
	xp.path = text_span(e, path_at, path_len);
	return e->ops->proc(e->state, &e->x, &xp);
}

static int thread_record(void *ctx, struct lp_reader *r, const struct lp_thread *t)
{
	struct exporter *e = ctx;
	struct export_thread xt = { .t = t };
	int ret;

	(void)r;
	if (!e->ops->thread)
		return 0;
	if ((ret = unescape_comm(e, t->comm, &xt.comm)) < 0)
		return lp_error__set(e->x.err, ret, "%s", ret == -EINVAL ? "bad escape in COMM" : "out of memory");
	return e->ops->thread(e->state, &e->x, &xt);
}

static int region_record(void *ctx, struct lp_reader *r, const struct lp_region *c)
{
	struct exporter *e = ctx;

	(void)r;
	return e->ops->region ? e->ops->region(e->state, &e->x, c) : 0;
}

static const struct lp_reader_ops export_reader_ops = {
	.sample = sample_record,
	.proc = proc_record,
	.thread = thread_record,
	.region = region_record,
	.meta = meta_line,
	.event = event_def,
};

int exporter__read(struct exporter *e, int fd, const char *name, struct lp_error *err)
{
	struct lp_reader_opts ro = { .name = name,
				     .ordered_for = !e->ops->in_time_order ? NULL : e->o.reader ? e->o.reader : "lp-export",
				     .strict = e->o.strict, .warn = e->o.warn, .warn_ctx = e->o.ctx };
	struct export_input *v;
	int ret;

	lp_error__clear(err);
	err->file = name;
	e->x.err = err;
	v = realloc(e->x.inputs, (e->x.ninputs + 1) * sizeof(*v));
	if (!v)
		return lp_error__set(err, -ENOMEM, "out of memory");
	e->x.inputs = v;
	memset(&v[e->x.ninputs], 0, sizeof(*v));
	v[e->x.ninputs].name = strdup(name);
	if (!v[e->x.ninputs].name)
		return lp_error__set(err, -ENOMEM, "out of memory");
	e->x.ninputs++;
	e->lines = lines__new(fd);
	if (!e->lines)
		return lp_error__set(err, -ENOMEM, "out of memory");
	ret = lp_reader__read(&ro, e->lines, &export_reader_ops, e, err);
	if (ret == 0 && e->ops->input_end)
		ret = e->ops->input_end(e->state, &e->x);
	lines__free(e->lines);
	e->lines = NULL;
	return ret;
}

int exporter__finish(struct exporter *e, struct lp_error *err)
{
	lp_error__clear(err);
	e->x.err = err;
	return e->ops->finish(e->state, &e->x);
}

int export__write_failed(struct export_ctx *x)
{
	int err = errno;

	lp_error__clear(x->err);
	return lp_error__set(x->err, -EIO, "cannot write the output: %s", strerror(err ? err : EIO));
}

int export__put_u64(struct strbuf *b, uint64_t v)
{
	char buf[20], *p = numparse__format_u64(buf + sizeof(buf), v);

	return strbuf__add(b, p, (size_t)(buf + sizeof(buf) - p));
}

int export__put_i64(struct strbuf *b, int64_t v)
{
	int ret = 0;

	if (v < 0 && (ret = strbuf__addc(b, '-')) < 0)
		return ret;
	return export__put_u64(b, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

int export__put_hex(struct strbuf *b, uint64_t v, unsigned width)
{
	char buf[16], *p = buf + sizeof(buf);
	int ret;

	do
		*--p = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	for (size_t n = (size_t)(buf + sizeof(buf) - p); n < width; n++)
		if ((ret = strbuf__addc(b, ' ')) < 0)
			return ret;
	return strbuf__add(b, p, (size_t)(buf + sizeof(buf) - p));
}

int export__time(struct strbuf *b, uint64_t ns)
{
	char frac[10];
	uint64_t f = ns % 1000000000;
	int ret = export__put_u64(b, ns / 1000000000);

	frac[0] = '.';
	for (int i = 9; i >= 1; i--, f /= 10)
		frac[i] = (char)('0' + f % 10);
	return ret ? ret : strbuf__add(b, frac, sizeof(frac));
}

/* ---- what formats make of each stack ---- */

struct export_memo {
	struct stackmap *keys;		/* raw "STACK\tLOCS" -> index into at */
	struct strbuf data;
	size_t *at;			/* where each stack's data starts; its end is the next one's start */
	size_t n, cap, max_bytes;
	size_t bytes;			/* keys and data held */
	const struct lp_sample *missed;
};

struct export_memo *export_memo__new(size_t max_bytes)
{
	struct export_memo *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->max_bytes = max_bytes;
	m->keys = stackmap__new();
	if (!m->keys) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

void export_memo__free(struct export_memo *m)
{
	if (!m)
		return;
	stackmap__free(m->keys);
	strbuf__release(&m->data);
	free(m->at);
	free(m);
}

/* STACK and LOCS are neighbours in the record: the key is the line between them. */
static struct lp_span memo_key(const struct lp_sample *s)
{
	return (struct lp_span){ s->stack.s, (size_t)(s->locs.s + s->locs.len - s->stack.s) };
}

int export_memo__get(struct export_memo *m, const struct lp_sample *s, const void **data, size_t *len)
{
	struct lp_span key = memo_key(s);
	const struct stack_entry *e = stackmap__find(m->keys, key.s, key.len);

	if (e && e->id < m->n) {
		size_t end = e->id + 1 < m->n ? m->at[e->id + 1] : m->data.len;

		*data = m->data.s + m->at[e->id];
		*len = end - m->at[e->id];
		return 1;
	}
	m->missed = s;
	return 0;
}

int export_memo__put(struct export_memo *m, const void *data, size_t len)
{
	struct lp_span key = memo_key(m->missed);
	int ret;

	if (m->bytes + key.len + len > m->max_bytes) {
		/* the stacks seen so far were not worth their memory: start again */
		stackmap__free(m->keys);
		if (!(m->keys = stackmap__new()))
			return -ENOMEM;
		strbuf__reset(&m->data);
		m->n = m->bytes = 0;
	}
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		size_t *v = realloc(m->at, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		m->at = v;
		m->cap = cap;
	}
	if (!stackmap__add(m->keys, key.s, key.len, 0, 0))
		return -errno;
	m->at[m->n++] = m->data.len;
	if ((ret = strbuf__add(&m->data, data, len)) < 0)
		return ret;
	m->bytes += key.len + len;
	return 0;
}
