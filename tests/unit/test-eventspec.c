/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/eventspec.h"
#include "tap.h"

static char root[] = "/tmp/lp-eventspec-XXXXXX";

/* Writes text to root/path, making its folders. */
static void put(const char *path, const char *text)
{
	char full[512];
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	for (char *p = full + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(full, 0755);
		*p = '/';
	}
	f = fopen(full, "w");
	fputs(text, f);
	fclose(f);
}

static struct event_env env;
static struct event_spec e;
static struct lp_error err;

static int parse(const char *arg)
{
	event_spec__release(&e);
	lp_error__clear(&err);
	return event_spec__parse(&e, arg, &env, &err);
}

int main(void)
{
	char pmus[600], tracefs[600];

	/* named PMU events are encoded for a Zen 3 whatever this machine is */
	setenv("LIBPFM_FORCE_PMU", "amd64_fam19h_zen3", 1);
	if (!mkdtemp(root))
		return 1;
	put("pmu/cpu/type", "4\n");
	put("pmu/cpu/format/event", "config:0-7,32-35\n");
	put("pmu/cpu/format/umask", "config:8-15\n");
	put("pmu/cpu/format/edge", "config:18\n");
	put("pmu/cpu/format/ldlat", "config1:0-15\n");
	put("pmu/cpu/events/cpu-cycles", "event=0x3c\n");
	put("tracefs/events/syscalls/sys_enter_write/id", "712\n");
	snprintf(pmus, sizeof(pmus), "%s/pmu", root);
	snprintf(tracefs, sizeof(tracefs), "%s/tracefs", root);
	env.sysfs_pmus = pmus;
	env.tracefs = tracefs;

	{
		/*
		 * another table needs another process, before this one uses
		 * libpfm4: it reads LIBPFM_FORCE_PMU once
		 */
		pid_t child = fork();
		int status = 0;

		if (child == 0) {
			setenv("LIBPFM_FORCE_PMU", "icl", 1);
			_exit(parse("FP_ARITH:256B_PACKED_DOUBLE") == 0 && e.type == PERF_TYPE_RAW && e.config == 0x10c7 &&
			      parse("fp_arith_inst_retired.256b_packed_double") == 0 && e.config == 0x10c7 ? 0 : 1);
		}
		waitpid(child, &status, 0);
		ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   "an Ice Lake event by libpfm4's name and by perf's, encoded alike");
	}
	ok(parse("cycles") == 0 && e.kind == EVENT_HARDWARE && e.type == PERF_TYPE_HARDWARE &&
	   e.config == PERF_COUNT_HW_CPU_CYCLES, "a generic hardware event");
	ok(e.period == 1000003 && !strcmp(e.key, "cycles") && !strcmp(e.title, "cycles") && !strcmp(e.unit, "events"),
	   "with a default period, its name as key and title, unit events");
	ok(parse("L1-dcache-load-misses,5000,L1 data misses,misses") == 0 && e.type == PERF_TYPE_HW_CACHE &&
	   e.config == (PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
			(uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS << 16), "a cache event");
	ok(e.period == 5000 && !strcmp(e.title, "L1 data misses") && !strcmp(e.unit, "misses"),
	   "period, a title with spaces, unit");
	ok(parse("LLC-stores") == 0 && e.config == (PERF_COUNT_HW_CACHE_LL | PERF_COUNT_HW_CACHE_OP_WRITE << 8),
	   "a cache event's accesses");
	ok(parse("page-faults") == 0 && e.type == PERF_TYPE_SOFTWARE && e.config == PERF_COUNT_SW_PAGE_FAULTS &&
	   e.period == 1, "a software event, every one sampled");
	ok(parse("task-clock") == 0 && e.period == 1000000 && !strcmp(e.unit, "ns"), "a clock: 1 ms of ns");
	ok(parse("r01c2,100") == 0 && e.type == PERF_TYPE_RAW && e.config == 0x1c2 && e.period == 100, "a raw event");

	ok(parse("cpu/event=0x3c,umask=0x1/,1000,Loads retired,loads") == 0 && e.kind == EVENT_PMU && e.type == 4 &&
	   e.config == 0x13c && e.period == 1000, "PMU syntax: its commas stay in the event");
	is_str(e.title, "Loads retired", "then the title");
	is_str(e.unit, "loads", "and the unit");
	is_str(e.key, "cpu_event_0x3c_umask_0x1_", "the key holds no list separators");
	ok(parse("cpu/event=0x1ff,edge/") == 0 && e.config == (0xffULL | 1ULL << 32 | 1ULL << 18),
	   "a format of two ranges takes the value's bits in order; a flag is 1");
	ok(parse("cpu/cpu-cycles,umask=2/") == 0 && e.config == 0x23c, "an event alias of the PMU");
	ok(parse("cpu/ldlat=3,config2=9/") == 0 && e.config1 == 3 && e.config2 == 9, "config1 and config2 terms");
	ok(parse("cpu/event=0x100000/") < 0 && strstr(err.msg, "does not fit its 12 bits"), "a value too big for its bits");
	ok(parse("cpu/colour=3/") < 0 && strstr(err.msg, "PMU 'cpu' has no term or event 'colour'"),
	   "an unknown term is named");
	ok(parse("gpu/event=1/") < 0 && strstr(err.msg, "no PMU 'gpu' on this machine"), "an unknown PMU is named");
	ok(parse("cpu/event=1") < 0 && strstr(err.msg, "write it PMU/TERM=VALUE,.../"), "an unclosed PMU event");
	ok(parse("cpu/event=zz/") < 0 && strstr(err.msg, "needs a number"), "a term value that is no number");

	ok(parse("syscalls:sys_enter_write") == 0 && e.kind == EVENT_TRACEPOINT && e.type == PERF_TYPE_TRACEPOINT &&
	   e.config == 712 && e.period == 1, "a tracepoint, by its tracefs id, every hit sampled");
	ok(!strcmp(e.tp_system, "syscalls") && !strcmp(e.tp_name, "sys_enter_write") &&
	   !strcmp(e.key, "syscalls:sys_enter_write"), "its system, name and key");

	ok(parse("RETIRED_SSE_AVX_FLOPS:ANY,100000,FLOPs,flop") == 0 && e.kind == EVENT_PFM && e.type == PERF_TYPE_RAW &&
	   e.config == 0xf03, "a Zen 3 event named as libpfm4 names it");
	ok(parse("retired_sse_avx_operations:dp_mult_add_flops") < 0 && strstr(err.msg, "unknown event"),
	   "Zen 1's name for it is not Zen 3's");

	ok(parse("no-such-event") < 0 && strstr(err.msg, "unknown event 'no-such-event'"), "an unknown event");
	ok(parse("cycles,abc") < 0 && strstr(err.msg, "must be a whole number of events from 1, got 'abc'"), "a bad period");
	ok(parse("cycles,0") < 0, "period 0");
	ok(parse(",100") < 0 && strstr(err.msg, "no event in ',100'"), "no event");
	ok(parse("cycles,,,") < 0 && strstr(err.msg, "bad unit"), "an empty unit");
	ok(parse("cycles,,Title") == 0 && e.period == 1000003 && !strcmp(e.title, "Title"), "an empty period is the default");

	{
		char why[256];

		event_counts__doubt("cycles", 1000, 2000000, 2000000, why, sizeof(why));
		is_str(why, "", "counts of an event that counted all the time are data");
		event_counts__doubt("cycles", 1000, 2000000, 860000, why, sizeof(why));
		is_str(why, "event 'cycles' was multiplexed: it counted during 0.43 of the time it was enabled, and its "
		       "samples cover only that", "a multiplexed event is said to be");
		event_counts__doubt("cycles", 1ULL << 47, 2000000, 2000000, why, sizeof(why));
		ok(strstr(why, "counted 140737488355328, which no program does"), "a count near 2^47 is not data");
	}
	event_spec__release(&e);
	event_spec__release(NULL);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			return 1;
	}
	return tap_done();
}
