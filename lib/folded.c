#include "folded.h"

#include <errno.h>
#include <stdio.h>

#include "numparse.h"

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

static int all_digits(const char *s, size_t len)
{
	if (len == 0)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

int folded_parse(const char *line, size_t len, struct folded_line *out, char *err, size_t errlen)
{
	const char *num, *num1;
	size_t textlen, numlen, text1len, num1len;
	int ret;

	if (split_last(line, len, &textlen, &num, &numlen) < 0) {
		snprintf(err, errlen, "expected 'STACK COUNT', found no count");
		return -EINVAL;
	}
	ret = parse_u64(num, numlen, &out->count[0]);
	if (ret < 0) {
		snprintf(err, errlen, "count '%.*s' is %s", (int)(numlen > 40 ? 40 : numlen), num,
			 ret == -ERANGE ? "too large" : "not a non-negative integer");
		return -EINVAL;
	}
	out->ncounts = 1;
	out->count[1] = 0;
	if (split_last(line, textlen, &text1len, &num1, &num1len) == 0 &&
	    all_digits(num1, num1len)) {
		out->count[1] = out->count[0];
		if (parse_u64(num1, num1len, &out->count[0]) < 0) {
			snprintf(err, errlen, "count '%.*s' is too large",
				 (int)(num1len > 40 ? 40 : num1len), num1);
			return -EINVAL;
		}
		out->ncounts = 2;
		textlen = text1len;
	}
	if (textlen == 0) {
		snprintf(err, errlen, "empty stack before the count");
		return -EINVAL;
	}
	out->stack = line;
	out->stacklen = textlen;
	return 0;
}
