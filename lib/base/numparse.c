/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/numparse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int numparse__u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0)
		return -EINVAL;
	/* 19 digits cannot overflow: the check per digit only for longer ones */
	if (len <= 19) {
		for (size_t i = 0; i < len; i++) {
			unsigned d = (unsigned char)s[i] - '0';

			if (d > 9)
				return -EINVAL;
			v = v * 10 + d;
		}
		*out = v;
		return 0;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int numparse__hex_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		int d = hex_digit((unsigned char)s[i]);

		if (d < 0)
			return -EINVAL;
		if (v >> 60)
			return -ERANGE;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return 0;
}

int numparse__i64(const char *s, size_t len, int64_t *out)
{
	int neg = len > 0 && s[0] == '-';
	uint64_t v;
	int ret = numparse__u64(s + neg, len - neg, &v);

	if (ret < 0)
		return ret;
	if (v > (uint64_t)INT64_MAX + neg)
		return -ERANGE;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

int numparse__decimal(const char *s, size_t len, double *out)
{
	char buf[64], *end;
	size_t i = 0, digits = 0;
	double v;

	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++, digits++;
	if (digits && i < len && s[i] == '.') {
		size_t frac = 0;

		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			frac++;
		if (!frac)
			return -EINVAL;
	}
	if (!digits || i != len)
		return -EINVAL;
	if (len >= sizeof(buf))
		return -ERANGE;
	memcpy(buf, s, len);
	buf[len] = 0;
	errno = 0;
	v = strtod(buf, &end);
	if (end != buf + len)
		return -EINVAL;
	if (errno == ERANGE || !isfinite(v))
		return -ERANGE;
	*out = v;
	return 0;
}

char *numparse__format_u64(char *end, uint64_t v)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
				    "8081828384858687888990919293949596979899";
	char *p = end;

	for (; v >= 100; v /= 100) {
		p -= 2;
		memcpy(p, pairs + v % 100 * 2, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, pairs + v * 2, 2);
	} else {
		*--p = (char)('0' + v);
	}
	return p;
}

char *numparse__format_tenths(char *p, double v)
{
	char digits[24], *end = digits + sizeof(digits), *d;
	double k, off;
	uint64_t tenths;

	/* below 2^52 / 10, k + 0.5 is exact: the rounding is decided on exact values */
	if (!(v >= 0 && v < 1e14) || signbit(v))
		return p + snprintf(p, FORMAT_TENTHS_MAX, "%.1f", v);
	k = floor(v * 10);
	/* v * 10 - (k + 0.5) rounded once: its sign is the exact difference's */
	off = fma(v, 10, -(k + 0.5));
	tenths = (uint64_t)k + (off > 0 || (off == 0 && ((uint64_t)k & 1)));
	d = numparse__format_u64(end, tenths / 10);
	memcpy(p, d, (size_t)(end - d));
	p += end - d;
	*p++ = '.';
	*p++ = (char)('0' + tenths % 10);
	return p;
}
