/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "formats/dso.h"

#include <string.h>

bool dso__is_perf_map(const char *s, size_t len)
{
	const char *m = s, *end = s + len;

	while ((m = memmem(m, (size_t)(end - m), "/tmp/perf-", 10))) {
		const char *d = m + 10;

		while (d < end && *d >= '0' && *d <= '9')
			d++;
		if (d > m + 10 && end - d >= 4 && memcmp(d, ".map", 4) == 0)
			return true;
		m++;
	}
	return false;
}
