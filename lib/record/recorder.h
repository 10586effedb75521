/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A recording: runs a command (or attaches to processes) under perf events,
 * keeps every record, and at the end writes them, symbolised and in time
 * order, as an lp stream.
 */
#ifndef LP_RECORDER_H
#define LP_RECORDER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "record/offcpu-sampler.h"
#include "symbols/demangle.h"
#include "record/eventspec.h"
#include "record/perfevent.h"

/* Custom events (-e) at most. */
#define RECORD_MAX_EVENTS 256

struct record_opts {
	struct perf_opts perf;		/* freq and period 0: no on-CPU sampling */
	bool offcpu;			/* off-CPU sampling with eBPF */
	bool offcpu_required;		/* fail without it rather than warn and go on */
	struct offcpu_opts offcpu_opts;
	bool spawn_stacks;		/* sample sched_process_fork for spawning stacks */
	unsigned time_tolerance;	/* per cent sampled on-CPU time may stray from the exact unwarned */
	const struct event_spec *events;	/* custom events (-e), as perf.customs opens them */
	size_t nevents;
	char *const *argv;		/* the command, or NULL with pids */
	const pid_t *pids;
	size_t npids;
	int workload_stdout;		/* fd the command's stdout goes to, or -1 to keep ours */
	bool live;			/* write the stream while recording (recorder__write_live) */
	enum demangle_style demangle;	/* how C++ frames are named (DEMANGLE_SHORT: as perf) */
	size_t spill_after;		/* bytes of records kept in memory before the rest go to a file; 0: all in memory */
	const char *spill_dir;		/* where that file goes (unlinked); NULL: /var/tmp */
	const char *rank, *job;		/* where the recording stands in a parallel job, or NULL */
	const char *version;		/* lp's, for the header's #lp.version; NULL: none */
	lp_warn_fn warn;
	void *ctx;
};

struct record_stats {
	int write_errno;	/* why the stream could not be written, when recorder__write says -EIO */
	uint64_t samples, lost, throttled;
	uint64_t faster_than_clock;	/* samples whose counter advanced more than the time since its last one */
	uint64_t recovered;	/* callers recovered from CFI */
	uint64_t truncated;	/* stacks cut at kernel.perf_event_max_stack that lost real callers */
	uint64_t unwind_stopped;	/* stacks whose unwinding could not go on: their callers are unknown */
	uint64_t offcpu_kernel_unseen;	/* off-CPU stacks ending in SYM_KERNEL_UNSEEN */
	uint64_t offcpu_one_frame;	/* off-CPU stacks of one frame, their thread's memory gone (exiting) or its stack unseen */
	uint64_t stopped_past_copy;	/* on-CPU ones of them whose callers were beyond the stack copied */
	uint64_t stopped_copy_short;	/* stopped ones whose callers were beyond a copy the kernel cut short */
	uint64_t roots_of_thread;	/* stacks beyond the copy completed from their thread's last whole stack */
	uint64_t roots_from_later;	/* stacks beyond a copy cut short completed from its next whole stack */
	uint64_t stack_needed;	/* bytes of copy the deepest of those needed to reach its thread's roots, where known */
	double achieved_hz;	/* samples per second of sampled CPU time */
	uint64_t processes, threads;
	uint64_t task_records_lost;	/* spawns, execs, exits, mappings the kernel had no room for */
	uint64_t strayed_threads;	/* whose sampled on-CPU time strayed from the exact */
	uint64_t unsampled_ns;		/* exact on-CPU time no sample stood for, written as [not sampled] */
	uint64_t unsampled_threads;	/* threads that ran without a single sample */
	char first_strayed[256];	/* the first of them, in words */
	uint64_t custom_samples[RECORD_MAX_EVENTS], custom_lost[RECORD_MAX_EVENTS];	/* per -e event */
	char custom_doubt[RECORD_MAX_EVENTS][256];	/* why an event's counts are not data, or "" */
	uint64_t custom_weight[RECORD_MAX_EVENTS];	/* the occurrences the kept samples stand for */
	char custom_strayed[RECORD_MAX_EVENTS][256];	/* how they stray from the exact count, or "" */
	uint64_t offcpu_samples, offcpu_drops, offcpu_ns;
	struct offcpu_drops offcpu_drop_causes;	/* why offcpu_drops were lost */
	const char *offcpu_attachment;	/* NULL when off-CPU sampling was off */
	/* code regions: begins written, ends without their begin, regions closed by an outer end or an exit */
	uint64_t regions, region_orphans, region_unclosed, region_unnamed, regions_lost;
	char first_orphan[64], first_unclosed[64];
	size_t region_probes;	/* attached */
	char regions_off[256];	/* why regions could not be recorded, or "" */
};

struct recorder;

struct recorder *recorder__new(const struct record_opts *o);
void recorder__free(struct recorder *r);

/*
 * Starts the command (stopped until its events are open) or attaches. -errno
 * with err saying what failed (kind LP_ERROR_EXEC when the command cannot run: -ENOENT, -EACCES).
 */
int recorder__start(struct recorder *r, struct lp_error *err);

/* Reads until the command (or every attached process) is gone, or *stop is set. */
int recorder__run(struct recorder *r, volatile sig_atomic_t *stop);

/* Bytes of records that went to the spill file. */
uint64_t recorder__spilled_bytes(const struct recorder *r);

/* Why records could not go to the spill file (and stayed in memory), or 0. */
int recorder__spill_error(const struct recorder *r);

/* Forwards a signal to the command. */
void recorder__signal(struct recorder *r, int sig);

/* The command's wait status (after recorder__run). */
int recorder__wait_status(const struct recorder *r);

/*
 * Writes the lp stream after its version line, which the caller writes first
 * (lp_writer__version) so that an output that cannot be written is found
 * before the command starts. -ENOMEM, -EIO.
 */
int recorder__write(struct recorder *r, FILE *out, struct record_stats *stats);

/*
 * Has a recording with o.live write its stream to out while it goes on,
 * from its header, after recorder__start: recorder__run writes records
 * once those around them have come (a few hundred later), and
 * recorder__write, after it, the rest, with the counts known only at the
 * end (lost samples, the rate achieved) in the stream's trailer. Its
 * records are let go of as they are written. -ENOMEM, or -EIO (stats->write_errno says why).
 */
int recorder__write_live(struct recorder *r, FILE *out, struct record_stats *stats);

#endif
