/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "formats/folded.h"

#include <errno.h>
#include <stdio.h>

#include "base/numparse.h"

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Splits "TEXT<ws>NUMBER" at the last blank; 0, or -1 if there is none. */
static int split_last(const char *s, size_t len, size_t *textlen, const char **num, size_t *numlen)
{
	size_t i = len;

	while (i > 0 && !is_blank(s[i - 1]))
		i--;
	if (i == 0)
		return -1;
	*textlen = i - 1;
	*num = s + i;
	*numlen = len - i;
	return 0;
}

int folded__parse(const char *line, size_t len, struct folded_line *out, struct lp_error *err)
{
	const char *num, *num1;
	size_t textlen, numlen, text1len, num1len;
	char q[LP_QUOTE_SIZE];
	int ret;

	if (split_last(line, len, &textlen, &num, &numlen) < 0)
		return lp_error__set(err, -EINVAL, "expected 'STACK COUNT', found no count");
	ret = numparse__u64(num, numlen, &out->count[0]);
	if (ret < 0)
		return lp_error__set(err, -EINVAL, "count '%s' is %s", lp_error__quote(num, numlen, q, sizeof(q)),
				     ret == -ERANGE ? "too large" : "not a non-negative integer");
	out->ncounts = 1;
	out->count[1] = 0;
	/* a second count: digits right before, after a blank (never a scan of the whole stack) */
	num1len = 0;
	while (num1len < textlen && line[textlen - 1 - num1len] >= '0' && line[textlen - 1 - num1len] <= '9')
		num1len++;
	num1 = line + textlen - num1len;
	text1len = textlen - num1len - 1;
	if (num1len > 0 && num1len < textlen && is_blank(line[text1len])) {
		out->count[1] = out->count[0];
		if (numparse__u64(num1, num1len, &out->count[0]) < 0)
			return lp_error__set(err, -EINVAL, "count '%s' is too large",
					     lp_error__quote(num1, num1len, q, sizeof(q)));
		out->ncounts = 2;
		textlen = text1len;
	}
	if (textlen == 0)
		return lp_error__set(err, -EINVAL, "empty stack before the count");
	out->stack = line;
	out->stacklen = textlen;
	return 0;
}
