/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Off-CPU sampling with eBPF (bpf/offcpu.bpf.c): loads and attaches the
 * program, follows process trees, hands over the reported intervals.
 */
#ifndef LP_OFFCPU_SAMPLER_H
#define LP_OFFCPU_SAMPLER_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/offcpu.h"
#include "record/perfevent.h"

struct offcpu_opts {
	int64_t freq;		/* ticks a second (> 0), or -1: every interval */
	enum capture capture;
	unsigned wakeup_every;	/* records per reader wake-up; 0: when the ring is half full */
	unsigned snapshot;	/* bytes of user stack copied at switch-out (multiple of 8, at most OFFCPU_SNAPSHOT) */
	bool raw_tp;		/* use the raw tracepoint even where tp_btf works */
	bool all;		/* every process but this one (system-wide), not those followed */
	const uint64_t *cpu_mask;	/* intervals begin only on these CPUs (a bitmap), or NULL: any */
};

struct offcpu;

/*
 * Loads and attaches the program (tp_btf, else raw_tp). NULL with errno set;
 * err says what failed, in words.
 */
struct offcpu *offcpu__open(const struct offcpu_opts *o, struct lp_error *err);
void offcpu__free(struct offcpu *oc);
/*
 * Detaches and unloads the program once its last records are read, keeping
 * offcpu__attachment: the kernel's detaching waits out RCU grace periods
 * (18 ms here), which a caller may spend on another thread.
 */
void offcpu__close(struct offcpu *oc);

/*
 * Follows process pid and, from then on, everything it spawns. started:
 * follow it now; otherwise from its next exec.
 */
int offcpu__follow(struct offcpu *oc, pid_t pid, bool started);

/* Where the tick grid starts (CLOCK_MONOTONIC ns). */
void offcpu__start(struct offcpu *oc, uint64_t grid_start);

/* A descriptor that polls readable when the reader should read. */
int offcpu__fd(const struct offcpu *oc);

/*
 * Hands every record waiting to fn: an offcpu_event followed by its stack
 * snapshot and addresses (see bpf/offcpu.h), size bytes in all. The count,
 * or -errno (from fn too).
 */
typedef int (*offcpu_event_fn)(void *ctx, const struct offcpu_event *ev, size_t size);
int offcpu__read(struct offcpu *oc, offcpu_event_fn fn, void *ctx);

/* Records lost: the ring buffer was full or a thread's slot could not be made. */
uint64_t offcpu__drops(const struct offcpu *oc);

/* Why they were: the ring buffer was full, a switch-in went unseen with the stack gone, no slot. */
struct offcpu_drops {
	uint64_t full, missed, slot;
};
void offcpu__drop_causes(const struct offcpu *oc, struct offcpu_drops *d);

/* "tp_btf" or "raw_tp". */
const char *offcpu__attachment(const struct offcpu *oc);

#endif
