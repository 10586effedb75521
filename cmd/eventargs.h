/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the programs that open events (lp-record, lp-stat) share of -e and --list-events. */
#ifndef LP_EVENTARGS_H
#define LP_EVENTARGS_H

/* --list-events [PATTERN]: the list on stdout; 0, or failure when it cannot be written. */
int list_events(int failure, const char *pattern);

/*
 * The events of a perf-style -e list: names separated by commas (a PMU's
 * terms between slashes keep theirs), each tracepoint wildcard expanded to
 * the tracepoints it matches, in perf's order. Calls fn with each name and
 * returns its first nonzero return, or 0; a wildcard that matches nothing
 * is a usage error.
 */
int event_args__each(const char *arg, int (*fn)(void *ctx, const char *name), void *ctx);

#endif
