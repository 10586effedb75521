/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STACK and LOCS lists: walking, checking, building; LOCS items. */
#include "stream/lpstream.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "stream/escape.h"
#include "base/numparse.h"

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

/*
 * The common case in one pass of 16-byte blocks: no escapes and no empty
 * item. 1 with *items, or 0 when the list needs the item-by-item check
 * (which then finds the same count, or says which frame is wrong).
 */
static int check_plain(struct lp_span list, bool empty_is_bad, size_t *items)
{
	size_t semis = 0, off = 0;
	unsigned after_sep = 1;	/* the start counts as a separator: a leading ';' is an empty item */

#ifdef __SSE2__
	/* ';' counted bytewise in acc (each compare is -1), summed before a byte could overflow */
	const __m128i semi_v = _mm_set1_epi8(';'), pct_v = _mm_set1_epi8('%'), zero = _mm_setzero_si128();
	__m128i acc = zero;
	unsigned in_acc = 0;

	for (; off + 16 <= list.len; off += 16) {
		const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(list.s + off));
		const __m128i is_semi = _mm_cmpeq_epi8(v, semi_v);
		unsigned semi = (unsigned)_mm_movemask_epi8(is_semi);

		if (_mm_movemask_epi8(_mm_cmpeq_epi8(v, pct_v)))
			return 0;
		if (empty_is_bad && ((semi & (semi << 1)) || ((semi & 1) && after_sep)))
			return 0;
		after_sep = semi >> 15;
		acc = _mm_sub_epi8(acc, is_semi);
		if (++in_acc == 255) {
			const __m128i sums = _mm_sad_epu8(acc, zero);

			semis += (size_t)_mm_cvtsi128_si32(sums) + (size_t)_mm_extract_epi16(sums, 4);
			acc = zero;
			in_acc = 0;
		}
	}
	{
		const __m128i sums = _mm_sad_epu8(acc, zero);

		semis += (size_t)_mm_cvtsi128_si32(sums) + (size_t)_mm_extract_epi16(sums, 4);
	}
#endif
	for (; off < list.len; off++) {
		char c = list.s[off];

		if (c == '%')
			return 0;
		if (c == ';') {
			if (empty_is_bad && after_sep)
				return 0;
			semis++;
		}
		after_sep = c == ';';
	}
	if (empty_is_bad && after_sep)
		return 0;
	*items = list.len ? semis + 1 : 0;
	return 1;
}

int lp_list__check(struct lp_span list, const char *what, bool empty_is_bad, size_t *items,
		   struct lp_error *err)
{
	struct lp_list_iter it;
	struct lp_span item;
	bool escaped;
	int ret;

	if (check_plain(list, empty_is_bad, items))
		return 0;
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
	n = escape__decode(out->s + out->len, s.s, s.len, &bad);
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
	list->len += escape__encode(list->s + list->len, item, len, ESCAPE_LIST_ITEM);
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

size_t lp_loc__format(char *buf, size_t size, const char *dso, uint64_t offset)
{
	int n = snprintf(buf, size, "%s+0x%" PRIx64, dso, offset);

	return n < 0 ? 0 : (size_t)n;
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
