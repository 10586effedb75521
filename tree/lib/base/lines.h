/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Buffered line reader: lines are handed out in place, without copying. */
#ifndef LP_LINES_H
#define LP_LINES_H

#include <stddef.h>
#include <stdint.h>

struct lines;

/* Reads from fd, which stays the caller's to close. NULL+errno on failure. */
struct lines *lines__new(int fd);
void lines__free(struct lines *r);

/*
 * Reads bytes [from, to) of fd with pread(2), whatever fd's offset; line
 * numbers continue from lineno (the lines before from).
 */
struct lines *lines__new_range(int fd, uint64_t from, uint64_t to, long lineno);

/*
 * Ends the input offset bytes after where r started reading (what it has
 * buffered past that is dropped). -EINVAL if lines past it were handed out.
 */
int lines__stop_at(struct lines *r, uint64_t offset);

/*
 * Next line, without its '\n', NUL-terminated in place (a NUL inside the line
 * is data: use *len). The line stays valid until the next call.
 * Returns 1 for a line, 0 at end of input, -errno on a read error.
 */
int lines__next(struct lines *r, char **line, size_t *len);

/*
 * For looking far ahead in one pass: the line that starts *at bytes past the
 * next unread one (start with *at = 0), and *at moved past it. Consumes
 * nothing; the line is not terminated and stays valid until the next call.
 * Same returns as lines__next.
 */
int lines__peek_next(struct lines *r, size_t *at, const char **line, size_t *len);

/* Number of the line last returned by lines__next (1-based). */
long lines__lineno(const struct lines *r);

/* Whether the input ended without a final '\n' (known once 0 was returned). */
int lines__missing_newline(const struct lines *r);

#endif
