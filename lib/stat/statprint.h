/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Counts printed as perf stat prints them, so that people and scripts
 * carry over: its columns and widths, its derived metrics (CPUs utilized,
 * rates a second, GHz, IPC, miss ratios), `( +- x.xx% )` over runs, and its
 * -x CSV columns in its order.
 */
#ifndef LP_STATPRINT_H
#define LP_STATPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stat/counters.h"

/* What an event is to the metrics derived from it. */
enum stat_role {
	STAT_ROLE_OTHER,
	STAT_ROLE_TASK_CLOCK,	/* msec, "CPUs utilized", the base of rates */
	STAT_ROLE_CPU_CLOCK,
	STAT_ROLE_CYCLES,	/* GHz */
	STAT_ROLE_INSTRUCTIONS,	/* insn per cycle */
	STAT_ROLE_BRANCHES,
	STAT_ROLE_BRANCH_MISSES,	/* of all branches */
	STAT_ROLE_CACHE_REFS,
	STAT_ROLE_CACHE_MISSES,	/* of all cache refs */
};

/* The role of the event perf_event_attr type/config names. */
enum stat_role stat_role__of(uint32_t type, uint64_t config);

/* One event's line: its reading over the runs so far. */
struct stat_line {
	const char *name;	/* as given */
	enum stat_role role;
	enum counter_state state;
	double value;		/* mean of the scaled counts */
	double stderr_pct;	/* the standard error of the mean, % of it (runs > 1) */
	double running, enabled;	/* mean ns */
};

struct stat_print {
	FILE *out;
	const char *sep;	/* -x SEP, or NULL: perf's columns for people */
	unsigned runs;		/* more than 1: the noise of each */
	double elapsed_ns;	/* wall time counted (an interval's length with -I) */
	const char *prefix;	/* before each line: "  0.100446649" (-I), "comm-tid" (--per-thread), or NULL */
};

/* Prints lines[i], its metric from the others (task-clock for rates, cycles for IPC...). */
void stat_print__line(const struct stat_print *p, const struct stat_line *lines, size_t n, size_t i);

/* " Performance counter stats for 'TARGET'" and its runs, with the blank lines around it. */
void stat_print__header(const struct stat_print *p, const char *target);

/* The interval lines' column header ("#           time             counts unit events"). */
void stat_print__interval_header(const struct stat_print *p, bool per_thread);

/*
 * The footer: elapsed seconds (mean and its spread over runs) and, for one
 * run of a command, its user and sys seconds (NULL: none).
 */
void stat_print__footer(const struct stat_print *p, double elapsed_stderr_ns, const double *user_sys);

/* Running mean and variance (Welford), for -r. */
struct run_stats {
	double n, mean, m2;
};

void run_stats__add(struct run_stats *s, double x);
/* The standard error of the mean (perf's spread of -r), 0 below two runs. */
double run_stats__stderr(const struct run_stats *s);

#endif
