/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lp_reader__read: the one loop every program reads streams with, its callbacks and its rules. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/lines.h"
#include "stream/lpstream.h"
#include "tap.h"

struct seen {
	int samples, procs, threads, roofs, points, events, metas, versions, others;
	uint64_t weight;
	long other_line;
	int warnings;
	char warning[LP_ERROR_MSG + 32];
};

static int on_sample(void *ctx, struct lp_reader *r, const struct lp_sample *s)
{
	struct seen *x = ctx;

	(void)r;
	x->samples++;
	x->weight += s->weight;
	return s->weight == 666 ? -ENOMEM : 0;	/* a callback that fails without words */
}

static int on_proc(void *ctx, struct lp_reader *r, const struct lp_proc *p)
{
	(void)r, (void)p;
	((struct seen *)ctx)->procs++;
	return 0;
}

static int on_thread(void *ctx, struct lp_reader *r, const struct lp_thread *t)
{
	(void)r, (void)t;
	((struct seen *)ctx)->threads++;
	return 0;
}

static int on_event(void *ctx, struct lp_reader *r, const struct lp_event_def *d)
{
	(void)r, (void)d;
	((struct seen *)ctx)->events++;
	return 0;
}

static int on_meta(void *ctx, struct lp_reader *r, const struct lp_meta *m)
{
	(void)r, (void)m;
	((struct seen *)ctx)->metas++;
	return 0;
}

static int on_version(void *ctx, struct lp_reader *r, int version)
{
	(void)r;
	((struct seen *)ctx)->versions += version;
	return 0;
}

static int on_other(void *ctx, struct lp_reader *r, const char *line, size_t len)
{
	struct seen *x = ctx;

	(void)line, (void)len;
	x->others++;
	x->other_line = lp_reader__lineno(r);
	return 0;
}

static void on_warning(void *ctx, const struct lp_error *w)
{
	struct seen *x = ctx;

	x->warnings++;
	snprintf(x->warning, sizeof(x->warning), "%ld: %s", w->line, w->msg);
}

static const struct lp_reader_ops all_ops = {
	.sample = on_sample, .proc = on_proc, .thread = on_thread, .event = on_event,
	.meta = on_meta, .version = on_version, .other = on_other,
};

/* Reads text; its verdict, what the callbacks saw in x, and the error. */
static int read_text(const char *text, const struct lp_reader_opts *o, const struct lp_reader_ops *ops,
		     struct seen *x, struct lp_error *err)
{
	int fd = memfd_create("reader", 0), ret;
	struct lines *in;

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	in = lines__new(fd);
	memset(x, 0, sizeof(*x));
	lp_error__clear(err);
	ret = lp_reader__read(o, in, ops, x, err);
	lines__free(in);
	close(fd);
	return ret;
}

static void callbacks(void)
{
	struct lp_reader_opts o = { .name = "t", .warn = on_warning };
	struct lp_error err;
	struct seen x;
	int ret;

	o.warn_ctx = &x;
	ret = read_text("#lp-stream 1\n# a comment\n#lp.host\th\n#lp.event\tk\tpage-faults\t1\tT\tfaults\n"
			"P\t1\t2\t2\texit\tc\nS\t2\t2\t2\tc\tcpu\t5\ta;b\t-\nT\t3\t2\t2\tc\tcpu=1\n"
			"X\tlater\n#lp.end\t4\n", &o, &all_ops, &x, &err);
	ok(ret == 0 && x.versions == 1 && x.samples == 1 && x.weight == 5 && x.procs == 1 && x.threads == 1 &&
	   x.events == 1 && x.metas == 2 && x.others == 2 && x.warnings == 0,
	   "each line to its callback: version, event, metadata (the trailer too), records; comments and X to other");
	ret = read_text("#lp-stream 1\nS\t2\t2\t2\tc\tcpu\t5\ta;b\t-\n", &o, &(struct lp_reader_ops){ .other = on_other },
			&x, &err);
	ok(ret == 0 && x.others == 2 && x.other_line == 2, "a kind without its callback goes to other");
	ret = read_text("#lp-stream 1\nS\t2\t2\t2\tc\tcpu\t666\ta\t-\n", &o, &all_ops, &x, &err);
	is_str(err.msg, "out of memory", "a callback may leave -ENOMEM's words to the reader");
	ok(ret == -ENOMEM && err.line == 2, "... at the callback's line");
}

static void rules(void)
{
	struct lp_reader_opts o = { .name = "t", .warn = on_warning };
	struct lp_error err;
	struct seen x;
	int ret;

	o.warn_ctx = &x;
	ret = read_text("", &o, &all_ops, &x, &err);
	ok(ret == -EINVAL && strcmp(err.msg, "empty input: no records, stacks or samples") == 0, "0 bytes: no stream");
	ret = read_text("# only\n", &o, &all_ops, &x, &err);
	ok(ret == -EINVAL && strcmp(err.msg, "empty input: no records, stacks or samples") == 0, "comments alone");
	ret = read_text("a;b 1\n", &o, &all_ops, &x, &err);
	ok(ret == -EINVAL && err.line == 1 && strstr(err.msg, "not an lp stream"), "folded stacks are no stream");
	ret = read_text("S\t2\t2\t2\tc\tcpu\t5\ta\t-\n", &o, &all_ops, &x, &err);
	ok(ret == 0 && x.samples == 1 && x.warnings == 0, "records without a version line (awk's output) are read");
	ret = read_text("#lp-stream 1\nP\t1\t2\n#lp.end\t1\n", &o, &(struct lp_reader_ops){ 0 }, &x, &err);
	ok(ret == -EINVAL && err.line == 2, "a malformed P record is an error even with no callback for it");
	ret = read_text("#lp-stream 1\nS\t2\t2\t2\tc\tcpu\t5\ta\t-\n", &o, &all_ops, &x, &err);
	ok(ret == 0 && x.warnings == 1 && strstr(x.warning, "2: the stream that starts at line 1 ends without its trailer"),
	   "no trailer: a warning at the last line");
	o.strict = true;
	ret = read_text("#lp-stream 1\nS\t2\t2\t2\tc\tcpu\t5\ta\t-\n", &o, &all_ops, &x, &err);
	ok(ret == -EINVAL && err.line == 2 && x.warnings == 0, "no trailer, strict: an error");
	o.strict = false;
	ret = read_text("#lp-stream 1\n#lp.end\t0\n#lp-stream 1\nS\t2\t2\t2\tc\tcpu\t5\ta\t-\n#lp.end\t1\n", &o, &all_ops,
			&x, &err);
	ok(ret == 0 && x.versions == 2 && x.warnings == 0, "streams one after another, each whole");
	ret = read_text("#lp-stream 1\n#lp.end\t0\nS\t2\t2\t2\tc\tcpu\t5\ta\t-\n", &o, &all_ops, &x, &err);
	ok(ret == -EINVAL && err.line == 3, "a record after the trailer");
	ret = read_text("#lp-stream 1\n#lp.end\n", &o, &all_ops, &x, &err);
	ok(ret == -EINVAL && err.line == 2, "a trailer without its count");
	ret = read_text("#lp-stream 1\nS\t9\t2\t2\tc\tcpu\t5\ta\t-\nS\t3\t2\t2\tc\tcpu\t5\ta\t-\n#lp.end\t2\n", &o,
			&all_ops, &x, &err);
	ok(ret == 0, "time going back: read where order does not matter");
	o.ordered_for = "test";
	ret = read_text("#lp-stream 1\nS\t9\t2\t2\tc\tcpu\t5\ta\t-\nS\t3\t2\t2\tc\tcpu\t5\ta\t-\n#lp.end\t2\n", &o,
			&all_ops, &x, &err);
	ok(ret == -EINVAL && err.line == 3 && strstr(err.msg, "test needs records in time order"),
	   "time going back: refused where order matters");
	ret = read_text("#lp-stream 1\nS\t9\t2\t2\tc\tcpu\t5\ta\t-\n#lp.end\t1\n#lp-stream 1\nS\t3\t2\t2\tc\tcpu\t5\ta\t-\n"
			"#lp.end\t1\n", &o, &all_ops, &x, &err);
	ok(ret == 0, "each stream has its own clock");
}

int main(void)
{
	callbacks();
	rules();
	return tap_done();
}
