/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small TAP producer for the C unit tests: one "ok N - name" per check. */
#ifndef LP_TAP_H
#define LP_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *name, const char *file, int line)
{
	tap_n++;
	printf("%sok %d - %s\n", cond ? "" : "not ", tap_n, name);
	if (!cond) {
		tap_failed++;
		printf("# failed at %s:%d\n", file, line);
	}
	return cond;
}

#define ok(cond, name) tap_ok(!!(cond), name, __FILE__, __LINE__)

static inline int tap_is_mem(const char *got, size_t gotlen, const char *want, size_t wantlen,
			     const char *name, const char *file, int line)
{
	int same = gotlen == wantlen && memcmp(got, want, gotlen) == 0;

	tap_ok(same, name, file, line);
	if (!same)
		printf("#   got: '%.*s'\n#  want: '%.*s'\n", (int)(gotlen > 200 ? 200 : gotlen), got,
		       (int)(wantlen > 200 ? 200 : wantlen), want);
	return same;
}

#define is_mem(got, gotlen, want, wantlen, name) \
	tap_is_mem(got, gotlen, want, wantlen, name, __FILE__, __LINE__)
#define is_str(got, want, name) \
	tap_is_mem(got, strlen(got), want, strlen(want), name, __FILE__, __LINE__)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
