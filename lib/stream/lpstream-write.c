/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The writer every producer of lp streams uses: a record built in one buffer, one fwrite. */
#include "stream/lpstream.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <sys/stat.h>

#include "base/bgwrite.h"
#include "stream/escape.h"
#include "base/numparse.h"

void lp_writer__init(struct lp_writer *w, FILE *out)
{
	*w = (struct lp_writer){ .out = out, .line = STRBUF_INIT };
}

/* -EIO for a write that failed with -err (the first one's errno kept), else err. */
static int failed(struct lp_writer *w, int err)
{
	if (err >= 0)
		return err;
	if (!w->err)
		w->err = -err;
	return -EIO;
}

static size_t batch_for(FILE *out)
{
	struct stat st;
	int fd = fileno(out);

	return fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? LP_WRITER_FILE_BATCH : LP_WRITER_BATCH;
}

void lp_writer__batch(struct lp_writer *w)
{
	w->batched = true;
	w->batch = batch_for(w->out);
	/*
	 * Its memory taken once: grown by doubling, the buffer's moves touched
	 * twice its size in fresh pages, each dear in a VM (12 ms of a 999 Hz
	 * recording's 100). Without it, it grows as it fills.
	 */
	strbuf__grow(&w->line, w->batch + LP_WRITER_BATCH);
}

/*
 * A batch written straight to the file descriptor, once what the FILE holds
 * is out: through the FILE's buffer it would be copied once more (and a big
 * buffer's pages faulted in). A FILE without one takes it as it is.
 */
static int put_batch(struct lp_writer *w, const char *p, size_t n)
{
	int fd = fileno(w->out);

	if (fd < 0)
		return fwrite_unlocked(p, 1, n, w->out) == n ? 0 : -(errno ? errno : EIO);
	if (__fpending(w->out) && fflush(w->out) != 0)
		return -(errno ? errno : EIO);
	return bgwrite__write_all(fd, p, n);
}

int lp_writer__flush(struct lp_writer *w)
{
	size_t n = w->kept;
	int ret;

	w->kept = 0;
	if (w->bg) {
		w->line.len = n;
		ret = bgwrite__put(w->bg, &w->line);
	} else {
		strbuf__reset(&w->line);
		ret = w->batched ? put_batch(w, w->line.s, n) :
		      fwrite_unlocked(w->line.s, 1, n, w->out) == n ? 0 : -(errno ? errno : EIO);
	}
	return failed(w, ret);
}

int lp_writer__background(struct lp_writer *w)
{
	int fd = fileno(w->out);

	if (fd < 0)
		return -EBADF;
	if (fflush(w->out) != 0)
		return -errno;
	if (!(w->bg = bgwrite__new(fd)))
		return -errno;
	w->batched = true;
	w->batch = LP_WRITER_BG_BATCH;
	return 0;
}

int lp_writer__foreground(struct lp_writer *w)
{
	int ret = w->kept ? lp_writer__flush(w) : 0, finished = bgwrite__finish(w->bg);

	w->bg = NULL;
	w->batch = batch_for(w->out);
	return ret < 0 ? ret : failed(w, finished);
}

/* A new record starts after the ones kept. */
static void begin(struct lp_writer *w)
{
	w->line.len = w->kept;
}

void lp_writer__release(struct lp_writer *w)
{
	/* on a failure's way out: what was handed over is written, what was kept is not */
	failed(w, bgwrite__finish(w->bg));
	w->bg = NULL;
	strbuf__release(&w->line);
}

static int add(struct lp_writer *w, const char *s, size_t len)
{
	return strbuf__add(&w->line, s, len);
}

static int add_span(struct lp_writer *w, struct lp_span s)
{
	return strbuf__add(&w->line, s.s, s.len);
}

/* "\t" and a raw string, escaped as a field. */
static int add_field(struct lp_writer *w, const char *raw)
{
	size_t len = strlen(raw);
	int ret = strbuf__grow(&w->line, 1 + 3 * len);

	if (ret < 0)
		return ret;
	w->line.s[w->line.len++] = '\t';
	w->line.len += escape__encode(w->line.s + w->line.len, raw, len, ESCAPE_FIELD);
	return 0;
}

/* v in decimal, then sep unless 0: numbers by hand, not through printf (the hot path). */
static int add_u64(struct lp_writer *w, uint64_t v, char sep)
{
	char buf[24], *end = buf + sizeof(buf) - 1, *p = numparse__format_u64(end, v);

	if (sep)
		*end++ = sep;
	return add(w, p, (size_t)(end - p));
}

static int add_i64(struct lp_writer *w, int64_t v, char sep)
{
	int ret = v < 0 ? strbuf__addc(&w->line, '-') : 0;

	return ret < 0 ? ret : add_u64(w, v < 0 ? -(uint64_t)v : (uint64_t)v, sep);
}

int lp_writer__end(struct lp_writer *w)
{
	int ret = strbuf__addc(&w->line, '\n');

	if (ret < 0)
		return ret;
	if (w->line.s[w->kept] != '#')
		w->records++;
	w->kept = w->line.len;
	return w->batched && w->kept < w->batch ? 0 : lp_writer__flush(w);
}

int lp_writer__raw(struct lp_writer *w, const char *line, size_t len)
{
	int ret;

	begin(w);
	/* the thread writes what is kept: this line goes after it */
	if (w->bg)
		return (ret = add(w, line, len)) < 0 ? ret : lp_writer__end(w);
	if (len && line[0] != '#')
		w->records++;
	if (w->kept && (ret = lp_writer__flush(w)) < 0)
		return ret;
	if (fwrite_unlocked(line, 1, len, w->out) != len || putc_unlocked('\n', w->out) == EOF)
		return failed(w, -(errno ? errno : EIO));
	return 0;
}

int lp_writer__version(struct lp_writer *w)
{
	int ret;

	begin(w);
	if ((ret = add(w, LP_STREAM_MAGIC " ", sizeof(LP_STREAM_MAGIC))) < 0 ||
	    (ret = add_u64(w, LP_STREAM_VERSION, 0)) < 0)
		return ret;
	return lp_writer__end(w);
}

int lp_writer__trailer(struct lp_writer *w)
{
	int ret;

	begin(w);
	if ((ret = add(w, "#lp.end\t", 8)) < 0 || (ret = add_u64(w, w->records, 0)) < 0)
		return ret;
	return lp_writer__end(w);
}

int lp_writer__meta(struct lp_writer *w, const char *key, const char *const *values, size_t n)
{
	int ret;

	begin(w);
	if ((ret = add(w, "#lp.", 4)) < 0 || (ret = add(w, key, strlen(key))) < 0)
		return ret;
	for (size_t i = 0; i < n; i++)
		if ((ret = add_field(w, values[i])) < 0)
			return ret;
	return lp_writer__end(w);
}

int lp_writer__sampling(struct lp_writer *w, const char *event, const char *source, enum lp_sampling_mode mode,
			uint64_t value)
{
	char buf[64];
	const char *v[3] = { event, source, buf };

	switch (mode) {
	case LP_SAMPLING_FREQ:
		snprintf(buf, sizeof(buf), "freq=%" PRIu64, value);
		break;
	case LP_SAMPLING_PERIOD:
		snprintf(buf, sizeof(buf), "period=%" PRIu64, value);
		break;
	case LP_SAMPLING_EVERY:
		snprintf(buf, sizeof(buf), "every-interval");
		break;
	default:
		return -EINVAL;
	}
	return lp_writer__meta(w, "sampling", v, 3);
}

static int add_stack(struct lp_writer *w, struct lp_span stack, struct lp_span locs)
{
	int ret;

	if ((ret = strbuf__addc(&w->line, '\t')) < 0 || (ret = add_span(w, stack)) < 0 ||
	    (ret = strbuf__addc(&w->line, '\t')) < 0)
		return ret;
	return locs.len ? add_span(w, locs) : strbuf__addc(&w->line, '-');
}

/* An S record's fields up to its weight. */
static int sample_head(struct lp_writer *w, uint64_t time, int64_t pid, int64_t tid, const char *comm,
		       const char *event, uint64_t weight)
{
	int ret;

	begin(w);
	if ((ret = add(w, "S\t", 2)) < 0 || (ret = add_u64(w, time, '\t')) < 0 ||
	    (ret = add_i64(w, pid, '\t')) < 0 || (ret = add_i64(w, tid, 0)) < 0 ||
	    (ret = add_field(w, comm)) < 0 || (ret = add_field(w, event)) < 0 ||
	    (ret = strbuf__addc(&w->line, '\t')) < 0)
		return ret;
	return add_u64(w, weight, 0);
}

int lp_writer__sample(struct lp_writer *w, uint64_t time, int64_t pid, int64_t tid, const char *comm,
		      const char *event, uint64_t weight, struct lp_span stack, struct lp_span locs)
{
	int ret = sample_head(w, time, pid, tid, comm, event, weight);

	return ret < 0 ? ret : add_stack(w, stack, locs);
}

/* The parts of a list, joined by ';' */
static int add_parts(struct lp_writer *w, const struct lp_span part[2])
{
	int ret = add_span(w, part[0]);

	if (ret == 0 && part[0].len && part[1].len)
		ret = strbuf__addc(&w->line, ';');
	return ret < 0 ? ret : add_span(w, part[1]);
}

int lp_writer__sample_parts(struct lp_writer *w, uint64_t time, int64_t pid, int64_t tid, const char *comm,
			    const char *event, uint64_t weight, const struct lp_span stack[2],
			    const struct lp_span locs[2])
{
	int ret;

	if ((ret = sample_head(w, time, pid, tid, comm, event, weight)) < 0 ||
	    (ret = strbuf__addc(&w->line, '\t')) < 0 || (ret = add_parts(w, stack)) < 0 ||
	    (ret = strbuf__addc(&w->line, '\t')) < 0)
		return ret;
	return locs[0].len || locs[1].len ? add_parts(w, locs) : strbuf__addc(&w->line, '-');
}

int lp_writer__proc(struct lp_writer *w, uint64_t time, int64_t pid, int64_t tid, enum lp_proc_what what,
		    const char *comm)
{
	const char *name = lp_proc__name(what);
	int ret;

	if (!name)
		return -EINVAL;
	begin(w);
	if ((ret = add(w, "P\t", 2)) < 0 || (ret = add_u64(w, time, '\t')) < 0 ||
	    (ret = add_i64(w, pid, '\t')) < 0 || (ret = add_i64(w, tid, '\t')) < 0 ||
	    (ret = add(w, name, strlen(name))) < 0)
		return ret;
	return add_field(w, comm);
}

int lp_writer__region(struct lp_writer *w, uint64_t time, int64_t pid, int64_t tid, bool opens, const char *name)
{
	int ret;

	begin(w);
	if ((ret = add(w, "C\t", 2)) < 0 || (ret = add_u64(w, time, '\t')) < 0 ||
	    (ret = add_i64(w, pid, '\t')) < 0 || (ret = add_i64(w, tid, '\t')) < 0 ||
	    (ret = add(w, opens ? "begin" : "end", opens ? 5 : 3)) < 0)
		return ret;
	return add_field(w, name);
}

int lp_writer__thread(struct lp_writer *w, uint64_t time, int64_t pid, int64_t tid, const char *comm)
{
	int ret;

	begin(w);
	if ((ret = add(w, "T\t", 2)) < 0 || (ret = add_u64(w, time, '\t')) < 0 ||
	    (ret = add_i64(w, pid, '\t')) < 0 || (ret = add_i64(w, tid, 0)) < 0)
		return ret;
	return add_field(w, comm);
}

int lp_writer__spawn_parent(struct lp_writer *w, int64_t ppid, int64_t ptid, struct lp_span stack,
			    struct lp_span locs)
{
	int ret;

	if ((ret = strbuf__addc(&w->line, '\t')) < 0 || (ret = add_i64(w, ppid, '\t')) < 0 ||
	    (ret = add_i64(w, ptid, 0)) < 0)
		return ret;
	return add_stack(w, stack, locs);
}

int lp_writer__exec_path(struct lp_writer *w, const char *path)
{
	return add_field(w, path);
}

int lp_writer__attr_u64(struct lp_writer *w, const char *key, uint64_t v)
{
	int ret;

	if ((ret = strbuf__addc(&w->line, '\t')) < 0 || (ret = add(w, key, strlen(key))) < 0 ||
	    (ret = strbuf__addc(&w->line, '=')) < 0)
		return ret;
	return add_u64(w, v, 0);
}

int lp_writer__attr_str(struct lp_writer *w, const char *key, const char *raw)
{
	size_t len = strlen(raw);
	int ret;

	if ((ret = strbuf__addc(&w->line, '\t')) < 0 || (ret = add(w, key, strlen(key))) < 0 ||
	    (ret = strbuf__addc(&w->line, '=')) < 0 || (ret = strbuf__grow(&w->line, 3 * len)) < 0)
		return ret;
	w->line.len += escape__encode(w->line.s + w->line.len, raw, len, ESCAPE_FIELD);
	return 0;
}

int lp_writer__copy_sample(struct lp_writer *w, const struct lp_sample *s)
{
	int ret;

	begin(w);
	if ((ret = add(w, "S\t", 2)) < 0 || (ret = add_u64(w, s->time, '\t')) < 0 ||
	    (ret = add_i64(w, s->pid, '\t')) < 0 || (ret = add_i64(w, s->tid, '\t')) < 0 ||
	    (ret = add_span(w, s->comm)) < 0 || (ret = strbuf__addc(&w->line, '\t')) < 0 ||
	    (ret = add_span(w, s->event)) < 0 || (ret = strbuf__addc(&w->line, '\t')) < 0 ||
	    (ret = add_u64(w, s->weight, 0)) < 0 || (ret = add_stack(w, s->stack, s->locs)) < 0)
		return ret;
	for (size_t i = 0; i < s->nattrs; i++)
		if ((ret = strbuf__addc(&w->line, '\t')) < 0 || (ret = add_span(w, s->attrs[i])) < 0)
			return ret;
	return lp_writer__end(w);
}

int lp_writer__replace_stack(struct lp_writer *w, const struct lp_fields *f, size_t at, struct lp_span stack,
			     struct lp_span locs)
{
	int ret;

	begin(w);
	for (size_t i = 0; i < f->n; i++) {
		struct lp_span s = i == at ? stack : i == at + 1 ? locs : f->v[i];

		if ((i && (ret = strbuf__addc(&w->line, '\t')) < 0) || (ret = add_span(w, s)) < 0)
			return ret;
	}
	return lp_writer__end(w);
}

int lp_writer__roof(struct lp_writer *w, const char *name, enum lp_roof_kind kind, double value)
{
	int ret;

	begin(w);
	if ((ret = add(w, "R", 1)) < 0 || (ret = add_field(w, name)) < 0)
		return ret;
	return strbuf__addf(&w->line, "\t%s\t%.0f\t%s", kind == LP_ROOF_MEMORY ? "memory" : "compute", value,
			    kind == LP_ROOF_MEMORY ? "B/s" : "FLOP/s");
}

int lp_writer__counts(struct lp_writer *w, int64_t pid, int64_t tid, struct lp_span name, uint64_t insns,
		      uint64_t flops, uint64_t loaded, uint64_t stored)
{
	int ret;

	begin(w);
	if ((ret = add(w, "K\t", 2)) < 0 || (ret = add_i64(w, pid, '\t')) < 0 || (ret = add_i64(w, tid, '\t')) < 0 ||
	    (ret = add_span(w, name)) < 0)
		return ret;
	return strbuf__addf(&w->line, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64, insns, flops, loaded, stored);
}

int lp_writer__point(struct lp_writer *w, struct lp_span name, uint64_t flops, uint64_t bytes, double seconds)
{
	int ret;

	begin(w);
	if ((ret = add(w, "Q\t", 2)) < 0 || (ret = add_span(w, name)) < 0)
		return ret;
	return strbuf__addf(&w->line, "\t%" PRIu64 "\t%" PRIu64 "\t%.9f", flops, bytes, seconds);
}

int lp_writer__count(struct lp_writer *w, uint64_t time, int64_t pid, int64_t tid, const char *comm,
		     const char *event, enum lp_count_state state, uint64_t value, uint64_t enabled,
		     uint64_t running)
{
	int ret;

	begin(w);
	if ((ret = add(w, "N\t", 2)) < 0 || (ret = add_u64(w, time, '\t')) < 0)
		return ret;
	if (pid < 0)
		ret = add(w, "-\t-\t-", 5);
	else if ((ret = add_i64(w, pid, '\t')) == 0 && (ret = add_i64(w, tid, 0)) == 0)
		ret = add_field(w, comm);
	if (ret < 0 || (ret = add_field(w, event)) < 0)
		return ret;
	if (state == LP_COUNT_COUNTED)
		ret = strbuf__addf(&w->line, "\t%" PRIu64, value);
	else
		ret = add(w, "\t-", 2);
	if (ret == 0)
		ret = strbuf__addf(&w->line, "\t%" PRIu64 "\t%" PRIu64, enabled, running);
	if (ret == 0 && state != LP_COUNT_COUNTED)
		ret = lp_writer__attr_str(w, "state", state == LP_COUNT_NOT_SUPPORTED ? "not-supported" : "not-counted");
	return ret;
}
