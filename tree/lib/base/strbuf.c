/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/strbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int strbuf__grow(struct strbuf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 64;
	char *s;

	if (n > SIZE_MAX / 2 - b->len)
		return -ENOMEM;
	while (cap - b->len <= n)
		cap *= 2;
	if (cap == b->cap)
		return 0;
	s = realloc(b->s, cap);
	if (!s)
		return -ENOMEM;
	b->s = s;
	b->cap = cap;
	return 0;
}

void strbuf__release(struct strbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

int strbuf__addf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || strbuf__grow(b, (size_t)n + 1) < 0)
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}
#include "error.h"
#include "record/recorder.h"
#include "record/recorder-int.h"
