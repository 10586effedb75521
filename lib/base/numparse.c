#include "numparse.h"

#include <errno.h>

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
