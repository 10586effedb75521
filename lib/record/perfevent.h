/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_event_open sessions: on a task (inherited by everything it spawns),
 * per CPU a task-clock sampling event, an event for the records that follow
 * tasks and mappings, and any custom events, each with a ring buffer of its
 * own; and the records read out.
 */
#ifndef LP_PERFEVENT_H
#define LP_PERFEVENT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"
#include "record/perfrecord.h"

enum capture {
	CAPTURE_USER = 1,
	CAPTURE_KERNEL = 2,
	CAPTURE_BOTH = 3,
};

/* What every sample carries, in this order after the identifier (perfrecord.c decodes it). */
#define LP_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
			PERF_SAMPLE_CALLCHAIN)

/*
 * Custom events fire in bursts (a syscall in a loop, page faults) that
 * task-clock's steady rate never makes: a ring of -m pages lost a third of
 * 12345 write(2) samples, one 4 times as big none of 50000 in 8 runs (a
 * reader woken earlier did not help as much).
 */
enum { PERF_CUSTOM_RING_FACTOR = 4 };

/* An event sampled besides task-clock (lp-record -e). */
struct perf_custom {
	const char *name;	/* for messages */
	uint32_t type;
	uint64_t config, config1, config2, period;
	bool tracepoint;	/* its samples carry PERF_SAMPLE_RAW */
};

struct perf_opts {
	uint64_t freq;		/* samples a second, or 0 to use period */
	uint64_t period;	/* ns of task-clock between samples; with freq 0 too: no sampling */
	enum capture capture;
	unsigned mmap_pages;	/* data pages per ring buffer (a power of two); custom events' rings: PERF_CUSTOM_RING_FACTOR times */
	unsigned clock_pages;	/* the same for task-clock's rings, or 0: mmap_pages */
	unsigned wakeup_events;	/* 0: wake up by data size */
	bool enable_on_exec;	/* start counting when the task execs */
	int fork_tracepoint;	/* id of sched:sched_process_fork, or -1 */
	unsigned stack_snapshot;	/* bytes of user stack (and user registers) with each sample, or 0 */
	bool kernel_fp;		/* on-CPU samples: the kernel walks the user stack's frame pointers too */
	bool read_values;	/* ask for the counter's value with each sample (dropped if refused) */
	const struct perf_custom *customs;
	size_t ncustoms;
	bool system_wide;	/* every task on the CPUs (pid -1): cpu-clock, not inherited, idle left out */
	const uint64_t *cpu_mask;	/* system-wide on these CPUs only (a bitmap of 1024), or NULL: all */
};


/*
 * Ring pages per CPU for on-CPU samples that copy stack_snapshot bytes of
 * user stack: at least 256, and room for 64 samples with the whole copy
 * (the kernel reserves it all in the ring, whatever it writes).
 */
unsigned event_rings__pages_for(unsigned stack_snapshot);

/* The data pages of task-clock's rings per CPU. */
static inline unsigned perf_opts__clock_pages(const struct perf_opts *o)
{
	return o->clock_pages ? o->clock_pages : o->mmap_pages;
}

/* Whether o samples on the CPU at all (with freq and period 0 the events only follow tasks). */
static inline bool perf_opts__samples(const struct perf_opts *o)
{
	return o->freq || o->period;
}

/*
 * Whether the task and mapping records (and spawn stacks) are taken on each
 * CPU for every task rather than bound to the followed ones: when nothing
 * else is bound to them (off-CPU recording alone), or for the whole system.
 * A task with an event bound to it costs the kernel a switch of perf contexts
 * at each of its context switches (0.29 us a switch on a VM of ours), which
 * an event on a CPU does not; the records of the tasks not followed are then
 * the recorder's to leave out (followgate.h). Where events on a CPU are not
 * allowed (no CAP_PERFMON), the session binds them to the tasks after all.
 */
static inline bool perf_opts__life_on_cpus(const struct perf_opts *o)
{
	return o->system_wide || (!perf_opts__samples(o) && o->ncustoms == 0);
}

struct event_rings;

/*
 * Opens the events on task pid (and, inherited, its future children) on
 * every online CPU. NULL with errno set; err says which call failed.
 */
struct event_rings *event_rings__open(pid_t pid, const struct perf_opts *o, struct lp_error *err);
void event_rings__free(struct event_rings *s);
/*
 * Closes the events and unmaps their rings, keeping what the session
 * learned (ids, layout, losses): for once every record is read. Closing a
 * tracepoint's last event waits out an RCU grace period (14 ms here), which
 * a caller may spend on another thread. Nothing may be read or enabled after.
 */
void event_rings__close_events(struct event_rings *s);

/* Adds the events of another task (another thread of an attached process). */
int event_rings__add_task(struct event_rings *s, pid_t pid, struct lp_error *err);

int event_rings__enable(struct event_rings *s);
int event_rings__disable(struct event_rings *s);

/*
 * Waits up to timeout_ms for data, then hands every record (a complete copy,
 * aligned) to fn. Returns the number of records, or -errno (from fn too).
 * *hangup is set when every event's task has exited.
 */
typedef int (*perf_record_fn)(void *ctx, const struct perf_event_header *h);
int event_rings__read(struct event_rings *s, int timeout_ms, perf_record_fn fn, void *ctx,
		       bool *hangup);

/* Another descriptor event_rings__read's wait returns for when it is readable. */
void event_rings__poll_also(struct event_rings *s, int fd);

/*
 * What the samples carry beyond LP_SAMPLE_TYPE, as opened: the sampling
 * event's value (PERF_SAMPLE_READ, right after PERIOD: the task-clock time
 * really counted, where the period is only the kernel's aim; dropped where
 * the kernel refused it) and the user registers and stack snapshot.
 */
struct perf_layout event_rings__layout(const struct event_rings *s);

/*
 * The questions asked of a session about its records answer "no" and 0
 * for NULL: a recorder given records without a session (a unit test).
 */

/* Event ids of the sampling event and of the fork tracepoint, per CPU. */
bool event_rings__is_fork_id(const struct event_rings *s, uint64_t id);

/*
 * Whether custom event c's samples go without PERF_SAMPLE_PERIOD: with it the
 * kernel samples every occurrence of a software event or tracepoint,
 * whatever the period (and says period 1), so a fixed period above 1 must
 * go without it, each sample then standing for that period.
 */
bool perf_custom__no_period(const struct perf_custom *c);

/* The custom event (its index in perf_opts.customs) a sample's id belongs to, or -1. */
int event_rings__custom_of(const struct event_rings *s, uint64_t id);

/* Which events' rings event_rings__lost counts: task-clock's, the task records', the region probes', or a custom index. */
enum { PERF_SESSION_CLOCK = -1, PERF_SESSION_LIFE = -2, PERF_SESSION_REGIONS = -3 };

/*
 * A USDT probe of a code region (lp/region.h): a uprobe at offset of path on
 * every CPU, whoever runs it (the recorder keeps its own processes' samples),
 * its samples (REGION_SAMPLE_TYPE; with_regs: with all of REGION_REGS and
 * REGION_STACK bytes of stack, where a probe's argument may be) into rings of
 * their own, which event_rings__read waits on and drains too but that never
 * end a recording. index
 * is the caller's name for the probe: event_rings__region_of gives it back
 * for a sample's id. -errno with err set (-EACCES: not allowed here).
 */
#define REGION_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
enum { REGION_STACK = 256, REGION_PAGES = 512 };
int event_rings__add_uprobe(struct event_rings *s, const char *path, uint64_t offset, int index,
			     bool with_regs, struct lp_error *err);

/* The region probe (its index) a sample's id belongs to, or -1. */
int event_rings__region_of(const struct event_rings *s, uint64_t id);

/*
 * task-clock's total over the first task's events (its own time and, added as
 * they exited, its descendants'), in ns; -errno (none, or not readable).
 */
int event_rings__clock_total(const struct event_rings *s, uint64_t *total);

/*
 * Custom event k's count and the time it was enabled and really counting
 * (less when the PMU multiplexed it with others), and the samples the
 * kernel dropped (PERF_FORMAT_LOST, 0 before Linux 6.0; the first task's
 * own: its children's are in their LOST records alone), summed over the
 * first task's CPUs (enabled the most of theirs, enabled_sum their sum,
 * as running is); -errno.
 */
int event_rings__custom_times(const struct event_rings *s, size_t k, uint64_t *value, uint64_t *enabled,
			       uint64_t *running, uint64_t *lost, uint64_t *enabled_sum);

/* Records the kernel lost in the rings of event (PERF_RECORD_LOST), so far. */
uint64_t event_rings__lost(const struct event_rings *s, int event);

/* The kernel's limits, from /proc/sys/kernel (or -1). */
long event_rings__sysctl(const char *name);

/* Whether this machine counts cycles in hardware (a PMU): 0, or -errno of opening them (-ENOENT: none). */
int event_rings__counts_cycles(void);

#endif
