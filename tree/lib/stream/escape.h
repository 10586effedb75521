/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Percent-escaping of lp stream fields (lp-stream(5), "Escaping"). */
#ifndef LP_ESCAPE_H
#define LP_ESCAPE_H

#include <stddef.h>

/* Which bytes must be escaped: always %, TAB, LF, CR; ';' too in lists. */
enum escape_mode { ESCAPE_FIELD, ESCAPE_LIST_ITEM };

/* Bytes needed to escape s (never more than 3 * len). */
size_t escape__len(const char *s, size_t len, enum escape_mode mode);

/* Writes the escaped form of s to dst (escape__len bytes); returns that length. */
size_t escape__encode(char *dst, const char *s, size_t len, enum escape_mode mode);

/*
 * Decodes %XX escapes of s into dst (at most len bytes; dst may equal s).
 * Returns the decoded length, or -EINVAL with *bad set to the offset of a '%'
 * not followed by two hex digits.
 */
long escape__decode(char *dst, const char *s, size_t len, size_t *bad);

#endif
