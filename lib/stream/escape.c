/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "stream/escape.h"

#include <errno.h>

#include "base/numparse.h"

static int needs_escape(unsigned char c, enum escape_mode mode)
{
	return c == '%' || c == '\t' || c == '\n' || c == '\r' ||
	       (c == ';' && mode == ESCAPE_LIST_ITEM);
}

size_t escape__len(const char *s, size_t len, enum escape_mode mode)
{
	size_t n = len;

	for (size_t i = 0; i < len; i++)
		if (needs_escape((unsigned char)s[i], mode))
			n += 2;
	return n;
}

size_t escape__encode(char *dst, const char *s, size_t len, enum escape_mode mode)
{
	static const char hex[] = "0123456789ABCDEF";
	char *d = dst;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (needs_escape(c, mode)) {
			*d++ = '%';
			*d++ = hex[c >> 4];
			*d++ = hex[c & 15];
		} else {
			*d++ = (char)c;
		}
	}
	return (size_t)(d - dst);
}

long escape__decode(char *dst, const char *s, size_t len, size_t *bad)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] != '%') {
			dst[o++] = s[i];
			continue;
		}
		int hi = i + 2 < len ? hex_digit((unsigned char)s[i + 1]) : -1;
		int lo = hi >= 0 ? hex_digit((unsigned char)s[i + 2]) : -1;

		if (hi < 0 || lo < 0) {
			*bad = i;
			return -EINVAL;
		}
		dst[o++] = (char)(hi << 4 | lo);
		i += 2;
	}
	return (long)o;
}
