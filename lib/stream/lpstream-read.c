/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one loop over an lp stream's lines: every program reads streams through
 * it, so that each gives the same verdict on the same input.
 */
#include "stream/lpstream.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "base/hash.h"
#include "base/htab.h"
#include "base/lines.h"
#include "base/numparse.h"

struct lp_reader {
	const struct lp_reader_opts *o;
	const struct lp_reader_ops *ops;
	void *ctx;
	struct lines *in;
	struct lp_error *err;
	struct lp_fields fields;
	const char *line;
	size_t len;

	bool began;		/* a version line or a record was seen: this is a stream */
	bool versioned;		/* the current stream began with its version line */
	bool ended;		/* ... and its trailer was read */
	long version_line;	/* where it began */
	uint64_t last_time;	/* the latest record's TIME in the current stream */
	/* the processes with a record so far, which explain the waits they ended */
	struct htab pids;
	int64_t last_pid;
	struct lp_wait wait;	/* the S record being read's, checked as it was parsed */
};

struct pid_entry {
	struct htab_entry head;
	int64_t pid;
};

static struct pid_entry *find_pid(const struct lp_reader *r, int64_t pid, uint64_t h)
{
	struct pid_entry *e;

	if (!r->pids.slots)
		return NULL;
	for (size_t i = h; (e = htab__at(&r->pids, i))->head.used; i++)
		if (e->pid == pid)
			return e;
	return e;
}

/* Notes that process pid has a record: one probe where the previous record's differs. */
static int saw_pid(struct lp_reader *r, int64_t pid)
{
	uint64_t h = hash_mix((uint64_t)pid);
	struct pid_entry *e;

	if (pid == r->last_pid)
		return 0;
	if (htab__reserve(&r->pids) < 0)
		return lp_error__set(r->err, -ENOMEM, "out of memory");
	e = find_pid(r, pid, h);
	if (!e->head.used) {
		htab__insert(&r->pids, e, h);
		e->pid = pid;
	}
	r->last_pid = pid;
	return 0;
}

int lp_reader__wait(struct lp_reader *r, const struct lp_sample *s, struct lp_wait *w)
{
	struct pid_entry *e;

	*w = r->wait;
	if (w->by != LP_WOKEN_BY_THREAD)
		return 0;
	e = find_pid(r, w->pid, hash_mix((uint64_t)w->pid));
	w->explained = w->recorded || w->pid == s->pid || (e && e->head.used);
	return 0;
}

const char *lp_reader__line(const struct lp_reader *r, size_t *len)
{
	*len = r->len;
	return r->line;
}

const struct lp_fields *lp_reader__fields(const struct lp_reader *r)
{
	return &r->fields;
}

long lp_reader__lineno(const struct lp_reader *r)
{
	return lines__lineno(r->in);
}

static int other(struct lp_reader *r)
{
	return r->ops->other ? r->ops->other(r->ctx, r, r->line, r->len) : 0;
}

#define NO_TRAILER "the stream that starts at line %ld ends without its trailer (#lp.end): it may be cut"

/* The end of one stream: at the next one's version line, or at the end of input. */
static int stream_end(struct lp_reader *r, long at)
{
	if (!r->versioned || r->ended)
		return 0;
	if (r->o->strict) {
		r->err->line = at;
		return lp_error__set(r->err, -EINVAL, NO_TRAILER, r->version_line);
	}
	lp_error__warn(r->o->warn, r->o->warn_ctx, r->o->name, at, NO_TRAILER, r->version_line);
	return 0;
}

static int comment(struct lp_reader *r)
{
	struct lp_meta m;
	int version, ret = lp_stream__version_line(r->line, r->len, &version, r->err);

	if (ret < 0)
		return ret;
	if (ret == 1) {
		if ((ret = stream_end(r, lp_reader__lineno(r) - 1)) < 0)
			return ret;
		r->began = r->versioned = true;
		r->ended = false;
		r->version_line = lp_reader__lineno(r);
		r->last_time = 0;
		return r->ops->version ? r->ops->version(r->ctx, r, version) : other(r);
	}
	if ((ret = lp_meta__parse(&r->fields, r->line, r->len, &m)) < 0)
		return lp_error__set(r->err, ret, "out of memory");
	if (ret == 0)
		return other(r);
	if ((ret = lp_meta__check(&m, r->err)) < 0)
		return ret;
	if (lp_span__eq(m.key, "event", 5)) {
		struct lp_event_def d;

		if ((ret = lp_event_def__parse(&m, &d, r->err)) < 0)
			return ret;
		if (r->ops->event)
			return r->ops->event(r->ctx, r, &d);
	} else if (lp_span__eq(m.key, "end", 3)) {
		uint64_t n;

		if (m.nvalues != 1 || numparse__u64(m.values[0].s, m.values[0].len, &n) < 0)
			return lp_error__set(r->err, -EINVAL, "#lp.end needs the stream's record count");
		r->ended = true;
	}
	return r->ops->meta ? r->ops->meta(r->ctx, r, &m) : other(r);
}

/* TIME must not go back within a stream, for the readers that depend on order. */
static int in_order(struct lp_reader *r, uint64_t time)
{
	if (r->o->ordered_for && time < r->last_time)
		return lp_error__set(r->err, -EINVAL, "TIME %" PRIu64 " is before the previous record's (%" PRIu64 "): "
				     "%s needs records in time order, as lp-record writes them",
				     time, r->last_time, r->o->ordered_for);
	if (time > r->last_time)
		r->last_time = time;
	return 0;
}

static int record(struct lp_reader *r)
{
	const struct lp_reader_ops *ops = r->ops;
	int ret;

	if (r->ended)
		return lp_error__set(r->err, -EINVAL, "a record after the stream's trailer (#lp.end)");
	r->began = true;
	switch (r->line[0]) {
	case 'S': case 'P': case 'T': case 'C': case 'R': case 'Q': case 'K': case 'N':
		break;
	default:
		return other(r);	/* a kind a later version added: passed on, not read */
	}
	if ((ret = lp_fields__split(&r->fields, r->line, r->len)) < 0)
		return lp_error__set(r->err, ret, "out of memory");
	switch (r->line[0]) {
	case 'S': {
		struct lp_sample s;

		/* (its wait checked here, whether a program looks at it or not) */
		if ((ret = lp_sample__parse(&r->fields, &s, r->err)) < 0 || (ret = in_order(r, s.time)) < 0 ||
		    (ret = lp_sample__wait(&s, &r->wait, r->err)) < 0 || (ret = saw_pid(r, s.pid)) < 0)
			return ret;
		return ops->sample ? ops->sample(r->ctx, r, &s) : other(r);
	}
	case 'P': {
		struct lp_proc p;

		if ((ret = lp_proc__parse(&r->fields, &p, r->err)) < 0 || (ret = in_order(r, p.time)) < 0 ||
		    (ret = saw_pid(r, p.pid)) < 0)
			return ret;
		return ops->proc ? ops->proc(r->ctx, r, &p) : other(r);
	}
	case 'T': {
		struct lp_thread t;

		if ((ret = lp_thread__parse(&r->fields, &t, r->err)) < 0 || (ret = in_order(r, t.time)) < 0 ||
		    (ret = saw_pid(r, t.pid)) < 0)
			return ret;
		return ops->thread ? ops->thread(r->ctx, r, &t) : other(r);
	}
	case 'C': {
		struct lp_region c;

		if ((ret = lp_region__parse(&r->fields, &c, r->err)) < 0 || (ret = in_order(r, c.time)) < 0 ||
		    (ret = saw_pid(r, c.pid)) < 0)
			return ret;
		return ops->region ? ops->region(r->ctx, r, &c) : other(r);
	}
	case 'R': {
		struct lp_roof roof;

		if ((ret = lp_roof__parse(&r->fields, &roof, r->err)) < 0)
			return ret;
		return ops->roof ? ops->roof(r->ctx, r, &roof) : other(r);
	}
	case 'N': {
		struct lp_count n;

		if ((ret = lp_count__parse(&r->fields, &n, r->err)) < 0 || (ret = in_order(r, n.time)) < 0 ||
		    (n.pid >= 0 && (ret = saw_pid(r, n.pid)) < 0))
			return ret;
		return ops->count ? ops->count(r->ctx, r, &n) : other(r);
	}
	case 'K': {
		struct lp_counts k;

		if ((ret = lp_counts__parse(&r->fields, &k, r->err)) < 0 || (ret = saw_pid(r, k.pid)) < 0)
			return ret;
		return ops->counts ? ops->counts(r->ctx, r, &k) : other(r);
	}
	default: {
		struct lp_point q;

		if ((ret = lp_point__parse(&r->fields, &q, r->err)) < 0)
			return ret;
		return ops->point ? ops->point(r->ctx, r, &q) : other(r);
	}
	}
}

static int line(struct lp_reader *r)
{
	int ret = lp_stream__line_kind(r->line, r->len, r->err);

	if (ret == LP_LINE_COMMENT)
		return comment(r);
	if (ret == LP_LINE_RECORD)
		return record(r);
	if (!r->began)
		return lp_error__set(r->err, -EINVAL, "not an lp stream: expected '%s %d' or a record",
				     LP_STREAM_MAGIC, LP_STREAM_VERSION);
	return ret;
}

int lp_reader__read(const struct lp_reader_opts *o, struct lines *in, const struct lp_reader_ops *ops, void *ctx,
		    struct lp_error *err)
{
	struct lp_reader r = { .o = o, .ops = ops, .ctx = ctx, .in = in, .err = err,
			       .pids = HTAB_INIT(struct pid_entry), .last_pid = -1 };
	char *text;
	int ret;

	while ((ret = lines__next(in, &text, &r.len)) > 0) {
		r.line = text;
		err->line = lines__lineno(in);
		if ((ret = line(&r)) < 0) {
			/* a callback may leave the words to us */
			if (!err->msg[0])
				lp_error__set(err, ret, "%s", ret == -ENOMEM ? "out of memory" : strerror(-ret));
			goto cleanup;
		}
	}
	err->line = 0;
	if (ret < 0) {
		lp_error__set(err, ret, "read error: %s", strerror(-ret));
		goto cleanup;
	}
	if (!r.began) {
		ret = lp_error__set(err, -EINVAL, "empty input: no records, stacks or samples");
		goto cleanup;
	}
	ret = stream_end(&r, lines__lineno(in));
cleanup:
	lp_fields__release(&r.fields);
	htab__release(&r.pids);
	return ret;
}
