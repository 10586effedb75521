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

#include "export-int.h"
#include "strbuf.h"

struct perf_script {
	struct strbuf line;
};

static void *begin(struct export_ctx *x)
{
	(void)x;
	return calloc(1, sizeof(struct perf_script));
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

static int sample(void *st, struct export_ctx *x, const struct export_sample *xs)
{
	struct perf_script *ps = st;
	struct strbuf *b = &ps->line;
	const struct lp_sample *s = xs->s;
	int ret;

	strbuf__reset(b);
	ret = add_text(b, xs->comm, "-");
	if (ret == 0)
		ret = strbuf__addf(b, " %" PRId64 "/%" PRId64 " ", s->pid, s->tid);
	if (ret == 0 && xs->cpu >= 0)
		ret = strbuf__addf(b, "[%03" PRId64 "] ", xs->cpu);
	if (ret == 0)
		ret = export_time(b, s->time);
	if (ret == 0)
		ret = strbuf__addf(b, ": %" PRIu64 " %s:\n", s->weight, x->events[xs->event].key);
	for (size_t i = xs->stack.n; ret == 0 && i-- > 0;) {
		const struct export_frame *f = &xs->stack.frames[i];

		ret = strbuf__addf(b, "\t%16" PRIx64 " ", f->offset);
		if (ret == 0)
			ret = add_text(b, f->name, "[unknown]");
		if (ret == 0)
			ret = strbuf__add(b, " (", 2);
		if (ret == 0)
			ret = add_text(b, f->dso, "[unknown]");
		if (ret == 0)
			ret = strbuf__add(b, ")\n", 2);
	}
	if (ret == 0)
		ret = strbuf__addc(b, '\n');
	if (ret < 0)
		return lp_error__set(x->err, ret, "out of memory");
	if (fwrite(b->s, 1, b->len, x->out) != b->len)
		return export_write_failed(x);
	return 0;
}

static int finish(void *st, struct export_ctx *x)
{
	(void)st;
	if (fflush(x->out) != 0)
		return export_write_failed(x);
	return 0;
}

static void free_state(void *st)
{
	struct perf_script *ps = st;

	strbuf__release(&ps->line);
	free(ps);
}

const struct export_ops export_perf_script_ops = {
	.begin = begin,
	.sample = sample,
	.finish = finish,
	.free = free_state,
};
