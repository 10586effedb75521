/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Runs carm/ kernels on pinned threads and times them: each thread touches
 * its own buffer first (node-local), all start together at a spinning
 * barrier, a run lasts from the earliest start to the latest end, and a
 * measurement is the median of many runs.
 */
#ifndef LP_ROOFBENCH_H
#define LP_ROOFBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carm/carm.h"

struct roof_bench_opts {
	unsigned threads;	/* 1 or more, pinned to distinct CPUs of this process's set */
	bool interleaved;	/* spread the threads over NUMA nodes in turn */
	unsigned runs;		/* the median of this many */
	double run_seconds;	/* the length a run is sized to (DRAM tests: at least one pass) */
};

/* What one measurement gives: a rate of work per second and instructions per second. */
struct roof_rate {
	double per_second;		/* bytes or FLOPs */
	double instructions_per_second;
	double seconds;			/* the median run's */
};

/* Bytes per second of kernel ld:st over bytes_per_thread on each thread; -errno (-ENOTSUP: no kernel). */
int roof_bench__memory(const struct roof_bench_opts *o, enum carm_isa isa, enum carm_precision p, unsigned loads,
		       unsigned stores, size_t bytes_per_thread, struct roof_rate *out);

/* FLOPs per second of an FP kernel on every thread; -errno. */
int roof_bench__fp(const struct roof_bench_opts *o, enum carm_isa isa, enum carm_precision p, enum carm_op op,
		   struct roof_rate *out);

/* The core clock in Hz, from a chain of dependent adds on one pinned thread; -errno. */
int roof_bench__clock(const struct roof_bench_opts *o, double *hz);

/* How many CPUs this process may run on. */
unsigned roof_bench__cpus(void);

#endif
