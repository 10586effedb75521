/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Strict number parsing: the whole text must be the number. */
#ifndef LP_NUMPARSE_H
#define LP_NUMPARSE_H

#include <stddef.h>
#include <stdint.h>

/* Decimal digits only, no sign, no spaces; -EINVAL if not a number, -ERANGE on overflow. */
int numparse__u64(const char *s, size_t len, uint64_t *out);

/* Hexadecimal digits only (either case, no "0x"); -EINVAL if not a number, -ERANGE on overflow. */
int numparse__hex_u64(const char *s, size_t len, uint64_t *out);

/* Like numparse__u64 with an optional leading '-'. */
int numparse__i64(const char *s, size_t len, int64_t *out);

/*
 * A non-negative plain decimal, DIGITS or DIGITS.DIGITS (no sign, exponent,
 * spaces, inf or nan); -EINVAL if not one, -ERANGE when it is not finite.
 */
int numparse__decimal(const char *s, size_t len, double *out);

/*
 * v in decimal, written backwards so that it ends just before end (room for
 * 20 characters before it is enough): where it starts. Two digits a
 * division: timestamps have 14 and more.
 */
char *numparse__format_u64(char *end, uint64_t v);

/*
 * v as printf's "%.1f" writes it (rounded to the nearest tenth on v's exact
 * value, ties to even), at p; where it ends. printf's own goes through
 * multi-precision arithmetic, dear per call in a picture of thousands of
 * frames: this one takes 0 to 1e14 by hand and hands printf the rest. Room
 * for FORMAT_TENTHS_MAX characters at p is enough.
 */
enum { FORMAT_TENTHS_MAX = 320 };
char *numparse__format_tenths(char *p, double v);

/* The value of a hexadecimal digit, either case; -1 for any other character. */
static inline int hex_digit(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

#endif
