#include "lineprofile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lines.h"
#include "lpstream.h"
#include "srcline.h"
#include "stackmap.h"
#include "strbuf.h"

struct line_profile {
	struct line_profile_opts o;
	struct srclines *src;
	struct stackmap *lines;		/* "FILE:LINE\tFUNCTION" -> weight on (0) and off (1) the CPU */
	struct lp_fields fields;
	struct strbuf key, dso, name;
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
	if (!p->src || !p->lines) {
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
	lp_fields__release(&p->fields);
	strbuf__release(&p->key);
	strbuf__release(&p->dso);
	strbuf__release(&p->name);
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

/* The key of one frame: its line, or its DSO when it has none. */
static int frame_key(struct line_profile *p, struct lp_span name, struct lp_span loc, bool leaf)
{
	struct lp_loc l;
	struct srcline src;
	const char *reason = NULL;
	size_t from;
	int found = 0, ret;

	strbuf__reset(&p->key);
	strbuf__reset(&p->dso);
	if ((ret = lp_span__unescape_to(&p->dso, loc)) < 0)
		return ret;
	lp_loc__parse(lp_span__of(&p->dso), &l);
	if (l.has_offset && l.dso.len) {
		/* a return address: the call is the instruction before it */
		found = srclines__find(p->src, l.dso.s, l.dso.len, leaf || !l.offset ? l.offset : l.offset - 1, &src,
				       &reason);
		if (found < 0)
			return found;
		if (reason)
			lp_warn(p->o.warn, p->o.ctx, p->file, 0, "%.*s: %s", (int)l.dso.len, l.dso.s, reason);
	}
	if (found)
		ret = strbuf__addf(&p->key, "%s:%d", src.file, src.line);
	else
		ret = strbuf__add(&p->key, l.dso.len ? l.dso.s : "[unknown]", l.dso.len ? l.dso.len : 9) ?:
			strbuf__add(&p->key, ":?", 2);
	if (ret == 0)
		ret = strbuf__addc(&p->key, '\t');
	from = p->key.len;
	if (ret == 0)
		ret = lp_span__unescape_to(&p->key, name);
	/* the key is a line of the output: tabs and newlines of the name would break it */
	for (size_t i = from; ret == 0 && i < p->key.len; i++)
		if (p->key.s[i] == '\t' || p->key.s[i] == '\n' || p->key.s[i] == '\r')
			p->key.s[i] = ' ';
	return ret;
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

static int sample(struct line_profile *p, const struct lp_sample *s, int col, struct lp_error *err)
{
	struct lp_list_iter names, locs;
	struct lp_span name, loc;
	size_t n = lp_list__count(s->stack), i = 0;
	bool has_locs = !lp_span__eq(s->locs, "-", 1);
	int ret;

	p->nseen = 0;
	if (p->weight[col] + s->weight < p->weight[col])
		return lp_error__set(err, -EOVERFLOW, "the weights' total does not fit 64 bits");
	p->weight[col] += s->weight;
	lp_list_iter__init(&names, s->stack);
	lp_list_iter__init(&locs, has_locs ? s->locs : (struct lp_span){ "", 0 });
	while (lp_list_iter__next(&names, &name, NULL)) {
		bool leaf = ++i == n;

		if (!lp_list_iter__next(&locs, &loc, NULL))
			loc = LP_SPAN("-");
		if (!leaf && !p->o.inclusive)
			continue;
		if ((ret = frame_key(p, name, loc, leaf)) < 0 || (ret = credit(p, col, s->weight)) < 0)
			return lp_error__set(err, ret, "%s", ret == -EINVAL ? "bad escape in STACK or LOCS" :
					     ret == -EOVERFLOW ? "a line's total does not fit 64 bits" : "out of memory");
	}
	return 0;
}

int line_profile__read(struct line_profile *p, int fd, const char *name, struct lp_error *err)
{
	struct lines *r = lines__new(fd);
	struct lp_sample s;
	char *line;
	size_t len;
	int ret, col;

	lp_error__clear(err);
	err->file = p->file = name;
	if (!r)
		return lp_error__set(err, -ENOMEM, "out of memory");
	if (lines__peek(r, 0, (const char **)&line, &len) > 0 && lp_format__detect(r) != LP_FORMAT_LP) {
		ret = lp_error__set(err, -EINVAL, "not an lp stream (lp-lines needs the LOCS lp-record writes)");
		goto cleanup;
	}
	while ((ret = lines__next(r, &line, &len)) > 0) {
		err->line = lines__lineno(r);
		if ((ret = lp_line_kind(line, len, err)) < 0)
			goto cleanup;
		if (ret == LP_LINE_COMMENT) {
			if ((ret = lp_version_line(line, len, NULL, err)) < 0)
				goto cleanup;
			continue;
		}
		if (line[0] != 'S')
			continue;
		if ((ret = lp_fields__split(&p->fields, line, len)) < 0) {
			ret = lp_error__set(err, ret, "out of memory");
			goto cleanup;
		}
		if ((ret = lp_sample__parse(&p->fields, &s, err)) < 0)
			goto cleanup;
		if ((col = column(p, s.event)) < 0)
			continue;
		if ((ret = sample(p, &s, col, err)) < 0)
			goto cleanup;
	}
	err->line = 0;
	if (ret < 0)
		lp_error__set(err, ret, "read error: %s", strerror(-ret));
cleanup:
	lines__free(r);
	return ret < 0 ? ret : 0;
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
