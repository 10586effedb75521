/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Events counted, not sampled (lp-stat, perf stat's job): perf_event_open
 * without a period, so no ring buffers and no stacks. A command is counted
 * with everything it spawns (inherited: the kernel adds each child's counts
 * to its parent's as it exits); a running process thread by thread; the
 * whole system CPU by CPU.
 */
#ifndef LP_COUNTERS_H
#define LP_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"

/* One event to count, as perf_event_attr takes it. */
struct counter_event {
	const char *name;	/* for messages */
	uint32_t type;
	uint64_t config, config1, config2;
};

enum counter_scope {
	COUNTER_TASK,		/* a task and all it spawns from now, one descriptor an event */
	COUNTER_THREADS,	/* each thread of processes now (and what each spawns) */
	COUNTER_CPUS,		/* every task on the CPUs of cpu_mask (NULL: all online) */
};

struct counter_opts {
	const struct counter_event *events;
	size_t nevents;
	enum counter_scope scope;
	const pid_t *pids;	/* COUNTER_TASK: pids[0]; COUNTER_THREADS: each process's threads */
	size_t npids;
	const uint64_t *cpu_mask;	/* a bitmap of 1024 CPUs */
	bool enable_on_exec;	/* COUNTER_TASK: start at the task's exec (it waits to exec until opened) */
};

/* What an event has counted where it is open: its value and the ns it was enabled and really counting. */
struct counter_value {
	uint64_t value, enabled, running;
};

/* Why an event has no count. */
enum counter_state {
	COUNTER_COUNTED,
	COUNTER_NOT_SUPPORTED,	/* the machine cannot count it (no PMU, an event it lacks): perf's <not supported> */
	COUNTER_NOT_COUNTED,	/* open, but it never ran (a task that never ran; a PMU never given): <not counted> */
};

struct counters;

/*
 * Opens every event of o, disabled unless o->enable_on_exec says when.
 * An event the machine does not have is kept as not supported, not an
 * error; one the kernel forbids (perf_event_paranoid) is an error of kind
 * LP_ERROR_EVENT naming it and the remedy. NULL with errno set.
 */
struct counters *counters__open(const struct counter_opts *o, struct lp_error *err);
void counters__free(struct counters *c);

int counters__enable(struct counters *c);
int counters__disable(struct counters *c);

/* The units an event is open on: threads (COUNTER_THREADS), CPUs, or the one task. */
size_t counters__units(const struct counters *c);
/* A unit's thread id or CPU number. */
int counters__unit_id(const struct counters *c, size_t unit);
/* The process of a thread unit (as -p named it), else the unit's id. */
int counters__unit_process(const struct counters *c, size_t unit);

/* Whether event k is open at all (false: not supported here). */
bool counters__supported(const struct counters *c, size_t k);

/*
 * Reads every event on every unit at once, for counters__read: totals and
 * each unit's counts then come from the same readings (a thread spawned
 * while the events are disabled may count on a moment, and would make a
 * later reading differ). -errno.
 */
int counters__snapshot(struct counters *c);

/*
 * Event k's count on one unit, or summed over every unit (unit SIZE_MAX),
 * at the last snapshot (zeros before one). A not supported event reads as
 * zeros.
 */
int counters__read(const struct counters *c, size_t k, size_t unit, struct counter_value *v);

/*
 * What a reading is worth, in the rules of DESIGN.md: not counted when it
 * never ran, or when its value is one no program reaches (2^47 or more:
 * what a PMU that does not really count gives back, *implausible set).
 * *scaled is the value scaled to the whole enabled time when the PMU
 * multiplexed it (running < enabled).
 */
enum counter_state counter_value__judge(const struct counter_value *v, bool supported, double *scaled,
					bool *implausible);

/* Adds b to *a, field by field: the counts of several units. */
void counter_value__add(struct counter_value *a, const struct counter_value *b);

/* b minus a, field by field: an interval's counts from two readings. */
struct counter_value counter_value__delta(const struct counter_value *b, const struct counter_value *a);

#endif
