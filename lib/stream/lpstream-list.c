/* STACK and LOCS lists: walking, checking, building; LOCS items. */
#include "lpstream.h"

#include <errno.h>
#include <string.h>

#include "escape.h"
#include "numparse.h"

size_t lp_list__count(struct lp_span list)
{
	struct lp_list_iter it;
	struct lp_span item;
	size_t n = 0;

	lp_list_iter__init(&it, list);
	while (lp_list_iter__next(&it, &item, NULL))
		n++;
	return n;
}

int lp_span__check_escapes(struct lp_span s, const char *what, size_t at, struct lp_error *err)
{
	const char *p = s.s, *end = s.s + s.len;

	while ((p = memchr(p, '%', (size_t)(end - p)))) {
		if (end - p < 3 || hex_digit((unsigned char)p[1]) < 0 || hex_digit((unsigned char)p[2]) < 0)
			return lp_error__set(err, -EINVAL, "%s: '%%' at byte %zu is not followed by two hex digits",
					     what, at + (size_t)(p - s.s) + 1);
		p += 3;
	}
	return 0;
}

int lp_list__check(struct lp_span list, const char *what, bool empty_is_bad, size_t *items,
		   struct lp_error *err)
{
	struct lp_list_iter it;
	struct lp_span item;
	bool escaped;
	int ret;

	*items = 0;
	lp_list_iter__init(&it, list);
	while (lp_list_iter__next(&it, &item, &escaped)) {
		if (item.len == 0 && empty_is_bad)
			return lp_error__set(err, -EINVAL, "%s: frame %zu has an empty name", what, *items + 1);
		/* the walker saw every '%': only items that hold one are checked */
		if (escaped && (ret = lp_span__check_escapes(item, what, (size_t)(item.s - list.s), err)) < 0)
			return ret;
		++*items;
	}
	return 0;
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

void lp_loc__parse(struct lp_span item, struct lp_loc *loc)
{
	size_t i = item.len;

	loc->dso = item;
	loc->offset = 0;
	loc->has_offset = false;
	if (lp_span__eq(item, "-", 1)) {
		loc->dso.len = 0;
		return;
	}
	/* hex digits at the end, after "+0x" */
	while (i > 0 && hex_digit((unsigned char)item.s[i - 1]) >= 0)
		i--;
	if (i == item.len || i < 3 || memcmp(item.s + i - 3, "+0x", 3) != 0 || item.len - i > 16)
		return;
	loc->dso.len = i - 3;
	loc->has_offset = true;
	for (; i < item.len; i++)
		loc->offset = loc->offset << 4 | (uint64_t)hex_digit((unsigned char)item.s[i]);
}

static bool starts_with(struct lp_span s, const char *prefix)
{
	size_t n = strlen(prefix);

	return s.len >= n && memcmp(s.s, prefix, n) == 0;
}

bool lp_loc__is_kernel(struct lp_span item)
{
	/* user-space pseudo-files that perf also names in brackets */
	static const char *const user[] = { "[vdso]", "[vsyscall]", "[unknown]", "[anon", "[heap]",
					    "[stack]", "[uprobes]" };

	if (!starts_with(item, "["))
		return false;
	for (size_t i = 0; i < sizeof(user) / sizeof(user[0]); i++)
		if (starts_with(item, user[i]))
			return false;
	return true;
}
