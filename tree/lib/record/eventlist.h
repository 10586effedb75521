/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The events this machine offers, as lp-record --list-events shows them. */
#ifndef LP_EVENTLIST_H
#define LP_EVENTLIST_H

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

#endif
