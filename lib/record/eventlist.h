/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The events this machine offers, as lp-record --list-events shows them. */
#ifndef LP_EVENTLIST_H
#define LP_EVENTLIST_H

#include <stdbool.h>

#include "record/eventspec.h"

struct event_info {
	const char *name;	/* as -e takes it */
	enum event_kind kind;
	const char *unavailable;	/* why it cannot be sampled here, or NULL */
};

/*
 * Calls fn for each event whose name matches pattern (a glob, case
 * ignored; without wildcards a part of the name; NULL: all): generic
 * events (each tried), PMU event aliases from sysfs, tracepoints from
 * tracefs, libpfm4's events of the PMUs present. Stops at fn's first
 * nonzero return and returns it; 0 otherwise.
 */
int event_list__each(const char *pattern, int (*fn)(void *ctx, const struct event_info *e), void *ctx);

/* Whether name is a tracepoint pattern (SYSTEM:NAME with a *, ? or [ in it) for event_list__tracepoints. */
bool event_list__is_tracepoint_glob(const char *name);

/*
 * Calls fn with "system:name" for each tracepoint that glob (SYSTEM:NAME,
 * fnmatch's wildcards in either part, case kept) matches, in tracefs's own
 * order, as perf expands `-e 'sched:sched_process_*'`. Returns how many
 * matched, fn's first nonzero return, or -errno (no tracefs).
 */
int event_list__tracepoints(const char *glob, int (*fn)(void *ctx, const char *name), void *ctx);

#endif
