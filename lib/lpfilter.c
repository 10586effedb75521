#include "lpfilter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "lines.h"
#include "lpstream.h"
#include "strbuf.h"

struct run {
	const struct lpfilter_opts *o;
	struct lp_fields fields;
	struct filter_frame *frames;
	struct lp_span *raw_frames, *raw_locs;
	bool *keep;
	size_t cap;
	struct strbuf names;	/* unescaped names and executables */
	struct strbuf stack, locs, line;
	struct lpfilter_error *err;
};

static int failf(struct run *r, int ret, const char *fmt, const char *what)
{
	free(r->err->detail);
	if (asprintf(&r->err->detail, fmt, what) < 0)
		r->err->detail = NULL;
	return ret;
}

static int reserve(struct run *r, size_t n)
{
	if (n <= r->cap)
		return 0;
	r->cap = n * 2;
	r->frames = realloc(r->frames, r->cap * sizeof(*r->frames));
	r->raw_frames = realloc(r->raw_frames, r->cap * sizeof(*r->raw_frames));
	r->raw_locs = realloc(r->raw_locs, r->cap * sizeof(*r->raw_locs));
	r->keep = realloc(r->keep, r->cap * sizeof(*r->keep));
	return r->frames && r->raw_frames && r->raw_locs && r->keep ? 0 : -ENOMEM;
}

/* "DSO+0xOFFSET" -> the DSO and the offset. */
static void split_loc(const char *s, size_t len, size_t *dsolen, uint64_t *offset)
{
	const char *plus = NULL;

	for (const char *p = s; (p = memmem(p, (size_t)(s + len - p), "+0x", 3)); p++)
		plus = p;
	*offset = 0;
	*dsolen = len;
	if (!plus)
		return;
	*dsolen = (size_t)(plus - s);
	*offset = strtoull(plus + 3, NULL, 16);
}

/*
 * Cuts the frames of one escaped STACK/LOCS pair (locs "-" when there are
 * none) into r->stack and r->locs. keep_first: folded input, whose first frame
 * is the thread or process, which stays.
 */
static int cut(struct run *r, struct lp_span stack, struct lp_span locs, bool keep_first)
{
	struct lp_list_iter fi, li;
	struct lp_span item;
	bool have_locs = !(locs.len == 1 && locs.s[0] == '-');
	size_t n = 0, at;
	char *detail = NULL;
	int ret;

	strbuf__reset(&r->names);
	lp_list_iter__init(&fi, stack);
	while (lp_list_iter__next(&fi, &item)) {
		if ((ret = reserve(r, n + 1)) < 0)
			return ret;
		r->raw_frames[n++] = item;
	}
	lp_list_iter__init(&li, have_locs ? locs : (struct lp_span){ "", 0 });
	for (size_t i = 0; i < n; i++)
		if (!lp_list_iter__next(&li, &r->raw_locs[i]))
			r->raw_locs[i] = (struct lp_span){ "-", 1 };
	/* unescaped copies for the filter (offsets first: the buffer may move) */
	for (size_t i = 0; i < n; i++) {
		size_t dsolen;

		at = r->names.len;
		if ((ret = lp_span__unescape_to(&r->names, r->raw_frames[i])) < 0)
			return ret;
		r->frames[i].symlen = r->names.len - at;
		r->frames[i].sym = (const char *)(uintptr_t)at;
		at = r->names.len;
		if (r->raw_locs[i].len == 1 && r->raw_locs[i].s[0] == '-') {
			r->frames[i].execlen = 0;
			r->frames[i].offset = 0;
		} else {
			if ((ret = lp_span__unescape_to(&r->names, r->raw_locs[i])) < 0)
				return ret;
			split_loc(r->names.s + at, r->names.len - at, &dsolen, &r->frames[i].offset);
			r->names.len = at + dsolen;
			r->frames[i].execlen = dsolen;
		}
		r->frames[i].exec = (const char *)(uintptr_t)at;
	}
	for (size_t i = 0; i < n; i++) {
		r->frames[i].sym = r->names.s + (uintptr_t)r->frames[i].sym;
		r->frames[i].exec = r->names.s + (uintptr_t)r->frames[i].exec;
	}
	if (n && (ret = r->o->decide(r->o->ctx, r->frames, n, r->keep, &detail)) < 0) {
		free(r->err->detail);
		r->err->detail = detail;
		return ret;
	}
	if (keep_first && n)
		r->keep[0] = true;
	strbuf__reset(&r->stack);
	strbuf__reset(&r->locs);
	for (size_t i = 0; i < n; i++) {
		struct lp_span f = r->raw_frames[i], l = r->raw_locs[i];

		if (!r->keep[i]) {
			if (!r->o->mark || (i > 0 && !r->keep[i - 1]))
				continue;
			f = (struct lp_span){ "(cut)", 5 };
			l = (struct lp_span){ "-", 1 };
		}
		if ((r->stack.len && strbuf__addc(&r->stack, ';') < 0) || strbuf__add(&r->stack, f.s, f.len) < 0 ||
		    (r->locs.len && strbuf__addc(&r->locs, ';') < 0) || strbuf__add(&r->locs, l.s, l.len) < 0)
			return -ENOMEM;
	}
	if (!have_locs || r->locs.len == 0) {
		strbuf__reset(&r->locs);
		return strbuf__addc(&r->locs, '-');
	}
	return 0;
}

/* Writes the record with fields stack_at and stack_at + 1 replaced. */
static int put_record(struct run *r, FILE *out, size_t stack_at)
{
	struct lp_fields *f = &r->fields;

	strbuf__reset(&r->line);
	for (size_t i = 0; i < f->n; i++) {
		const struct strbuf *b = i == stack_at ? &r->stack : i == stack_at + 1 ? &r->locs : NULL;

		if ((i && strbuf__addc(&r->line, '\t') < 0) ||
		    strbuf__add(&r->line, b ? b->s : f->v[i].s, b ? b->len : f->v[i].len) < 0)
			return -ENOMEM;
	}
	if (strbuf__addc(&r->line, '\n') < 0)
		return -ENOMEM;
	return fwrite_unlocked(r->line.s, 1, r->line.len, out) == r->line.len ? 0 : -EIO;
}

static int put_raw(FILE *out, const char *line, size_t len)
{
	if (fwrite_unlocked(line, 1, len, out) != len || putc_unlocked('\n', out) == EOF)
		return -EIO;
	return 0;
}

static int lp_line(struct run *r, FILE *out, char *line, size_t len)
{
	char msg[256];
	struct lp_sample s;
	int ret = lp_line_kind(line, len, msg, sizeof(msg));

	if (ret < 0)
		return failf(r, ret, "%s", msg);
	if (ret == LP_LINE_COMMENT || (line[0] != 'S' && line[0] != 'P'))
		return put_raw(out, line, len);
	if ((ret = lp_fields__split(&r->fields, line, len)) < 0)
		return ret;
	if (line[0] == 'S') {
		if ((ret = lp_sample__parse(&r->fields, &s, msg, sizeof(msg))) < 0)
			return failf(r, ret, "%s", msg);
		if ((ret = cut(r, s.stack, s.locs, false)) < 0)
			return ret;
		return put_record(r, out, 7);
	}
	/* P TIME PID TID spawn COMM PPID PTID STACK LOCS: the spawning stack is filtered too */
	if (r->fields.n >= 10 && r->fields.v[4].len == 5 && memcmp(r->fields.v[4].s, "spawn", 5) == 0) {
		if ((ret = cut(r, r->fields.v[8], r->fields.v[9], false)) < 0)
			return ret;
		return put_record(r, out, 8);
	}
	return put_raw(out, line, len);
}

static int folded_line(struct run *r, FILE *out, char *line, size_t len)
{
	size_t stacklen = len;
	int ret;

	if (len == 0 || line[0] == '#')
		return put_raw(out, line, len);
	if (r->o->needs_exec)
		return failf(r, -EINVAL, "%s", "EXEC statements need an lp stream: folded stacks have no executables");
	/* the counts: one or two numbers after the last blanks */
	for (int k = 0; k < 2; k++) {
		size_t i = stacklen;

		while (i > 0 && line[i - 1] >= '0' && line[i - 1] <= '9')
			i--;
		if (i == stacklen || i == 0 || (line[i - 1] != ' ' && line[i - 1] != '\t')) {
			if (k == 0)
				return failf(r, -EINVAL, "%s", "expected 'STACK COUNT', found no count");
			break;
		}
		stacklen = i - 1;
	}
	if ((ret = cut(r, (struct lp_span){ line, stacklen }, (struct lp_span){ "-", 1 }, true)) < 0)
		return ret;
	if (fwrite_unlocked(r->stack.s, 1, r->stack.len, out) != r->stack.len)
		return -EIO;
	return put_raw(out, line + stacklen, len - stacklen);
}

int lpfilter__run(const struct lpfilter_opts *o, int fd, FILE *out, struct lpfilter_error *err)
{
	struct run r = { .o = o, .err = err };
	struct lines *in = lines__new(fd);
	const char *first;
	size_t firstlen;
	char *line;
	size_t len;
	bool lp = false;
	int ret;

	err->line = 0;
	err->detail = NULL;
	if (!in)
		return -ENOMEM;
	/* an lp stream starts with #lp-stream or a record; anything else is folded */
	for (size_t i = 0; lines__peek(in, i, &first, &firstlen) > 0 && i < 256; i++) {
		if (firstlen >= 10 && memcmp(first, LP_STREAM_MAGIC, 10) == 0) {
			lp = true;
			break;
		}
		if (firstlen > 0 && first[0] != '#') {
			lp = firstlen >= 2 && first[0] >= 'A' && first[0] <= 'Z' && first[1] == '\t';
			break;
		}
	}
	while ((ret = lines__next(in, &line, &len)) > 0) {
		ret = lp ? lp_line(&r, out, line, len) : folded_line(&r, out, line, len);
		if (ret < 0) {
			err->line = lines__lineno(in);
			if (!err->detail)
				failf(&r, ret, "%s", ret == -EIO ? "write error" : strerror(-ret));
			break;
		}
	}
	if (ret < 0 && !err->detail)
		failf(&r, ret, "read error: %s", strerror(-ret));
	lines__free(in);
	lp_fields__release(&r.fields);
	free(r.frames);
	free(r.raw_frames);
	free(r.raw_locs);
	free(r.keep);
	strbuf__release(&r.names);
	strbuf__release(&r.stack);
	strbuf__release(&r.locs);
	strbuf__release(&r.line);
	return ret < 0 ? ret : 0;
}
