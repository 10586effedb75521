#include "dso.h"

#include <string.h>

bool dso_is_perf_map(const char *s, size_t len)
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

static bool starts_with(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(s, prefix, n) == 0;
}

bool loc_is_kernel(const char *s, size_t len)
{
	/* user-space pseudo-files that perf also names in brackets */
	static const char *const user[] = { "[vdso]", "[vsyscall]", "[unknown]", "[anon", "[heap]",
					    "[stack]", "[uprobes]" };

	if (!starts_with(s, len, "["))
		return false;
	for (size_t i = 0; i < sizeof(user) / sizeof(user[0]); i++)
		if (starts_with(s, len, user[i]))
			return false;
	return true;
}
