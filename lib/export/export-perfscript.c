/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `perf script` text, as perf writes it with pid, tid, cpu, time, period and
 * event: what stackcollapse-perf.pl, lp-collapse and Firefox Profiler import.
 *
 *	demo 1746/1747 [001] 17628.285013147: 1041376 cpu:
 *		    10df worker (/path/demo)
 *		    1131 _start (/path/demo)
 *	(blank line)
 *
 * Frames go leaf first, as perf's do. Every sample is written as it is read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-format.h"
#include "base/strbuf.h"

struct perf_script {
	struct strbuf line;
	struct export_memo *frames;	/* each stack's frame lines */
};

enum { MEMO_BYTES = 64 << 20 };

static void *begin(struct export_ctx *x)
{
	struct perf_script *ps = calloc(1, sizeof(*ps));

	(void)x;
	if (ps && !(ps->frames = export_memo__new(MEMO_BYTES))) {
		free(ps);
		return NULL;
	}
	return ps;
}

/*
 * A line break inside a name or comm would end the record early: those two
 * stay percent-escaped, as in the stream; every other byte is written as is.
 */
static int add_text(struct strbuf *b, struct lp_span s, const char *if_empty)
{
	int ret = 0;

	if (s.len == 0)
		return strbuf__add(b, if_empty, strlen(if_empty));
	for (size_t i = 0; ret == 0 && i < s.len; i++) {
		if (s.s[i] == '\n')
			ret = strbuf__add(b, "%0A", 3);
		else if (s.s[i] == '\r')
			ret = strbuf__add(b, "%0D", 3);
		else
			ret = strbuf__addc(b, s.s[i]);
	}
	return ret;
}

/* The sample's frames, leaf first, one line each: made once per stack. */
static int frame_lines(struct perf_script *ps, struct export_ctx *x, const struct lp_sample *s)
{
	struct strbuf *b = &ps->line;
	struct export_stack stack;
	const void *data;
	size_t len, start = b->len;
	int ret = export_memo__get(ps->frames, s, &data, &len);

	if (ret != 0)
		return ret < 0 ? ret : strbuf__add(b, data, len);
	if ((ret = export_sample__stack(x, &stack)) < 0)
		return ret;
	for (size_t i = stack.n; ret == 0 && i-- > 0;) {
		const struct export_frame *f = &stack.frames[i];

		ret = strbuf__addc(b, '\t');
		if (ret == 0)
			ret = export__put_hex(b, f->offset, 16);
		if (ret == 0)
			ret = strbuf__addc(b, ' ');
		if (ret == 0)
			ret = add_text(b, f->name, "[unknown]");
		if (ret == 0)
			ret = add_lit(b, " (");
		if (ret == 0)
			ret = add_text(b, f->dso, "[unknown]");
		if (ret == 0)
			ret = add_lit(b, ")\n");
	}
	return ret ? ret : export_memo__put(ps->frames, b->s + start, b->len - start);
}

static int sample(void *st, struct export_ctx *x, const struct export_sample *xs)
{
	struct perf_script *ps = st;
	struct strbuf *b = &ps->line;
	const struct lp_sample *s = xs->s;
	int ret;

	strbuf__reset(b);
	const char *key = x->events[xs->event].key;

	ret = add_text(b, xs->comm, "-");
	if (ret == 0)
		ret = strbuf__addc(b, ' ') ?: export__put_i64(b, s->pid) ?: strbuf__addc(b, '/') ?:
			export__put_i64(b, s->tid) ?: strbuf__addc(b, ' ');
	if (ret == 0 && xs->cpu >= 0)
		ret = strbuf__addf(b, "[%03" PRId64 "] ", xs->cpu);
	if (ret == 0)
		ret = export__time(b, s->time);
	if (ret == 0)
		ret = add_lit(b, ": ") ?: export__put_u64(b, s->weight) ?: strbuf__addc(b, ' ') ?:
			strbuf__add(b, key, strlen(key)) ?: add_lit(b, ":\n");
	if (ret == 0)
		ret = frame_lines(ps, x, s);
	if (ret == 0)
		ret = strbuf__addc(b, '\n');
	if (ret < 0)
		return ret == -ENOMEM ? lp_error__set(x->err, ret, "out of memory") : ret;
	if (fwrite(b->s, 1, b->len, x->out) != b->len)
		return export__write_failed(x);
	return 0;
}

static int finish(void *st, struct export_ctx *x)
{
	(void)st;
	if (fflush(x->out) != 0)
		return export__write_failed(x);
	return 0;
}

static void free_state(void *st)
{
	struct perf_script *ps = st;

	strbuf__release(&ps->line);
	export_memo__free(ps->frames);
	free(ps);
}

const struct export_ops export__perf_script_ops = {
	.begin = begin,
	.sample = sample,
	.finish = finish,
	.free = free_state,
};
