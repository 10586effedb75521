/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "filter/lpfilter.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/detect.h"
#include "stream/escape.h"
#include "formats/folded.h"
#include "base/hash.h"
#include "base/htab.h"
#include "base/lines.h"
#include "stream/lpstream.h"
#include "base/numparse.h"
#include "base/strbuf.h"

/*
 * A stack already cut (pure filters): recordings repeat the same stacks, and
 * looking the whole STACK and LOCS up costs less than splitting, matching and
 * joining them again.
 */
struct cut_memo {
	struct htab_entry head;
	size_t at;			/* in memo_text: stack, locs, cut stack, cut locs */
	uint32_t stacklen, locslen, cutlen, cutlocslen;
	bool keep_first;
};

/* Memory the memo may take before it stops learning new stacks. */
enum { CUT_MEMO_MAX_TEXT = 128 << 20 };

/*
 * When few stacks repeat (one recording, whose leaves differ in their
 * offsets), hashing and keeping every stack costs more than it saves: after a
 * window of lookups that found less than one in MEMO_MIN_HITS, the memo rests
 * for MEMO_REST stacks, then tries again.
 */
enum { MEMO_WINDOW = 4096, MEMO_MIN_HITS = 8, MEMO_REST = 65536 };

struct run {
	const struct lpfilter_opts *o;
	struct htab memo;	/* of struct cut_memo */
	struct strbuf memo_text;
	size_t memo_lookups, memo_hits, memo_rest;
	struct filter_frame *frames;
	struct lp_span *raw_frames, *raw_locs;
	bool *keep;
	size_t *sym_at, *exec_at;	/* where unescaped copies are in names */
	bool *frame_escaped, *loc_escaped;
	size_t cap;
	struct strbuf names;	/* unescaped names and executables */
	struct strbuf stack, locs;
	struct lp_writer out;
	struct lp_error *err;
};

static int reserve(struct run *r, size_t n)
{
	if (n <= r->cap)
		return 0;
	r->cap = n * 2;
	r->frames = realloc(r->frames, r->cap * sizeof(*r->frames));
	r->raw_frames = realloc(r->raw_frames, r->cap * sizeof(*r->raw_frames));
	r->raw_locs = realloc(r->raw_locs, r->cap * sizeof(*r->raw_locs));
	r->keep = realloc(r->keep, r->cap * sizeof(*r->keep));
	r->sym_at = realloc(r->sym_at, r->cap * sizeof(*r->sym_at));
	r->exec_at = realloc(r->exec_at, r->cap * sizeof(*r->exec_at));
	r->frame_escaped = realloc(r->frame_escaped, r->cap * sizeof(*r->frame_escaped));
	r->loc_escaped = realloc(r->loc_escaped, r->cap * sizeof(*r->loc_escaped));
	return r->frames && r->raw_frames && r->raw_locs && r->keep && r->sym_at && r->exec_at &&
	       r->frame_escaped && r->loc_escaped ? 0 : -ENOMEM;
}

/* The text of an escaped span: itself when it has no escapes, else an unescaped copy in buf. */
static int text_of(struct strbuf *buf, struct lp_span s, bool escaped, size_t *at, bool *copied)
{
	*copied = escaped;
	if (!*copied)
		return 0;
	*at = buf->len;
	return lp_span__unescape_to(buf, s);
}

/* Splits an escaped list into items (at most max), noting which hold escapes. */
static int split_list(struct run *r, struct lp_span list, struct lp_span *items, bool *escaped, size_t *n,
		      size_t max)
{
	struct lp_list_iter it;
	struct lp_span item;
	bool esc;
	int ret;

	*n = 0;
	lp_list_iter__init(&it, list);
	while (*n < max && lp_list_iter__next(&it, &item, &esc)) {
		if (max == SIZE_MAX && *n >= r->cap) {
			if ((ret = reserve(r, *n + 1)) < 0)
				return ret;
			/* reserve moves the arrays */
			items = r->raw_frames;
			escaped = r->frame_escaped;
		}
		items[*n] = item;
		escaped[(*n)++] = esc;
	}
	return 0;
}

/*
 * Cuts the frames of one escaped STACK/LOCS pair (locs "-" when there are
 * none) into r->stack and r->locs. keep_first: folded input, whose first frame
 * is the thread or process, which stays.
 */
static int cut_frames(struct run *r, struct lp_span stack, struct lp_span locs, bool keep_first)
{
	bool have_locs = !lp_span__eq(locs, "-", 1);
	size_t n = 0, at;
	int ret;

	strbuf__reset(&r->names);
	/* one pass a list: the items, and whether each has escapes */
	if ((ret = split_list(r, stack, r->raw_frames, r->frame_escaped, &n, SIZE_MAX)) < 0)
		return ret;
	if (have_locs) {
		size_t nlocs = 0;

		if ((ret = split_list(r, locs, r->raw_locs, r->loc_escaped, &nlocs, n)) < 0)
			return ret;
		for (size_t i = nlocs; i < n; i++) {
			r->raw_locs[i] = (struct lp_span){ "-", 1 };
			r->loc_escaped[i] = false;
		}
	} else {
		for (size_t i = 0; i < n; i++) {
			r->raw_locs[i] = (struct lp_span){ "-", 1 };
			r->loc_escaped[i] = false;
		}
	}
	/* the texts for the filter: the line itself, or unescaped copies (offsets first: the buffer may move) */
	for (size_t i = 0; i < n; i++) {
		struct filter_frame *f = &r->frames[i];
		bool copied;
		struct lp_loc loc;

		at = 0;
		if ((ret = text_of(&r->names, r->raw_frames[i], r->frame_escaped[i], &at, &copied)) < 0)
			return ret;
		f->sym = copied ? NULL : r->raw_frames[i].s;
		f->symlen = copied ? r->names.len - at : r->raw_frames[i].len;
		r->sym_at[i] = at;
		if (r->raw_locs[i].len == 1 && r->raw_locs[i].s[0] == '-') {
			f->exec = "";
			f->execlen = 0;
			f->offset = 0;
			r->exec_at[i] = SIZE_MAX;
			continue;
		}
		if ((ret = text_of(&r->names, r->raw_locs[i], r->loc_escaped[i], &at, &copied)) < 0)
			return ret;
		f->exec = copied ? NULL : r->raw_locs[i].s;
		lp_loc__parse(copied ? (struct lp_span){ r->names.s + at, r->names.len - at } : r->raw_locs[i], &loc);
		f->offset = loc.offset;
		f->execlen = loc.dso.len;
		r->exec_at[i] = copied ? at : SIZE_MAX;
	}
	for (size_t i = 0; i < n; i++) {
		if (!r->frames[i].sym)
			r->frames[i].sym = r->names.s + r->sym_at[i];
		if (!r->frames[i].exec)
			r->frames[i].exec = r->names.s + r->exec_at[i];
	}
	if (n && (ret = r->o->decide(r->o->ctx, r->frames, n, r->keep, r->err)) < 0)
		return ret;
	if (keep_first && n)
		r->keep[0] = true;
	strbuf__reset(&r->stack);
	strbuf__reset(&r->locs);
	size_t written = 0;

	for (size_t i = 0; i < n; i++) {
		struct lp_span f = r->raw_frames[i], l = r->raw_locs[i];

		if (!r->keep[i]) {
			if (!r->o->mark || (i > 0 && !r->keep[i - 1]))
				continue;
			f = (struct lp_span){ "(cut)", 5 };
			l = (struct lp_span){ "-", 1 };
		}
		/* separators by count, not length: a LOCS item may be empty */
		if ((written && strbuf__addc(&r->stack, ';') < 0) || strbuf__add(&r->stack, f.s, f.len) < 0 ||
		    (written && strbuf__addc(&r->locs, ';') < 0) || strbuf__add(&r->locs, l.s, l.len) < 0)
			return -ENOMEM;
		written++;
	}
	/* one empty item cannot be written as a list ("" has none): no locations then */
	if (!have_locs || r->locs.len == 0) {
		strbuf__reset(&r->locs);
		return strbuf__addc(&r->locs, '-');
	}
	return 0;
}

/* cut_frames, looked up first when the filter is pure. */
static int cut(struct run *r, struct lp_span stack, struct lp_span locs, bool keep_first)
{
	uint64_t h;
	struct cut_memo *m;
	int ret;

	if (!r->o->pure || stack.len > UINT32_MAX || locs.len > UINT32_MAX)
		return cut_frames(r, stack, locs, keep_first);
	if (r->memo_rest > 0) {
		r->memo_rest--;
		return cut_frames(r, stack, locs, keep_first);
	}
	if (++r->memo_lookups == MEMO_WINDOW) {
		if (r->memo_hits * MEMO_MIN_HITS < r->memo_lookups)
			r->memo_rest = MEMO_REST;
		r->memo_lookups = r->memo_hits = 0;
	}
	h = hash_bytes(stack.s, stack.len) ^ (hash_bytes(locs.s, locs.len) * 0x9e3779b97f4a7c15ULL) ^ keep_first;
	if ((ret = htab__reserve(&r->memo)) < 0)
		return ret;
	for (size_t i = h; (m = htab__at(&r->memo, i))->head.used; i++) {
		const char *t = r->memo_text.s + m->at;

		if (m->head.hash == h && m->keep_first == keep_first && m->stacklen == stack.len &&
		    m->locslen == locs.len &&
		    memcmp(t, stack.s, stack.len) == 0 && memcmp(t + stack.len, locs.s, locs.len) == 0) {
			t += stack.len + locs.len;
			r->memo_hits++;
			strbuf__reset(&r->stack);
			strbuf__reset(&r->locs);
			if (strbuf__add(&r->stack, t, m->cutlen) < 0 ||
			    strbuf__add(&r->locs, t + m->cutlen, m->cutlocslen) < 0)
				return -ENOMEM;
			return 0;
		}
	}
	if ((ret = cut_frames(r, stack, locs, keep_first)) < 0)
		return ret;
	if (r->memo_text.len > CUT_MEMO_MAX_TEXT)
		return 0;
	*m = (struct cut_memo){ .at = r->memo_text.len, .stacklen = (uint32_t)stack.len,
				.locslen = (uint32_t)locs.len, .cutlen = (uint32_t)r->stack.len,
				.cutlocslen = (uint32_t)r->locs.len, .keep_first = keep_first };
	if (strbuf__add(&r->memo_text, stack.s, stack.len) < 0 || strbuf__add(&r->memo_text, locs.s, locs.len) < 0 ||
	    strbuf__add(&r->memo_text, r->stack.s, r->stack.len) < 0 ||
	    strbuf__add(&r->memo_text, r->locs.s, r->locs.len) < 0)
		return -ENOMEM;
	htab__insert(&r->memo, m, h);
	return 0;
}

/* A write error is about the output, not the line being read. */
static int written(struct run *r, int ret)
{
	if (ret != -EIO)
		return ret;
	r->err->line = 0;
	return lp_error__set(r->err, ret, "cannot write output: %s", strerror(errno ? errno : EIO));
}

static int pass_line(void *ctx, struct lp_reader *rd, const char *line, size_t len)
{
	(void)rd;
	return written(ctx, lp_writer__raw(&((struct run *)ctx)->out, line, len));
}

static int filter_sample(void *ctx, struct lp_reader *rd, const struct lp_sample *s)
{
	struct run *r = ctx;
	int ret = cut(r, s->stack, s->locs, false);

	if (ret < 0)
		return ret;
	return written(r, lp_writer__replace_stack(&r->out, lp_reader__fields(rd), LP_SAMPLE_STACK_FIELD,
						   lp_span__of(&r->stack), lp_span__of(&r->locs)));
}

/* the spawning stack of a P record is filtered too */
static int filter_proc(void *ctx, struct lp_reader *rd, const struct lp_proc *p)
{
	struct run *r = ctx;
	const char *line;
	size_t len;
	int ret;

	if (p->what != LP_PROC_SPAWN) {
		line = lp_reader__line(rd, &len);
		return pass_line(r, rd, line, len);
	}
	if ((ret = cut(r, p->stack, p->locs, false)) < 0)
		return ret;
	return written(r, lp_writer__replace_stack(&r->out, lp_reader__fields(rd), p->stack_field,
						   lp_span__of(&r->stack), lp_span__of(&r->locs)));
}

static const struct lp_reader_ops filter_ops = {
	.sample = filter_sample,
	.proc = filter_proc,
	.other = pass_line,
};

static int folded_line(struct run *r, char *line, size_t len)
{
	struct folded_line f;
	int ret;

	if (len == 0 || line[0] == '#')
		return lp_writer__raw(&r->out, line, len);
	if (r->o->needs_exec)
		return lp_error__set(r->err, -EINVAL,
				     "EXEC statements need an lp stream: folded stacks have no executables");
	if ((ret = folded__parse(line, len, &f, r->err)) < 0)
		return ret;
	if ((ret = cut(r, (struct lp_span){ line, f.stacklen }, LP_SPAN("-"), true)) < 0)
		return ret;
	if (fwrite_unlocked(r->stack.s, 1, r->stack.len, r->out.out) != r->stack.len)
		return -EIO;
	/* the counts as they were */
	return lp_writer__raw(&r->out, line + f.stacklen, len - f.stacklen);
}

int lpfilter__run(const struct lpfilter_opts *o, int fd, const char *name, FILE *out, struct lp_error *err)
{
	struct run r = { .o = o, .err = err, .memo = HTAB_INIT(struct cut_memo) };
	struct lines *in = lines__new(fd);
	enum lp_format format;
	char *line;
	size_t len;
	int ret;

	lp_error__clear(err);
	err->file = name;
	if (!in)
		return lp_error__set(err, -ENOMEM, "out of memory");
	lp_writer__init(&r.out, out);
	if ((ret = lp_format__detect(in, &format, err)) < 0)
		goto cleanup;
	if (format == LP_FORMAT_PERF) {
		ret = lp_error__set(err, -EINVAL, "this is perf script text, not an lp stream or folded stacks: "
				    "fold it with lp-collapse first");
		goto cleanup;
	}
	if (format == LP_FORMAT_LP) {
		struct lp_reader_opts ro = { .name = name, .strict = o->strict, .warn = o->warn, .warn_ctx = o->warn_ctx };

		ret = lp_reader__read(&ro, in, &filter_ops, &r, err);
		goto cleanup;
	}
	while ((ret = lines__next(in, &line, &len)) > 0) {
		if ((ret = written(&r, folded_line(&r, line, len))) < 0) {
			if (ret != -EIO)
				err->line = lines__lineno(in);
			if (!err->msg[0])
				lp_error__set(err, ret, "%s", strerror(-ret));
			break;
		}
	}
	if (ret < 0 && !err->msg[0])
		lp_error__set(err, ret, "read error: %s", strerror(-ret));
cleanup:
	lines__free(in);
	lp_writer__release(&r.out);
	htab__release(&r.memo);
	strbuf__release(&r.memo_text);
	free(r.frames);
	free(r.raw_frames);
	free(r.raw_locs);
	free(r.keep);
	free(r.sym_at);
	free(r.exec_at);
	free(r.frame_escaped);
	free(r.loc_escaped);
	strbuf__release(&r.names);
	strbuf__release(&r.stack);
	strbuf__release(&r.locs);
	return ret < 0 ? ret : 0;
}
