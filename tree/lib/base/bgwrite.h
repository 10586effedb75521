/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Buffers written to a file descriptor by a thread of their own: the
 * producer fills the next buffer while the last one goes out. A write into
 * a pipe waits for its reader, and a write into a file copies into the page
 * cache; both were a fifth of lp-record's write phase on its thread.
 */
#ifndef LP_BGWRITE_H
#define LP_BGWRITE_H

#include "base/strbuf.h"

struct bgwrite;

/* Buffers handed over and not written yet, at most: the producer waits beyond. */
enum { BGWRITE_SLOTS = 4 };

/* A writer to fd (the caller's to close, after bgwrite__finish); NULL+errno. */
struct bgwrite *bgwrite__new(int fd);

/*
 * Hands the bytes of buf over to be written, and leaves in buf an empty
 * buffer to fill next (one handed over before, its memory kept). Waits while
 * BGWRITE_SLOTS buffers are in flight. 0, or -errno of the first write that
 * failed: from then on nothing more is written.
 */
int bgwrite__put(struct bgwrite *b, struct strbuf *buf);

/* All n bytes to fd, on this thread, again after short writes and EINTR: 0 or -errno. */
int bgwrite__write_all(int fd, const void *data, size_t n);

/* Writes what was handed over, ends the thread and frees b: 0 or -errno as bgwrite__put. NULL: 0. */
int bgwrite__finish(struct bgwrite *b);

#endif
