/* Buffered line reader: lines are handed out in place, without copying. */
#ifndef LP_LINES_H
#define LP_LINES_H

#include <stddef.h>

struct lines;

/* Reads from fd, which stays the caller's to close. NULL+errno on failure. */
struct lines *lines__new(int fd);
void lines__free(struct lines *r);

/*
 * Next line, without its '\n', NUL-terminated in place (a NUL inside the line
 * is data: use *len). The line stays valid until the next call.
 * Returns 1 for a line, 0 at end of input, -errno on a read error.
 */
int lines__next(struct lines *r, char **line, size_t *len);

/*
 * The line n places ahead of the next one (n = 0 is the next one), without
 * consuming anything and without terminating it. Same returns as lines__next.
 */
int lines__peek(struct lines *r, size_t n, const char **line, size_t *len);

/* Number of the line last returned by lines__next (1-based). */
long lines__lineno(const struct lines *r);

/* Whether the input ended without a final '\n' (known once 0 was returned). */
int lines__missing_newline(const struct lines *r);

#endif
