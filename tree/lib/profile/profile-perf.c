/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf script text into a profile: stackcollapse-perf.pl's folding, on two cores for a big file. */
#include "profile/profile-int.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/perfscript.h"

static void perf_warn(void *ctx, const struct lp_error *w)
{
	profile__warn(ctx, w->msg);
}

/*
 * perf script text on two cores: once the first sample is read (its event
 * is the one counted), the second half of a big regular file, from a sample
 * boundary, goes to a thread with its own profile; its unique stacks are
 * merged at the end. The output is the same: folded stacks are sorted, and
 * a sink (lp-svg's tree) is handed them in the order they were first seen
 * there, the order one core meets them in, each with its samples' sum. If
 * the second half had anything to say (a warning, an error), it is read
 * again in order after the first, so messages and line numbers are exactly
 * those of one core.
 */
enum { SPLIT_MIN = 32 << 20, SPLIT_SEARCH = 8 << 20 };

struct perf_half {
	bool tried, started, joinable;
	struct profile *q;
	pthread_t thread;
	uint64_t from, to;
	int col, ret;
	unsigned warnings;
	char *event;
	struct lp_error err;
};

static void half_warn(void *ctx, const struct lp_error *w)
{
	(void)w;
	((struct perf_half *)ctx)->warnings++;
}

static void *read_half(void *arg)
{
	struct perf_half *h = arg;

	h->q->lines = lines__new_range(h->q->fd, h->from, h->to, 0);
	h->ret = h->q->lines ? profile__read_perf(h->q, h->col, &h->err) : -ENOMEM;
	lines__free(h->q->lines);
	h->q->lines = NULL;
	return NULL;
}

/* Where the sample after offset starts: past the next blank line; 0 if none near. */
static uint64_t sample_boundary(int fd, uint64_t from, uint64_t to)
{
	char buf[1 << 16];
	char prev = 0;

	for (uint64_t at = from; at < to && at - from < SPLIT_SEARCH;) {
		ssize_t n = pread(fd, buf, sizeof(buf), (off_t)at);

		if (n <= 0)
			return 0;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n' && prev == '\n')
				return at + (uint64_t)i + 1 < to ? at + (uint64_t)i + 1 : 0;
			prev = buf[i];
		}
		at += (uint64_t)n;
	}
	return 0;
}

static void start_half(struct profile *c, struct perfscript *p, int col, struct perf_half *h)
{
	struct profile_opts o = c->o;
	struct stat st;
	const char *event;
	size_t len;
	uint64_t split;

	h->tried = true;
	if (c->o.jobs < 2 || c->o.time_ordered || c->fd_base < 0 || fstat(c->fd, &st) < 0 ||
	    !S_ISREG(st.st_mode) || (uint64_t)st.st_size < (uint64_t)c->fd_base + SPLIT_MIN ||
	    !(event = perfscript__event(p, &len)) || !(h->event = strndup(event, len)))
		return;
	split = sample_boundary(c->fd, (uint64_t)c->fd_base + ((uint64_t)st.st_size - (uint64_t)c->fd_base) / 2,
				(uint64_t)st.st_size);
	if (!split || lines__stop_at(c->lines, split - (uint64_t)c->fd_base) < 0)
		return;
	/* from here the first half ends at split: the rest is read by the thread, or after, in order */
	h->started = true;
	h->from = split;
	h->to = (uint64_t)st.st_size;
	h->col = col;
	o.jobs = 1;
	o.event_filter = h->event;
	/* the half keeps its stacks, for the merge */
	o.sink = NULL;
	o.sink_ctx = NULL;
	o.warn = half_warn;
	o.ctx = h;
	h->q = profile__new(&o);
	if (!h->q)
		return;
	h->q->file = c->file;
	h->q->event_defaulted = !c->o.event_filter;
	h->q->fd = c->fd;
	h->q->fd_base = -1;
	h->q->count_adds = c->o.sink != NULL;
	h->joinable = pthread_create(&h->thread, NULL, read_half, h) == 0;
}

/* The second half's stacks into c's, or to its sink in the order they came. */
static int merge_half(struct profile *c, const struct profile *q, struct lp_error *err)
{
	size_t n = stackmap__size(q->stacks);

	for (size_t i = 0; i < n; i++) {
		const struct stack_entry *e = stackmap__entry(q->stacks, (uint32_t)i);

		for (int col = 0; col < STACKMAP_COLUMNS; col++) {
			int ret;

			if (!c->o.sink) {
				if (e->count[col] && !stackmap__add(c->stacks, e->key, e->len, col, e->count[col]))
					return lp_error__set(err, -errno, "%s", errno == EOVERFLOW ?
							     "a stack's count does not fit 64 bits" : "out of memory");
				continue;
			}
			/* a sample of weight 0 still makes its frames */
			if (q->adds[i][col] &&
			    (ret = c->o.sink(c->o.sink_ctx, e->key, e->len, col, e->count[col], q->adds[i][col])) < 0)
				return lp_error__set(err, ret, "%s", ret == -EOVERFLOW ?
						     "a count does not fit 64 bits" : "out of memory");
		}
	}
	return 0;
}

static int perf_lines(struct profile *c, struct perfscript *p, int col, struct perf_half *h, struct lp_error *err)
{
	char *line;
	size_t len;
	int ret;

	while ((ret = lines__next(c->lines, &line, &len)) > 0) {
		const struct perfscript_sample *s;

		ret = perfscript__line(p, line, len);
		if (ret < 0) {
			err->line = lines__lineno(c->lines);
			return lp_error__set(err, ret, "%s", ret == -ENOMEM ? "out of memory" : perfscript__error(p));
		}
		if (ret == 0)
			continue;
		s = perfscript__sample(p);
		ret = profile__add(c, s->key, s->keylen, col, s->period, c->seq, s->thread, s->threadlen, err);
		if (ret < 0) {
			err->line = lines__lineno(c->lines);
			return ret;
		}
		if (!h->tried)
			start_half(c, p, col, h);
	}
	if (ret < 0)
		return lp_error__set(err, ret, "read error: %s", strerror(-ret));
	return 0;
}

int profile__read_perf(struct profile *c, int col, struct lp_error *err)
{
	struct perfscript_opts po = {
		.naming = c->o.naming,
		.annotate_kernel = c->o.annotate_kernel,
		.annotate_jit = c->o.annotate_jit,
		.addrs = c->o.addrs,
		.event_filter = c->o.event_filter,
		.event_defaulted = c->event_defaulted,
		.warn = perf_warn,
		.ctx = c,
	};
	struct perfscript *p = perfscript__new(&po);
	struct perf_half h = { 0 };
	int ret;

	if (!p)
		return lp_error__set(err, -errno, "cannot set up the perf script parser");
	ret = perf_lines(c, p, col, &h, err);
	if (h.joinable)
		pthread_join(h.thread, NULL);
	if (ret == 0 && h.started) {
		if (h.joinable && h.ret == 0 && h.warnings == 0) {
			ret = merge_half(c, h.q, err);
		} else {
			/* the second half again, in order, after the first */
			long lines = lines__lineno(c->lines);

			lines__free(c->lines);
			c->lines = lines__new_range(c->fd, h.from, h.to, lines);
			ret = c->lines ? perf_lines(c, p, col, &h, err) : lp_error__set(err, -ENOMEM, "out of memory");
		}
	}
	if (ret == 0 && perfscript__pending(p))
		profile__warn(c, "the last sample has no blank line after it and is dropped, "
			"as stackcollapse-perf.pl does");
	profile__free(h.q);
	free(h.event);
	perfscript__free(p);
	return ret;
}
