/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Growable byte buffer. */
#ifndef LP_STRBUF_H
#define LP_STRBUF_H

#include <stddef.h>
#include <string.h>

struct strbuf {
	char *s;
	size_t len, cap;
};

#define STRBUF_INIT { NULL, 0, 0 }

/* Makes room for n more bytes (plus a NUL); -ENOMEM. */
int strbuf__grow(struct strbuf *b, size_t n);
void strbuf__release(struct strbuf *b);

/* Appends printf-style text; -ENOMEM. */
int strbuf__addf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline int strbuf__add(struct strbuf *b, const void *p, size_t n)
{
	if (b->cap - b->len <= n) {
		int ret = strbuf__grow(b, n);

		if (ret < 0)
			return ret;
	}
	if (n)	/* p may be NULL: an empty buffer's */
		memcpy(b->s + b->len, p, n);
	b->len += n;
	return 0;
}

static inline int strbuf__addc(struct strbuf *b, char c)
{
	return strbuf__add(b, &c, 1);
}

static inline void strbuf__reset(struct strbuf *b)
{
	b->len = 0;
}

#endif
