/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lp-stat's lines against perf stat 6.1's, column for column: the widths
 * below are those of perf stat's own output on this project's machines
 * (91 characters a counted line, 84 one not supported), the numbers ours.
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "stat/statprint.h"
#include "tap.h"

static char *print(const struct stat_print *tmpl, const struct stat_line *lines, size_t n, size_t i)
{
	char *buf = NULL;
	size_t size = 0;
	struct stat_print p = *tmpl;

	p.out = open_memstream(&buf, &size);
	stat_print__line(&p, lines, n, i);
	fclose(p.out);
	return buf;
}

static void check(const struct stat_print *p, const struct stat_line *lines, size_t n, size_t i, const char *want,
		  const char *what)
{
	char *got = print(p, lines, n, i);

	is_str(got, want, what);
	free(got);
}

int main(void)
{
	const struct stat_line lines[] = {
		{ .name = "task-clock", .role = STAT_ROLE_TASK_CLOCK, .value = 4515300, .running = 4515300, .enabled = 4515300 },
		{ .name = "page-faults", .value = 49, .running = 4515300, .enabled = 4515300 },
		{ .name = "context-switches", .value = 1, .running = 4515300, .enabled = 4515300 },
		{ .name = "cycles", .role = STAT_ROLE_CYCLES, .state = COUNTER_NOT_SUPPORTED },
		{ .name = "branch-misses", .role = STAT_ROLE_BRANCH_MISSES, .value = 50, .running = 50, .enabled = 100 },
		{ .name = "branches", .role = STAT_ROLE_BRANCHES, .value = 1000, .running = 1, .enabled = 1 },
	};
	const struct stat_line no_clock[] = { { .name = "page-faults", .value = 63, .running = 9, .enabled = 9 } };
	struct stat_print human = { .runs = 1, .elapsed_ns = 6689333 };
	struct stat_print csv = { .runs = 1, .elapsed_ns = 6689333, .sep = "," };
	struct run_stats rs = { 0 };

	check(&human, lines, 6, 0,
	      "              4.52 msec task-clock                       #    0.675 CPUs utilized          \n",
	      "task-clock: msec, CPUs utilized");
	check(&human, lines, 6, 1,
	      "                49      page-faults                      #   10.852 K/sec                  \n",
	      "a rate a second of CPU time, in K");
	check(&human, lines, 6, 2,
	      "                 1      context-switches                 #  221.469 /sec                   \n",
	      "and without a prefix");
	check(&human, lines, 6, 3,
	      "   <not supported>      cycles                                                      \n",
	      "not supported: 84 columns, no metric");
	check(&human, no_clock, 1, 0,
	      "                63      page-faults                                                        \n",
	      "no clock counted: no rate, 91 columns");
	check(&human, lines, 6, 4,
	      "                50      branch-misses                    #    5.00% of all branches          (50.00%)\n",
	      "a miss ratio, and the share of the time a multiplexed event counted");
	check(&csv, lines, 6, 0, "4.52,msec,task-clock,4515300,100.00,0.675,CPUs utilized\n", "CSV: perf's columns");
	check(&csv, lines, 6, 3, "<not supported>,,cycles,0,100.00,,\n", "CSV: not supported");
	check(&csv, no_clock, 1, 0, "63,,page-faults,9,100.00,,\n", "CSV: no metric");
	ok(stat_role__of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK) == STAT_ROLE_TASK_CLOCK &&
	   stat_role__of(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS) == STAT_ROLE_INSTRUCTIONS &&
	   stat_role__of(PERF_TYPE_TRACEPOINT, 1) == STAT_ROLE_OTHER, "roles by type and config");
	/* 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sample variance 32/7, standard error sqrt(32/7/8) */
	for (int i = 0; i < 8; i++)
		run_stats__add(&rs, (double[]){ 2, 4, 4, 4, 5, 5, 7, 9 }[i]);
	ok(rs.mean == 5 && run_stats__stderr(&rs) > 0.7559 && run_stats__stderr(&rs) < 0.7560,
	   "the mean and its standard error, as perf's -r");
	return tap_done();
}
