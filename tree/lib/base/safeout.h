/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An output that is whole or not there: what a reader writes while it still
 * may find its input bad. A named file is written beside its path (beside a
 * symlink's target, so the link stays) and renamed over it once complete
 * (a device or a pipe by that name is written directly);
 * stdout holds what it was given in a buffer until it is full, so a failure
 * before then leaves stdout empty, and one after can say that it did not.
 */
#ifndef LP_SAFEOUT_H
#define LP_SAFEOUT_H

#include <stdint.h>
#include <stdio.h>

struct safeout;

/* path NULL: stdout. NULL+errno (the temporary file could not be made: its errno). */
struct safeout *safeout__open(const char *path);

/* Where to write. */
FILE *safeout__file(struct safeout *o);

/* Writes what is held, closes, and puts the file in place: 0 or -errno; freed either way. */
int safeout__commit(struct safeout *o);

/*
 * Drops what was written: the temporary file goes, stdout's held bytes are
 * not written. Returns how many bytes had reached stdout already (0: none,
 * and always 0 for a file). Frees o; NULL is a no-op.
 */
uint64_t safeout__abort(struct safeout *o);

#endif
