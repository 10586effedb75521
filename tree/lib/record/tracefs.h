/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the kernel's tracepoints are described: tracefs. */
#ifndef LP_TRACEFS_H
#define LP_TRACEFS_H

#include <stddef.h>

/*
 * The tracefs directory (/sys/kernel/tracing, or under debugfs), mounting it
 * when it is not (as root that works); NULL with errno when there is none.
 */
const char *tracefs__dir(void);

/*
 * The perf id of tracepoint system:name under dir: -ENOENT when there is
 * no such tracepoint, or -errno.
 */
int tracefs__event_id(const char *dir, const char *system, const char *name);

/* The text of its format file (malloc'ed, NUL-terminated, *len bytes); NULL with errno. */
char *tracefs__event_format(const char *dir, const char *system, const char *name, size_t *len);

#endif
