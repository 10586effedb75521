/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What this machine lets lp-record do, each with its remedy: the checks
 * lp-record makes before recording and prints all of with --check.
 */
#ifndef LP_SYSCHECK_H
#define LP_SYSCHECK_H

#include <stdbool.h>

enum check_status { CHECK_OK, CHECK_WARNING, CHECK_PROBLEM };

struct check {
	const char *name;	/* what is checked: "perf_event_paranoid", "BTF"... */
	enum check_status status;
	char text[256];		/* what was found */
	char remedy[256];	/* what to do about it; empty when ok */
};

/*
 * Calls fn for each check in turn; freq is the sampling rate asked for (0:
 * none). probe: also try what only trying tells (a hardware event, loading
 * the off-CPU program), as --check does; recording finds out by doing it.
 */
void syscheck__run(unsigned long freq, bool probe, void (*fn)(void *ctx, const struct check *c), void *ctx);

/*
 * The NUMA check alone, from what was found: whether balancing is on, how
 * many nodes the machine has and how many the command's CPUs span.
 */
void syscheck__numa(struct check *c, long balancing, int nodes, int spanned);

const char *check_status__name(enum check_status s);

#endif
