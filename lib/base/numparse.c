#include "numparse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int parse_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0)
		return -EINVAL;
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

int parse_i64(const char *s, size_t len, int64_t *out)
{
	int neg = len > 0 && s[0] == '-';
	uint64_t v;
	int ret = parse_u64(s + neg, len - neg, &v);

	if (ret < 0)
		return ret;
	if (v > (uint64_t)INT64_MAX + neg)
		return -ERANGE;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

int parse_decimal(const char *s, size_t len, double *out)
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
