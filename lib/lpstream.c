#include "lpstream.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "numparse.h"
#include "scan.h"

int lp_fields__split(struct lp_fields *f, const char *line, size_t len)
{
	const char *p = line, *end = line + len;

	f->n = 0;
	for (;;) {
		const char *tab = memchr(p, '\t', (size_t)(end - p));
		const char *stop = tab ? tab : end;

		if (f->n == f->cap) {
			size_t cap = f->cap ? f->cap * 2 : 16;
			struct lp_span *v = realloc(f->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			f->v = v;
			f->cap = cap;
		}
		f->v[f->n].s = p;
		f->v[f->n].len = (size_t)(stop - p);
		f->n++;
		if (!tab)
			return 0;
		p = tab + 1;
	}
}

void lp_fields__release(struct lp_fields *f)
{
	free(f->v);
	f->v = NULL;
	f->n = f->cap = 0;
}

/* Quotes at most 40 bytes of a field for a message. */
static const char *excerpt(struct lp_span s, char *buf, size_t size)
{
	size_t n = s.len < 40 ? s.len : 40;

	snprintf(buf, size, "%.*s%s", (int)n, s.s, s.len > n ? "..." : "");
	return buf;
}

int lp_line_kind(const char *line, size_t len, char *err, size_t errlen)
{
	const char *tab;
	size_t typelen;
	char q[64];

	if (len == 0) {
		snprintf(err, errlen, "empty line");
		return -EINVAL;
	}
	if (line[0] == '#')
		return LP_LINE_COMMENT;
	tab = memchr(line, '\t', len);
	typelen = tab ? (size_t)(tab - line) : len;
	if (typelen != 1 || line[0] < 'A' || line[0] > 'Z') {
		struct lp_span t = { line, typelen };

		snprintf(err, errlen, "record type must be one capital letter, got '%s'",
			 excerpt(t, q, sizeof(q)));
		return -EINVAL;
	}
	return LP_LINE_RECORD;
}

int lp_version_line(const char *line, size_t len, int *version, char *err, size_t errlen)
{
	size_t m = sizeof(LP_STREAM_MAGIC) - 1;
	int64_t v;

	if (len < m || memcmp(line, LP_STREAM_MAGIC, m) != 0)
		return 0;
	if (len == m || line[m] != ' ' ||
	    parse_i64(line + m + 1, len - m - 1, &v) < 0 || v < 1 || v > 1000000) {
		snprintf(err, errlen, "malformed version line, expected '%s %d'",
			 LP_STREAM_MAGIC, LP_STREAM_VERSION);
		return -EINVAL;
	}
	*version = (int)v;
	return 1;
}

/* Offset of the first '%' not followed by two hex digits, or -1. */
static long bad_escape(struct lp_span s)
{
	const char *p = s.s, *end = s.s + s.len;

	while ((p = memchr(p, '%', (size_t)(end - p)))) {
		size_t bad;
		char tmp[3];

		if (end - p < 3 || unescape(tmp, p, 3, &bad) < 0)
			return p - s.s;
		p += 3;
	}
	return -1;
}

static int check_escapes(struct lp_span s, const char *name, char *err, size_t errlen)
{
	long at = bad_escape(s);

	if (at < 0)
		return 0;
	snprintf(err, errlen, "%s: '%%' at byte %ld is not followed by two hex digits",
		 name, at + 1);
	return -EINVAL;
}

/*
 * One pass over an escaped list: its items counted, each escape checked.
 * 0; or -EINVAL with the message naming the list (what) and the problem,
 * an empty item when empty_is_bad.
 */
static int check_list(struct lp_span list, const char *what, bool empty_is_bad, size_t *items, char *err,
		      size_t errlen)
{
	size_t start = 0;

	*items = 0;
	if (list.len == 0)
		return 0;
	/* a block at a time, then its separators bit by bit: items are short */
	for (size_t off = 0; off < list.len; off += 16) {
		for (unsigned m = special_mask(list.s + off, list.len - off); m; m &= m - 1) {
			size_t i = off + (size_t)__builtin_ctz(m), bad;
			char tmp[3];

			if (list.s[i] == '%') {
				if (list.len - i < 3 || unescape(tmp, list.s + i, 3, &bad) < 0) {
					snprintf(err, errlen, "%s: '%%' at byte %zu is not followed by two hex digits",
						 what, i + 1);
					return -EINVAL;
				}
				continue;
			}
			if (i == start && empty_is_bad)
				goto empty;
			++*items;
			start = i + 1;
		}
	}
	if (start == list.len && empty_is_bad)
		goto empty;
	++*items;
	return 0;
empty:
	snprintf(err, errlen, "%s: frame %zu has an empty name", what, *items + 1);
	return -EINVAL;
}

static int field_u64(struct lp_span s, const char *name, uint64_t *out, char *err, size_t errlen)
{
	char q[64];

	if (parse_u64(s.s, s.len, out) == 0)
		return 0;
	snprintf(err, errlen, "%s '%s' is not a non-negative integer", name,
		 excerpt(s, q, sizeof(q)));
	return -EINVAL;
}

static int field_id(struct lp_span s, const char *name, int64_t *out, char *err, size_t errlen)
{
	uint64_t v;
	int ret = field_u64(s, name, &v, err, errlen);

	if (ret < 0)
		return ret;
	if (v > INT32_MAX) {
		snprintf(err, errlen, "%s %llu is out of range", name, (unsigned long long)v);
		return -EINVAL;
	}
	*out = (int64_t)v;
	return 0;
}

int lp_sample__parse(const struct lp_fields *f, struct lp_sample *s, char *err, size_t errlen)
{
	const struct lp_span *v = f->v;
	size_t frames = 0, locs;
	int ret;

	if (f->n < LP_SAMPLE_FIELDS) {
		snprintf(err, errlen, "expected %d fields in an S record, got %zu",
			 LP_SAMPLE_FIELDS, f->n);
		return -EINVAL;
	}
	if ((ret = field_u64(v[1], "TIME", &s->time, err, errlen)) < 0 ||
	    (ret = field_id(v[2], "PID", &s->pid, err, errlen)) < 0 ||
	    (ret = field_id(v[3], "TID", &s->tid, err, errlen)) < 0 ||
	    (ret = check_escapes(v[4], "COMM", err, errlen)) < 0 ||
	    (ret = check_escapes(v[5], "EVENT", err, errlen)) < 0 ||
	    (ret = field_u64(v[6], "WEIGHT", &s->weight, err, errlen)) < 0 ||
	    (ret = check_list(v[7], "STACK", true, &frames, err, errlen)) < 0)
		return ret;
	if (v[5].len == 0) {
		snprintf(err, errlen, "EVENT is empty");
		return -EINVAL;
	}
	if (!(v[8].len == 1 && v[8].s[0] == '-')) {
		if ((ret = check_list(v[8], "LOCS", false, &locs, err, errlen)) < 0)
			return ret;
		if (locs != frames) {
			snprintf(err, errlen, "LOCS has %zu entries but STACK has %zu frames",
				 locs, frames);
			return -EINVAL;
		}
	}
	for (size_t i = LP_SAMPLE_FIELDS; i < f->n; i++) {
		const char *eq = memchr(v[i].s, '=', v[i].len);
		char q[64];

		if (!eq || eq == v[i].s) {
			snprintf(err, errlen, "attribute '%s' is not KEY=VALUE",
				 excerpt(v[i], q, sizeof(q)));
			return -EINVAL;
		}
	}
	s->comm = v[4];
	s->event = v[5];
	s->stack = v[7];
	s->locs = v[8];
	s->attrs = v + LP_SAMPLE_FIELDS;
	s->nattrs = f->n - LP_SAMPLE_FIELDS;
	return 0;
}

void lp_list_iter__init(struct lp_list_iter *it, struct lp_span list)
{
	it->p = list.s;
	it->end = list.s + list.len;
	it->done = list.len == 0;
}

int lp_list_iter__next(struct lp_list_iter *it, struct lp_span *item)
{
	const char *semi;

	if (it->done)
		return 0;
	semi = memchr(it->p, ';', (size_t)(it->end - it->p));
	item->s = it->p;
	if (semi) {
		item->len = (size_t)(semi - it->p);
		it->p = semi + 1;
	} else {
		item->len = (size_t)(it->end - it->p);
		it->done = 1;
	}
	return 1;
}

size_t lp_list__count(struct lp_span list)
{
	const char *p = list.s, *end = list.s + list.len;
	size_t n = 1;

	if (list.len == 0)
		return 0;
	while ((p = memchr(p, ';', (size_t)(end - p)))) {
		n++;
		p++;
	}
	return n;
}

int lp_span__unescape_to(struct strbuf *out, struct lp_span s)
{
	size_t bad;
	long n;
	int ret = strbuf__grow(out, s.len);

	if (ret < 0)
		return ret;
	n = unescape(out->s + out->len, s.s, s.len, &bad);
	if (n < 0)
		return (int)n;
	out->len += (size_t)n;
	return 0;
}

int lp_list__append(struct strbuf *list, const char *item, size_t len)
{
	int ret = strbuf__grow(list, 1 + 3 * len);

	if (ret < 0)
		return ret;
	if (list->len > 0)
		list->s[list->len++] = ';';
	list->len += escape(list->s + list->len, item, len, ESCAPE_LIST_ITEM);
	return 0;
}

static int put_span(FILE *out, char sep, struct lp_span s)
{
	if (sep && putc_unlocked(sep, out) == EOF)
		return -EIO;
	if (s.len && fwrite_unlocked(s.s, 1, s.len, out) != s.len)
		return -EIO;
	return 0;
}

int lp_write_version(FILE *out)
{
	return fprintf(out, "%s %d\n", LP_STREAM_MAGIC, LP_STREAM_VERSION) < 0 ? -EIO : 0;
}

int lp_write_meta(FILE *out, const char *key, const char *const *values, size_t n)
{
	struct strbuf b = STRBUF_INIT;
	int ret = 0;

	if (fprintf(out, "#lp.%s", key) < 0) {
		ret = -EIO;
		goto cleanup;
	}
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(values[i]);
		struct lp_span s;

		strbuf__reset(&b);
		ret = strbuf__grow(&b, 3 * len);
		if (ret < 0)
			goto cleanup;
		b.len = escape(b.s, values[i], len, ESCAPE_FIELD);
		s.s = b.s;
		s.len = b.len;
		ret = put_span(out, '\t', s);
		if (ret < 0)
			goto cleanup;
	}
	if (putc_unlocked('\n', out) == EOF)
		ret = -EIO;
cleanup:
	strbuf__release(&b);
	return ret;
}

int lp_write_sample(FILE *out, const struct lp_sample *s)
{
	if (fprintf(out, "S\t%llu\t%lld\t%lld", (unsigned long long)s->time,
		    (long long)s->pid, (long long)s->tid) < 0 ||
	    put_span(out, '\t', s->comm) < 0 || put_span(out, '\t', s->event) < 0 ||
	    fprintf(out, "\t%llu", (unsigned long long)s->weight) < 0 ||
	    put_span(out, '\t', s->stack) < 0 || put_span(out, '\t', s->locs) < 0)
		return -EIO;
	for (size_t i = 0; i < s->nattrs; i++)
		if (put_span(out, '\t', s->attrs[i]) < 0)
			return -EIO;
	return putc_unlocked('\n', out) == EOF ? -EIO : 0;
}
