/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A temporary file for what does not fit in memory: written once in blocks,
 * then read through one read-only mapping whose pages can be let go of.
 * Unlinked from the start, so it goes away with the process however that ends.
 */
#ifndef LP_SPILL_H
#define LP_SPILL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct spill;

/* A new, empty file in dir; NULL and errno if it cannot be made. */
struct spill *spill__new(const char *dir);
void spill__free(struct spill *s);

/* Appends a block; its offset in *at. -errno (-ENOSPC on a full disk). */
int spill__append(struct spill *s, const void *data, size_t size, uint64_t *at);

/*
 * Hands a block over to be appended on a thread of the file's own, and
 * returns at once (an 8 MB write into the page cache took longer than a
 * recording's rings held at 4999 Hz). The block stays the caller's to keep
 * as it is until spill__collect. One at a time: -EBUSY while one is not
 * collected; else 0, or -errno when the thread cannot be started (nothing
 * was handed over).
 */
int spill__put(struct spill *s, const void *data, size_t size);

/*
 * Waits for the block handed over: 1 with its offset in *at, 0 when none
 * is, or -errno of its write (the file's size stays as before it).
 */
int spill__collect(struct spill *s, uint64_t *at);

/* Bytes written so far (with no block handed over and not collected). */
uint64_t spill__size(const struct spill *s);

/* Maps what was written (appending is over then, a block handed over is waited for); NULL and errno if it cannot. */
const char *spill__map(struct spill *s);

/* Lets go of the mapping's pages read so far; reading them again reads the file. */
void spill__release(struct spill *s);

/* Whether p points into the mapping. */
bool spill__holds(const struct spill *s, const void *p);

/* Reads [from, to) of the mapping in at once (to: up to its end), ahead of its use (best effort). */
void spill__prefetch(struct spill *s, const void *from, const void *to);

#endif
