/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "profile/lineprofile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/lines.h"
#include "stream/lpstream.h"
#include "symbols/srcline.h"
#include "base/stackmap.h"
#include "base/strbuf.h"

struct line_profile {
	struct line_profile_opts o;
	struct srclines *src;
	struct stackmap *lines;		/* "FILE:LINE\tFUNCTION" -> weight on (0) and off (1) the CPU */
	struct stackmap *sources;	/* --annotate: "FILE\0PATH\0", where each FILE is read from */
	struct strbuf key, dso, name;
	struct strbuf known;		/* --nearest-source: the key of the leafmost frame whose source is here */
	struct stackmap *readable;	/* --nearest-source: source path -> 1 readable, 2 not */
	/*
	 * Without --inclusive a sample credits one line, found from its leaf (or
	 * its whole stack with --nearest-source): those bytes -> 1 + the line's id,
	 * so each distinct leaf is looked up once.
	 */
	struct stackmap *memo;
	struct strbuf memo_key;
	struct stack_entry *credited;	/* the line the last credit went to */
	struct stack_entry **seen;	/* --inclusive: lines already credited by this sample */
	size_t nseen, seen_cap;
	uint64_t weight[2];		/* of every sample counted, on and off the CPU */
	const char *file;
	long lineno;
};

struct line_profile *line_profile__new(const struct line_profile_opts *o)
{
	struct line_profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->o = *o;
	p->src = srclines__new();
	p->lines = stackmap__new();
	p->sources = stackmap__new();
	p->readable = stackmap__new();
	p->memo = stackmap__new();
	if (!p->src || !p->lines || !p->sources || !p->readable || !p->memo) {
		line_profile__free(p);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

void line_profile__free(struct line_profile *p)
{
	if (!p)
		return;
	srclines__free(p->src);
	stackmap__free(p->lines);
	stackmap__free(p->sources);
	stackmap__free(p->readable);
	stackmap__free(p->memo);
	strbuf__release(&p->memo_key);
	strbuf__release(&p->key);
	strbuf__release(&p->dso);
	strbuf__release(&p->name);
	strbuf__release(&p->known);
	free(p->seen);
	free(p);
}

/* The column of an event: 0 on the CPU (or the custom event), 1 off it; -1 when not chosen. */
static int column(const struct line_profile *p, struct lp_span event)
{
	if (!p->o.events)
		return lp_span__eq(event, "cpu", 3) ? 0 : lp_span__eq(event, "offcpu", 6) ? 1 : -1;
	for (size_t i = 0; i < p->o.nevents; i++)
		if (lp_span__eq(event, p->o.events[i], strlen(p->o.events[i])))
			return lp_span__eq(event, "offcpu", 6) ? 1 : 0;
	return -1;
}

/* Appends a function's name to the key, which is a line of the output: its tabs and newlines become spaces. */
static int add_function(struct line_profile *p, struct lp_span name)
{
	size_t from = p->key.len;
	int ret = lp_span__unescape_to(&p->key, name);

	for (size_t i = from; ret == 0 && i < p->key.len; i++)
		if (p->key.s[i] == '\t' || p->key.s[i] == '\n' || p->key.s[i] == '\r')
			p->key.s[i] = ' ';
	return ret;
}

/*
 * Where a frame's code is: its DSO (unescaped into p->dso) and the address
 * to look up; false when the LOCS item gives no place in a file.
 */
static bool frame_place(struct line_profile *p, struct lp_span loc, bool leaf, struct lp_loc *l, uint64_t *addr,
			int *ret)
{
	strbuf__reset(&p->dso);
	if ((*ret = lp_span__unescape_to(&p->dso, loc)) < 0)
		return false;
	lp_loc__parse(lp_span__of(&p->dso), l);
	/* a return address: the call is the instruction before it */
	*addr = leaf || !l->offset ? l->offset : l->offset - 1;
	return l->has_offset && l->dso.len;
}

/* Whether a source file can be read here, asked once per file; -ENOMEM. */
static int source_readable(struct line_profile *p, const char *path)
{
	size_t len = strlen(path);
	struct stack_entry *e = stackmap__find(p->readable, path, len);

	if (!e)
		e = stackmap__add(p->readable, path, len, 0, access(path, R_OK) == 0 ? 1 : 2);
	return e ? e->count[0] == 1 : -ENOMEM;
}

/*
 * The key of one frame: its line, or its DSO when it has none. Returns 1 when
 * the line was found (and, with nearest_source, its source is readable), else
 * 0; -errno.
 */
static int frame_key(struct line_profile *p, struct lp_span name, const struct lp_loc *l, bool placed, uint64_t addr)
{
	struct srcline src;
	const char *reason = NULL;
	int found = 0, ret;

	strbuf__reset(&p->key);
	if (placed) {
		found = srclines__find(p->src, l->dso.s, l->dso.len, addr, &src, &reason);
		if (found < 0)
			return found;
		if (reason)
			lp_error__warn(p->o.warn, p->o.ctx, p->file, 0, "%.*s: %s", (int)l->dso.len, l->dso.s, reason);
	}
	if (found && p->o.annotate) {
		/* both NUL-terminated: the key holds the strings annotate reads */
		size_t flen = strlen(src.file), plen = strlen(src.path);
		char both[flen + 1 + plen + 1];

		memcpy(both, src.file, flen + 1);
		memcpy(both + flen + 1, src.path, plen + 1);
		if (!stackmap__add(p->sources, both, sizeof(both), 0, 0))
			return -ENOMEM;
	}
	if (found)
		ret = strbuf__addf(&p->key, "%s:%d", src.file, src.line);
	else
		ret = strbuf__add(&p->key, l->dso.len ? l->dso.s : "[unknown]", l->dso.len ? l->dso.len : 9) ?:
			strbuf__add(&p->key, ":?", 2);
	if (ret == 0)
		ret = strbuf__addc(&p->key, '\t');
	if (ret == 0)
		ret = add_function(p, name);
	if (ret == 0 && found && p->o.nearest_source)
		found = source_readable(p, src.path);
	return ret ? ret : found;
}

static int credit(struct line_profile *p, int col, uint64_t weight)
{
	struct stack_entry *e;

	/* with --inclusive a line counts once per sample, however often it recurs */
	e = stackmap__find(p->lines, p->key.s, p->key.len);
	for (size_t i = 0; e && i < p->nseen; i++)
		if (p->seen[i] == e)
			return 0;
	e = stackmap__add(p->lines, p->key.s, p->key.len, col, weight);
	if (!e)
		return -errno;
	p->credited = e;
	if (p->o.inclusive) {
		if (p->nseen == p->seen_cap) {
			size_t cap = p->seen_cap ? p->seen_cap * 2 : 64;
			struct stack_entry **v = realloc(p->seen, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			p->seen = v;
			p->seen_cap = cap;
		}
		p->seen[p->nseen++] = e;
	}
	return 0;
}

/*
 * --inclusive: the lines the frame's code was inlined from, each a line of
 * the frame's function that called an inline function (innermost first).
 */
static int inline_callers(struct line_profile *p, struct lp_span name, const struct lp_loc *l, uint64_t addr, int col,
			  uint64_t weight)
{
	struct srcline sites[SRCLINE_MAX_INLINED];
	int n = srclines__inlined_at(p->src, l->dso.s, l->dso.len, addr, sites, SRCLINE_MAX_INLINED), ret = 0;

	for (int i = 0; ret == 0 && i < n; i++) {
		strbuf__reset(&p->key);
		ret = strbuf__addf(&p->key, "%s:%d\t", sites[i].file, sites[i].line);
		if (ret == 0)
			ret = add_function(p, name);
		if (ret == 0)
			ret = credit(p, col, weight);
	}
	return n < 0 ? n : ret;
}

/* The last item of an escaped list (';' inside an item is escaped). */
static struct lp_span last_item(struct lp_span list)
{
	const char *semi = memrchr(list.s, ';', list.len);

	return semi ? (struct lp_span){ semi + 1, list.len - (size_t)(semi + 1 - list.s) } : list;
}

/* What decides the line a sample credits: its leaf and the leaf's place, or with --nearest-source all of it. */
static int memo_key(struct line_profile *p, const struct lp_sample *s)
{
	struct lp_span stack = s->stack, locs = s->locs;

	if (!p->o.nearest_source) {
		stack = last_item(stack);
		if (!lp_span__eq(locs, "-", 1))
			locs = last_item(locs);
	}
	strbuf__reset(&p->memo_key);
	return strbuf__add(&p->memo_key, stack.s, stack.len) ?: strbuf__addc(&p->memo_key, '\t') ?:
	       strbuf__add(&p->memo_key, locs.s, locs.len);
}

static int sample(struct line_profile *p, const struct lp_sample *s, int col, struct lp_error *err)
{
	struct lp_list_iter names, locs;
	struct lp_span name, loc;
	size_t n, i = 0;
	bool has_locs = !lp_span__eq(s->locs, "-", 1), placed;
	struct lp_loc l;
	uint64_t addr;
	int ret;

	p->nseen = 0;
	if (p->weight[col] + s->weight < p->weight[col])
		return lp_error__set(err, -EOVERFLOW, "the weights' total does not fit 64 bits");
	p->weight[col] += s->weight;
	if (!p->o.inclusive) {
		struct stack_entry *e;

		if ((ret = memo_key(p, s)) < 0)
			goto fail;
		e = stackmap__find(p->memo, p->memo_key.s, p->memo_key.len);
		if (e) {
			struct stack_entry *line = stackmap__entry(p->lines, (uint32_t)(e->count[0] - 1));

			if (line->count[col] + s->weight < line->count[col]) {
				ret = -EOVERFLOW;
				goto fail;
			}
			line->count[col] += s->weight;
			return 0;
		}
		p->credited = NULL;
	}
	n = lp_list__count(s->stack);
	lp_list_iter__init(&names, s->stack);
	lp_list_iter__init(&locs, has_locs ? s->locs : (struct lp_span){ "", 0 });
	strbuf__reset(&p->known);
	while (lp_list_iter__next(&names, &name, NULL)) {
		bool leaf = ++i == n;
		int found;

		if (!lp_list_iter__next(&locs, &loc, NULL))
			loc = LP_SPAN("-");
		if (!leaf && !p->o.inclusive && !p->o.nearest_source)
			continue;
		placed = frame_place(p, loc, leaf, &l, &addr, &ret);
		if (ret < 0 || (ret = found = frame_key(p, name, &l, placed, addr)) < 0)
			goto fail;
		if (p->o.nearest_source) {
			/* frames run root to leaf: the last one with a line is the leafmost */
			if (found || (leaf && !p->known.len)) {
				strbuf__reset(&p->known);
				if ((ret = strbuf__add(&p->known, p->key.s, p->key.len)) < 0)
					goto fail;
			}
			if (!leaf)
				continue;
			strbuf__reset(&p->key);
			if ((ret = strbuf__add(&p->key, p->known.s, p->known.len)) < 0)
				goto fail;
		}
		if ((ret = credit(p, col, s->weight)) < 0 ||
		    (p->o.inclusive && placed && (ret = inline_callers(p, name, &l, addr, col, s->weight)) < 0))
			goto fail;
	}
	if (!p->o.inclusive && p->credited &&
	    !stackmap__add(p->memo, p->memo_key.s, p->memo_key.len, 0, (uint64_t)p->credited->id + 1)) {
		ret = -errno;
		goto fail;
	}
	return 0;
fail:
	return lp_error__set(err, ret, "%s", ret == -EINVAL ? "bad escape in STACK or LOCS" :
			     ret == -EOVERFLOW ? "a line's total does not fit 64 bits" : "out of memory");
}

/* What read_sample needs beside the profile. */
struct line_read {
	struct line_profile *p;
	struct lp_error *err;
};

static int read_sample(void *ctx, struct lp_reader *r, const struct lp_sample *s)
{
	struct line_read *x = ctx;
	int col = column(x->p, s->event);

	(void)r;
	return col < 0 ? 0 : sample(x->p, s, col, x->err);
}

int line_profile__read(struct line_profile *p, int fd, const char *name, struct lp_error *err)
{
	static const struct lp_reader_ops ops = { .sample = read_sample };
	struct lp_reader_opts ro = { .name = name, .strict = p->o.strict, .warn = p->o.warn, .warn_ctx = p->o.ctx };
	struct line_read x = { .p = p, .err = err };
	struct lines *r = lines__new(fd);
	int ret;

	lp_error__clear(err);
	err->file = p->file = name;
	if (!r)
		return lp_error__set(err, -ENOMEM, "out of memory");
	ret = lp_reader__read(&ro, r, &ops, &x, err);
	lines__free(r);
	return ret;
}

static uint64_t total_of(const struct stack_entry *e)
{
	return e->count[0] + e->count[1];
}

static int heaviest_first(const void *a, const void *b)
{
	const struct stack_entry *x = *(const struct stack_entry *const *)a, *y = *(const struct stack_entry *const *)b;
	uint64_t tx = total_of(x), ty = total_of(y);

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return stack_entry__cmp(x, y);
}

int line_profile__write(struct line_profile *p, FILE *out)
{
	size_t n = stackmap__size(p->lines);
	struct stack_entry **v = malloc((n ? n : 1) * sizeof(*v));
	/* shares are of all the samples' weight: --inclusive credits one sample to many lines */
	uint64_t on = p->weight[0], off = p->weight[1], total = on + off;

	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		v[i] = stackmap__entry(p->lines, i);
	qsort(v, n, sizeof(*v), heaviest_first);
	for (size_t i = 0; i < n; i++) {
		uint64_t t = total_of(v[i]);

		fprintf(out, "%.*s\t%" PRIu64 "\t%.2f%%", (int)v[i]->len, v[i]->key, t, total ? 100.0 * t / total : 0);
		if (on && off)
			fprintf(out, "\t%.1f%%\t%.1f%%", t ? 100.0 * v[i]->count[0] / t : 0,
				t ? 100.0 * v[i]->count[1] / t : 0);
		fputc('\n', out);
	}
	free(v);
	return ferror(out) ? -EIO : 0;
}

/* Splits an entry's key "FILE:LINE\tFUNCTION"; false for "DSO:?" entries. */
static bool key_parts(const struct stack_entry *e, struct lp_span *file, long *line, struct lp_span *fn)
{
	const char *tab = memchr(e->key, '\t', e->len), *colon;
	char *end;

	if (!tab)
		return false;
	for (colon = tab; colon > e->key && colon[-1] != ':'; colon--)
		;
	if (colon == e->key)
		return false;
	*line = strtol(colon, &end, 10);
	if (end != tab || *line <= 0)
		return false;
	*file = (struct lp_span){ e->key, (size_t)(colon - 1 - e->key) };
	*fn = (struct lp_span){ tab + 1, e->len - (size_t)(tab + 1 - e->key) };
	return true;
}

/* One sampled line of the function being annotated. */
struct fn_line {
	struct lp_span file;
	long line;
	uint64_t weight;
};

static bool same_file(struct lp_span a, struct lp_span b)
{
	return a.len == b.len && memcmp(a.s, b.s, a.len) == 0;
}

int line_profile__annotate(struct line_profile *p, const char *function, FILE *out, const char **path)
{
	size_t n = stackmap__size(p->lines), nfn = strlen(function), k = 0;
	uint64_t total = p->weight[0] + p->weight[1], fn_total = 0, best = 0;
	struct lp_span file = { NULL, 0 }, fn;
	struct fn_line *mine = malloc((n ? n : 1) * sizeof(*mine));
	long first = 0, last = 0, lineno = 0;
	uint64_t *weights = NULL;
	char *text = NULL;
	size_t cap = 0;
	FILE *src;
	int ret = 0;

	*path = NULL;
	if (!mine)
		return -ENOMEM;
	/* the function's lines, once */
	for (uint32_t i = 0; i < n; i++) {
		const struct stack_entry *e = stackmap__entry(p->lines, i);
		struct fn_line *m = &mine[k];

		if (key_parts(e, &m->file, &m->line, &fn) && lp_span__eq(fn, function, nfn)) {
			m->weight = total_of(e);
			fn_total += m->weight;
			k++;
		}
	}
	/* the file with most of its weight (a function's lines are few) */
	for (size_t i = 0; i < k; i++) {
		uint64_t in_file = 0;

		for (size_t j = 0; j < k; j++)
			if (same_file(mine[j].file, mine[i].file))
				in_file += mine[j].weight;
		if (in_file > best) {
			best = in_file;
			file = mine[i].file;
		}
	}
	if (!file.s) {
		ret = -ENOENT;
		goto cleanup;
	}
	/* where that file is read from, and the range of its lines the function's samples have */
	for (uint32_t i = 0; i < stackmap__size(p->sources); i++) {
		const struct stack_entry *e = stackmap__entry(p->sources, i);

		if (strlen(e->key) == file.len && memcmp(e->key, file.s, file.len) == 0)
			*path = e->key + file.len + 1;
	}
	for (size_t i = 0; i < k; i++)
		if (same_file(mine[i].file, file)) {
			first = !first || mine[i].line < first ? mine[i].line : first;
			last = mine[i].line > last ? mine[i].line : last;
		}
	if (!*path) {
		ret = -ENOENT;
		goto cleanup;
	}
	weights = calloc((size_t)(last - first + 1), sizeof(*weights));
	if (!weights) {
		ret = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < k; i++)
		if (same_file(mine[i].file, file))
			weights[mine[i].line - first] += mine[i].weight;
	src = fopen(*path, "re");
	if (!src) {
		ret = -errno;
		goto cleanup;
	}
	fprintf(out, "%s (%.*s): %.2f%% of all samples\n", function, (int)file.len, file.s,
		total ? 100.0 * fn_total / total : 0);
	/* a few lines of context either side, as perf annotate shows the function around them */
	while (getline(&text, &cap, src) > 0) {
		lineno++;
		if (lineno < first - 3 || lineno > last + 3)
			continue;
		if (lineno >= first && lineno <= last && weights[lineno - first])
			fprintf(out, "%7.2f%% %6ld  %s", total ? 100.0 * weights[lineno - first] / total : 0, lineno, text);
		else
			fprintf(out, "%8s %6ld  %s", "", lineno, text);
		if (!strchr(text, '\n'))
			fputc('\n', out);
	}
	if (ferror(src))
		ret = -EIO;
	fclose(src);
	if (ret == 0 && lineno < last)
		ret = -ERANGE;	/* the file is not the one the program was built from */
	if (ret == 0 && ferror(out))
		ret = -EIO;
cleanup:
	free(text);
	free(weights);
	free(mine);
	return ret;
}
