/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What `lp-record -e EVENT[,PERIOD[,TITLE[,UNIT]]]` names, resolved to what
 * perf_event_open takes, the way perf users write events: generic hardware,
 * cache and software events, raw rNNNN, PMU syntax pmu/term=value,.../ (the
 * PMU's format and event aliases read from sysfs), tracepoints system:name
 * (from tracefs) and named PMU events (libpfm4).
 */
#ifndef LP_EVENTSPEC_H
#define LP_EVENTSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

enum event_kind {
	EVENT_HARDWARE, EVENT_CACHE, EVENT_SOFTWARE, EVENT_RAW, EVENT_PMU, EVENT_TRACEPOINT, EVENT_PFM,
};

struct event_spec {
	char *key;		/* the S records' EVENT field: the name, made a safe list key */
	char *name;		/* EVENT as given */
	char *title, *unit;
	uint64_t period;	/* events per sample */
	enum event_kind kind;
	uint32_t type;		/* perf_event_attr's */
	uint64_t config, config1, config2;
	char *tp_system, *tp_name;	/* a tracepoint's */
};

/* Where to look (NULL: the system's): for tests with made-up PMUs and tracepoints. */
struct event_env {
	const char *sysfs_pmus;	/* /sys/bus/event_source/devices */
	const char *tracefs;	/* NULL: found or mounted */
};

/*
 * Parses and resolves one -e argument into e. -EINVAL (unknown event, bad
 * period...) or -ENOENT/-errno, with err saying what is wrong in words a
 * perf user knows.
 */
int event_spec__parse(struct event_spec *e, const char *arg, const struct event_env *env, struct lp_error *err);
void event_spec__release(struct event_spec *e);

/* The length of the event name arg starts with: up to its first comma, a PMU's terms between slashes kept whole. */
size_t event_spec__name_length(const char *arg);

/*
 * Why an event's counts (its value, and the time it was enabled and really
 * counting) are not data, in words into buf; "" when they are. Multiplexed:
 * running short of enabled by more than 1%; implausible: 2^47 or more, what
 * a PMU that does not count gives back.
 */
void event_counts__doubt(const char *name, uint64_t value, uint64_t enabled, uint64_t running, char *buf,
			 size_t size);

/* The kind's name for messages and listings: "hardware", "tracepoint"... */
const char *event_kind__name(enum event_kind k);

/* Calls fn for every generic hardware, cache and software event name, with its kind. */
void event_spec__each_generic(void (*fn)(void *ctx, const char *name, enum event_kind kind), void *ctx);

#endif
