/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "stream/lpstream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/numparse.h"

int lp_fields__split(struct lp_fields *f, const char *line, size_t len)
{
	const char *p = line, *end = line + len;

	f->n = 0;
	for (;;) {
		const char *tab = memchr(p, '\t', (size_t)(end - p));
		const char *stop = tab ? tab : end;

		if (f->n == f->cap) {
			size_t cap = f->cap ? f->cap * 2 : 16;
			struct lp_span *v = realloc(f->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			f->v = v;
			f->cap = cap;
		}
		f->v[f->n].s = p;
		f->v[f->n].len = (size_t)(stop - p);
		f->n++;
		if (!tab)
			return 0;
		p = tab + 1;
	}
}

void lp_fields__release(struct lp_fields *f)
{
	free(f->v);
	f->v = NULL;
	f->n = f->cap = 0;
}

static const char *excerpt(struct lp_span s, char *buf, size_t size)
{
	return lp_error__quote(s.s, s.len, buf, size);
}

int lp_stream__line_kind(const char *line, size_t len, struct lp_error *err)
{
	const char *tab;
	size_t typelen;
	char q[LP_QUOTE_SIZE];

	if (len == 0)
		return lp_error__set(err, -EINVAL, "empty line");
	if (line[0] == '#')
		return LP_LINE_COMMENT;
	tab = memchr(line, '\t', len);
	typelen = tab ? (size_t)(tab - line) : len;
	if (typelen != 1 || line[0] < 'A' || line[0] > 'Z')
		return lp_error__set(err, -EINVAL, "record type must be one capital letter, got '%s'",
				     excerpt((struct lp_span){ line, typelen }, q, sizeof(q)));
	return LP_LINE_RECORD;
}

int lp_stream__version_line(const char *line, size_t len, int *version, struct lp_error *err)
{
	size_t m = sizeof(LP_STREAM_MAGIC) - 1;
	int64_t v;

	if (len < m || memcmp(line, LP_STREAM_MAGIC, m) != 0)
		return 0;
	if (len == m || line[m] != ' ' || numparse__i64(line + m + 1, len - m - 1, &v) < 0 || v < 1 || v > 1000000)
		return lp_error__set(err, -EINVAL, "malformed version line, expected '%s %d'",
				     LP_STREAM_MAGIC, LP_STREAM_VERSION);
	if (v > LP_STREAM_VERSION)
		return lp_error__set(err, -EINVAL, "lp stream version %d is newer than this program reads (%d)",
				     (int)v, LP_STREAM_VERSION);
	if (version)
		*version = (int)v;
	return 1;
}

static int field_u64(struct lp_span s, const char *name, uint64_t *out, struct lp_error *err)
{
	char q[LP_QUOTE_SIZE];

	if (numparse__u64(s.s, s.len, out) == 0)
		return 0;
	return lp_error__set(err, -EINVAL, "%s '%s' is not a non-negative integer", name,
			     excerpt(s, q, sizeof(q)));
}

static int field_id(struct lp_span s, const char *name, int64_t *out, struct lp_error *err)
{
	uint64_t v;
	int ret = field_u64(s, name, &v, err);

	if (ret < 0)
		return ret;
	if (v > INT32_MAX)
		return lp_error__set(err, -EINVAL, "%s %llu is out of range", name, (unsigned long long)v);
	*out = (int64_t)v;
	return 0;
}

/* A field that is not a list: only its escapes are checked. */
static int check_escapes(struct lp_span s, const char *name, struct lp_error *err)
{
	return lp_span__check_escapes(s, name, 0, err);
}

/* STACK and LOCS: items counted and checked, in step. */
static int check_stack(struct lp_span stack, struct lp_span locs, struct lp_error *err)
{
	size_t frames = 0, nlocs;
	int ret = lp_list__check(stack, "STACK", true, &frames, err);

	if (ret < 0 || lp_span__eq(locs, "-", 1))
		return ret;
	if ((ret = lp_list__check(locs, "LOCS", false, &nlocs, err)) < 0)
		return ret;
	if (nlocs != frames)
		return lp_error__set(err, -EINVAL, "LOCS has %zu entries but STACK has %zu frames", nlocs, frames);
	return 0;
}

static int check_attrs(const struct lp_span *v, size_t n, struct lp_error *err)
{
	char q[LP_QUOTE_SIZE];

	for (size_t i = 0; i < n; i++) {
		const char *eq = memchr(v[i].s, '=', v[i].len);

		if (!eq || eq == v[i].s)
			return lp_error__set(err, -EINVAL, "attribute '%s' is not KEY=VALUE",
					     excerpt(v[i], q, sizeof(q)));
	}
	return 0;
}

int lp_sample__parse(const struct lp_fields *f, struct lp_sample *s, struct lp_error *err)
{
	const struct lp_span *v = f->v;
	int ret;

	if (f->n < LP_SAMPLE_FIELDS)
		return lp_error__set(err, -EINVAL, "expected %d fields in an S record, got %zu",
				     LP_SAMPLE_FIELDS, f->n);
	if ((ret = field_u64(v[1], "TIME", &s->time, err)) < 0 ||
	    (ret = field_id(v[2], "PID", &s->pid, err)) < 0 ||
	    (ret = field_id(v[3], "TID", &s->tid, err)) < 0 ||
	    (ret = check_escapes(v[4], "COMM", err)) < 0 ||
	    (ret = check_escapes(v[5], "EVENT", err)) < 0 ||
	    (ret = field_u64(v[6], "WEIGHT", &s->weight, err)) < 0 ||
	    (ret = check_stack(v[7], v[8], err)) < 0 ||
	    (ret = check_attrs(v + LP_SAMPLE_FIELDS, f->n - LP_SAMPLE_FIELDS, err)) < 0)
		return ret;
	if (v[5].len == 0)
		return lp_error__set(err, -EINVAL, "EVENT is empty");
	s->comm = v[4];
	s->event = v[5];
	s->stack = v[7];
	s->locs = v[8];
	s->attrs = v + LP_SAMPLE_FIELDS;
	s->nattrs = f->n - LP_SAMPLE_FIELDS;
	return 0;
}

int lp_attrs__find(const struct lp_span *attrs, size_t n, const char *key, struct lp_span *value)
{
	size_t klen = strlen(key);

	for (size_t i = 0; i < n; i++) {
		const struct lp_span *a = &attrs[i];

		if (a->len > klen && a->s[klen] == '=' && memcmp(a->s, key, klen) == 0) {
			value->s = a->s + klen + 1;
			value->len = a->len - klen - 1;
			return 1;
		}
	}
	return 0;
}

int lp_sample__attr(const struct lp_sample *s, const char *key, struct lp_span *value)
{
	return lp_attrs__find(s->attrs, s->nattrs, key, value);
}

int lp_sample__wait(const struct lp_sample *s, struct lp_wait *w, struct lp_error *err)
{
	struct lp_span v;
	int ret;

	memset(w, 0, sizeof(*w));
	if (lp_sample__attr(s, "queued", &v)) {
		if ((ret = field_u64(v, "queued=", &w->queued, err)) < 0)
			return ret;
		w->has_queued = true;
	}
	if (!lp_sample__attr(s, "waker", &v))
		return 0;
	if (lp_span__eq(v, "irq", 3)) {
		w->by = LP_WOKEN_BY_IRQ;
		return 0;
	}
	if ((ret = field_id(v, "waker=", &w->tid, err)) < 0)
		return ret;
	if (!lp_sample__attr(s, "wakerpid", &v))
		return lp_error__set(err, -EINVAL, "waker= without wakerpid=");
	if ((ret = field_id(v, "wakerpid=", &w->pid, err)) < 0)
		return ret;
	if (lp_sample__attr(s, "wakercomm", &v)) {
		if ((ret = check_escapes(v, "wakercomm=", err)) < 0)
			return ret;
		w->comm = v;
	}
	if (lp_sample__attr(s, "wakerrecorded", &v)) {
		if (!lp_span__eq(v, "1", 1))
			return lp_error__set(err, -EINVAL, "wakerrecorded= is 1 or absent, not '%.*s'",
					     (int)(v.len > 32 ? 32 : v.len), v.s);
		w->recorded = true;
	}
	w->by = LP_WOKEN_BY_THREAD;
	return 0;
}

int lp_region__parse(const struct lp_fields *f, struct lp_region *c, struct lp_error *err)
{
	const struct lp_span *v = f->v;
	int ret;

	memset(c, 0, sizeof(*c));
	if (f->n < 6)
		return lp_error__set(err, -EINVAL, "expected at least 6 fields in a C record, got %zu", f->n);
	if ((ret = field_u64(v[1], "TIME", &c->time, err)) < 0 || (ret = field_id(v[2], "PID", &c->pid, err)) < 0 ||
	    (ret = field_id(v[3], "TID", &c->tid, err)) < 0 || (ret = check_escapes(v[5], "NAME", err)) < 0 ||
	    (ret = check_attrs(v + 6, f->n - 6, err)) < 0)
		return ret;
	if (lp_span__eq(v[4], "begin", 5))
		c->begin = true;
	else if (!lp_span__eq(v[4], "end", 3))
		return lp_error__set(err, -EINVAL, "a C record is a region's begin or end, not '%.*s'",
				     (int)(v[4].len > 32 ? 32 : v[4].len), v[4].s);
	if (v[5].len == 0)
		return lp_error__set(err, -EINVAL, "a region's NAME is empty");
	c->name = v[5];
	c->attrs = v + 6;
	c->nattrs = f->n - 6;
	return 0;
}

int lp_thread__parse(const struct lp_fields *f, struct lp_thread *t, struct lp_error *err)
{
	const struct lp_span *v = f->v;
	int ret;

	memset(t, 0, sizeof(*t));
	if (f->n < 5)
		return lp_error__set(err, -EINVAL, "expected at least 5 fields in a T record, got %zu", f->n);
	if ((ret = field_u64(v[1], "TIME", &t->time, err)) < 0 || (ret = field_id(v[2], "PID", &t->pid, err)) < 0 ||
	    (ret = field_id(v[3], "TID", &t->tid, err)) < 0 || (ret = check_escapes(v[4], "COMM", err)) < 0)
		return ret;
	t->comm = v[4];
	t->attrs = v + 5;
	t->nattrs = f->n - 5;
	for (size_t i = 0; i < t->nattrs; i++)
		if (!memchr(t->attrs[i].s, '=', t->attrs[i].len) || t->attrs[i].s[0] == '=')
			return lp_error__set(err, -EINVAL, "field %zu of a T record is not KEY=VALUE", i + 6);
	return 0;
}

int lp_thread__attr_u64(const struct lp_thread *t, const char *key, uint64_t *v)
{
	struct lp_span value;

	if (!lp_attrs__find(t->attrs, t->nattrs, key, &value))
		return 0;
	return numparse__u64(value.s, value.len, v) == 0 ? 1 : -EINVAL;
}

static const char *const proc_names[] = {
	[LP_PROC_SPAWN] = "spawn",
	[LP_PROC_EXEC] = "exec",
	[LP_PROC_COMM] = "comm",
	[LP_PROC_EXIT] = "exit",
};

const char *lp_proc__name(enum lp_proc_what what)
{
	return what < LP_PROC_OTHER ? proc_names[what] : NULL;
}

int lp_proc__parse(const struct lp_fields *f, struct lp_proc *p, struct lp_error *err)
{
	const struct lp_span *v = f->v;
	int ret;

	memset(p, 0, sizeof(*p));
	if (f->n < 6)
		return lp_error__set(err, -EINVAL, "expected at least 6 fields in a P record, got %zu", f->n);
	if ((ret = field_u64(v[1], "TIME", &p->time, err)) < 0 ||
	    (ret = field_id(v[2], "PID", &p->pid, err)) < 0 ||
	    (ret = field_id(v[3], "TID", &p->tid, err)) < 0 ||
	    (ret = check_escapes(v[5], "COMM", err)) < 0)
		return ret;
	p->what_name = v[4];
	p->comm = v[5];
	p->what = LP_PROC_OTHER;
	for (size_t i = 0; i < sizeof(proc_names) / sizeof(proc_names[0]); i++)
		if (lp_span__eq(v[4], proc_names[i], strlen(proc_names[i])))
			p->what = (enum lp_proc_what)i;
	switch (p->what) {
	case LP_PROC_SPAWN:
		if (f->n < 10)
			return lp_error__set(err, -EINVAL, "expected 10 fields in a spawn record, got %zu", f->n);
		if ((ret = field_id(v[6], "PPID", &p->ppid, err)) < 0 ||
		    (ret = field_id(v[7], "PTID", &p->ptid, err)) < 0 || (ret = check_stack(v[8], v[9], err)) < 0)
			return ret;
		p->stack = v[8];
		p->locs = v[9];
		p->stack_field = 8;
		break;
	case LP_PROC_EXEC:
		if (f->n >= 7) {
			if ((ret = check_escapes(v[6], "PATH", err)) < 0)
				return ret;
			p->path = v[6];
		}
		break;
	default:
		break;
	}
	return 0;
}

int lp_meta__parse(struct lp_fields *f, const char *line, size_t len, struct lp_meta *m)
{
	int ret;

	if (len < 5 || memcmp(line, "#lp.", 4) != 0)
		return 0;
	if ((ret = lp_fields__split(f, line, len)) < 0)
		return ret;
	m->key = (struct lp_span){ f->v[0].s + 4, f->v[0].len - 4 };
	m->values = f->v + 1;
	m->nvalues = f->n - 1;
	m->known = lp_span__eq(m->key, "host", 4)       ? LP_META_HOST :
		   lp_span__eq(m->key, "rank", 4)       ? LP_META_RANK :
		   lp_span__eq(m->key, "start", 5)      ? LP_META_START :
		   lp_span__eq(m->key, "realtime", 8)   ? LP_META_REALTIME : LP_META_OTHER;
	m->number = 0;
	return 1;
}

int lp_meta__check(struct lp_meta *m, struct lp_error *err)
{
	char q[LP_QUOTE_SIZE];
	const char *what;

	if (m->known == LP_META_OTHER)
		return 0;
	if (m->nvalues < 1 || m->values[0].len == 0)
		return lp_error__set(err, -EINVAL, "#lp.%.*s needs a value", (int)m->key.len, m->key.s);
	if (m->known == LP_META_HOST)
		return 0;
	what = m->known == LP_META_RANK ? "a non-negative integer" : "a number of nanoseconds";
	if (numparse__u64(m->values[0].s, m->values[0].len, &m->number) < 0)
		return lp_error__set(err, -EINVAL, "#lp.%.*s '%s' is not %s", (int)m->key.len, m->key.s,
				     excerpt(m->values[0], q, sizeof(q)), what);
	return 0;
}

int lp_event_def__parse(const struct lp_meta *m, struct lp_event_def *d, struct lp_error *err)
{
	if (!lp_span__eq(m->key, "event", 5))
		return 0;
	if (m->nvalues < 5)
		return lp_error__set(err, -EINVAL,
				     "#lp.event needs KEY PERF-EVENT PERIOD TITLE UNIT, got %zu fields", m->nvalues);
	d->key = m->values[0];
	d->perf_event = m->values[1];
	d->period = m->values[2];
	d->title = m->values[3];
	d->unit = m->values[4];
	return 1;
}

/* MODE's number after prefix ("freq=" or "period="), or 0 when it has none or another prefix. */
static uint64_t mode_value(struct lp_span mode, const char *prefix)
{
	size_t n = strlen(prefix);
	uint64_t v;

	if (mode.len <= n || memcmp(mode.s, prefix, n) != 0 || numparse__u64(mode.s + n, mode.len - n, &v) < 0)
		return 0;
	return v;
}

int lp_sampling__parse(const struct lp_meta *m, struct lp_sampling *s, struct lp_error *err)
{
	struct lp_span mode;

	if (!lp_span__eq(m->key, "sampling", 8))
		return 0;
	if (m->nvalues < 3)
		return lp_error__set(err, -EINVAL, "#lp.sampling needs EVENT SOURCE MODE, got %zu fields", m->nvalues);
	s->event = m->values[0];
	s->source = m->values[1];
	mode = m->values[2];
	s->mode = LP_SAMPLING_OTHER;
	if ((s->value = mode_value(mode, "freq=")))
		s->mode = LP_SAMPLING_FREQ;
	else if ((s->value = mode_value(mode, "period=")))
		s->mode = LP_SAMPLING_PERIOD;
	else if (lp_span__eq(mode, "every-interval", 14))
		s->mode = LP_SAMPLING_EVERY;
	return 1;
}

static int field_decimal(struct lp_span s, const char *name, double *out, struct lp_error *err)
{
	char q[LP_QUOTE_SIZE];

	if (numparse__decimal(s.s, s.len, out) == 0)
		return 0;
	return lp_error__set(err, -EINVAL, "%s '%s' is not a non-negative decimal number", name,
			     excerpt(s, q, sizeof(q)));
}

int lp_roof__parse(const struct lp_fields *f, struct lp_roof *r, struct lp_error *err)
{
	const struct lp_span *v = f->v;
	char q[LP_QUOTE_SIZE];
	const char *unit;
	int ret;

	memset(r, 0, sizeof(*r));
	if (f->n < 5)
		return lp_error__set(err, -EINVAL, "expected at least 5 fields in an R record, got %zu", f->n);
	if (v[1].len == 0)
		return lp_error__set(err, -EINVAL, "empty NAME");
	if ((ret = check_escapes(v[1], "NAME", err)) < 0)
		return ret;
	r->name = v[1];
	if (lp_span__eq(v[2], "memory", 6))
		r->kind = LP_ROOF_MEMORY;
	else if (lp_span__eq(v[2], "compute", 7))
		r->kind = LP_ROOF_COMPUTE;
	else
		return lp_error__set(err, -EINVAL, "KIND '%s' is neither 'memory' nor 'compute'",
				     excerpt(v[2], q, sizeof(q)));
	if ((ret = field_decimal(v[3], "VALUE", &r->value, err)) < 0)
		return ret;
	if (r->value <= 0)
		return lp_error__set(err, -EINVAL, "VALUE of a roof must be above 0");
	unit = r->kind == LP_ROOF_MEMORY ? "B/s" : "FLOP/s";
	if (!lp_span__eq(v[4], unit, strlen(unit)))
		return lp_error__set(err, -EINVAL, "UNIT '%s' of a %s roof, expected '%s'", excerpt(v[4], q, sizeof(q)),
				     r->kind == LP_ROOF_MEMORY ? "memory" : "compute", unit);
	if ((ret = check_attrs(v + 5, f->n - 5, err)) < 0)
		return ret;
	r->attrs = v + 5;
	r->nattrs = f->n - 5;
	return 0;
}

int lp_point__parse(const struct lp_fields *f, struct lp_point *p, struct lp_error *err)
{
	const struct lp_span *v = f->v;
	size_t frames;
	int ret;

	memset(p, 0, sizeof(*p));
	if (f->n < 5)
		return lp_error__set(err, -EINVAL, "expected at least 5 fields in a Q record, got %zu", f->n);
	if ((ret = lp_list__check(v[1], "NAME", true, &frames, err)) < 0 ||
	    (ret = field_u64(v[2], "FLOPS", &p->flops, err)) < 0 ||
	    (ret = field_u64(v[3], "BYTES", &p->bytes, err)) < 0 ||
	    (ret = field_decimal(v[4], "SECONDS", &p->seconds, err)) < 0 ||
	    (ret = check_attrs(v + 5, f->n - 5, err)) < 0)
		return ret;
	p->name = v[1];
	p->attrs = v + 5;
	p->nattrs = f->n - 5;
	return 0;
}

int lp_counts__parse(const struct lp_fields *f, struct lp_counts *k, struct lp_error *err)
{
	const struct lp_span *v = f->v;
	size_t frames;
	int ret;

	memset(k, 0, sizeof(*k));
	if (f->n < 8)
		return lp_error__set(err, -EINVAL, "expected at least 8 fields in a K record, got %zu", f->n);
	if ((ret = field_id(v[1], "PID", &k->pid, err)) < 0 || (ret = field_id(v[2], "TID", &k->tid, err)) < 0 ||
	    (ret = lp_list__check(v[3], "NAME", true, &frames, err)) < 0 ||
	    (ret = field_u64(v[4], "INSNS", &k->insns, err)) < 0 || (ret = field_u64(v[5], "FLOPS", &k->flops, err)) < 0 ||
	    (ret = field_u64(v[6], "LOADED", &k->loaded, err)) < 0 ||
	    (ret = field_u64(v[7], "STORED", &k->stored, err)) < 0 || (ret = check_attrs(v + 8, f->n - 8, err)) < 0)
		return ret;
	if (frames != 1)
		return lp_error__set(err, -EINVAL, "a K record's NAME is one function, got %zu frames", frames);
	k->name = v[3];
	k->attrs = v + 8;
	k->nattrs = f->n - 8;
	return 0;
}

/* PID or TID of an N record: a thread's, or "-" for a total (-1). */
static int count_id(struct lp_span s, const char *name, int64_t *out, struct lp_error *err)
{
	if (lp_span__eq(s, "-", 1)) {
		*out = -1;
		return 0;
	}
	return field_id(s, name, out, err);
}

static int count_state(struct lp_count *n, struct lp_error *err)
{
	struct lp_span st;
	char q[LP_QUOTE_SIZE];

	if (!lp_attrs__find(n->attrs, n->nattrs, "state", &st))
		return lp_error__set(err, -EINVAL, "VALUE '-' of an N record needs state=");
	if (lp_span__eq(st, "not-supported", 13))
		n->state = LP_COUNT_NOT_SUPPORTED;
	else if (lp_span__eq(st, "not-counted", 11))
		n->state = LP_COUNT_NOT_COUNTED;
	else
		return lp_error__set(err, -EINVAL, "state '%s' is neither 'not-supported' nor 'not-counted'",
				     excerpt(st, q, sizeof(q)));
	return 0;
}

int lp_count__parse(const struct lp_fields *f, struct lp_count *n, struct lp_error *err)
{
	const struct lp_span *v = f->v;
	int ret;

	memset(n, 0, sizeof(*n));
	if (f->n < 9)
		return lp_error__set(err, -EINVAL, "expected at least 9 fields in an N record, got %zu", f->n);
	if ((ret = field_u64(v[1], "TIME", &n->time, err)) < 0 || (ret = count_id(v[2], "PID", &n->pid, err)) < 0 ||
	    (ret = count_id(v[3], "TID", &n->tid, err)) < 0 || (ret = check_escapes(v[4], "COMM", err)) < 0 ||
	    (ret = check_escapes(v[5], "EVENT", err)) < 0 ||
	    (ret = field_u64(v[7], "ENABLED", &n->enabled, err)) < 0 ||
	    (ret = field_u64(v[8], "RUNNING", &n->running, err)) < 0 || (ret = check_attrs(v + 9, f->n - 9, err)) < 0)
		return ret;
	if ((n->pid < 0) != (n->tid < 0))
		return lp_error__set(err, -EINVAL, "PID and TID of an N record are both a thread's or both '-'");
	if (v[5].len == 0)
		return lp_error__set(err, -EINVAL, "empty EVENT");
	if (n->running > n->enabled)
		return lp_error__set(err, -EINVAL, "RUNNING %llu is more than ENABLED %llu",
				     (unsigned long long)n->running, (unsigned long long)n->enabled);
	n->comm = v[4];
	n->event = v[5];
	n->attrs = v + 9;
	n->nattrs = f->n - 9;
	if (lp_span__eq(v[6], "-", 1))
		return count_state(n, err);
	return field_u64(v[6], "VALUE", &n->value, err);
}
