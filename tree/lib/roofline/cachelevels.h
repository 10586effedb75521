/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cache sizes from three sources that do not always agree: sysfs, CPUID
 * and a sweep of bandwidth over working-set sizes, whose knees are where a
 * level is full. On some VMs sysfs and CPUID both report the host's L3
 * (480 MB), and a test sized from them runs in DRAM.
 */
#ifndef LP_CACHELEVELS_H
#define LP_CACHELEVELS_H

#include <stddef.h>
#include <stdint.h>

#include "carm/carm.h"

enum { CACHE_SWEEP_MAX = 64 };

/* Bandwidth (any unit) at each working-set size, sizes increasing. */
struct cache_sweep {
	uint64_t size[CACHE_SWEEP_MAX];
	double bw[CACHE_SWEEP_MAX];
	size_t n;
};

/*
 * The sizes where bandwidth falls from one plateau to the next (the last
 * size still at the upper plateau's speed), smallest first: how many; with
 * drops, each knee's lower plateau over its upper one (0.5: halved).
 * A dip of one point between plateaus of the same speed is noise, not a knee.
 */
size_t cache_sweep__knees(const struct cache_sweep *s, uint64_t *knees, double *drops, size_t max);

/*
 * Keeps the keep knees with the deepest drops, in order (a busy host makes
 * DRAM's bandwidth wobble into a knee of its own): how many are left.
 */
size_t cache_sweep__keep_strongest(uint64_t *knees, double *drops, size_t n, size_t keep);

enum cache_verdict {
	CACHE_CONFIRMED,	/* a knee within a factor of 2 of what the machine says */
	CACHE_DISAGREES,	/* the knee is elsewhere: the measured size is used */
	CACHE_UNCONFIRMED,	/* no knee for it: what the machine says is used */
	CACHE_MEASURED_ONLY,	/* the machine says nothing; a knee gives it */
	CACHE_UNKNOWN,		/* neither */
};

struct cache_level {
	uint64_t claimed;	/* sysfs, else CPUID; 0 when neither says */
	uint64_t measured;	/* the knee matched to it, 0 when none */
	uint64_t size;		/* what the tests are sized from */
	enum cache_verdict verdict;
};

/*
 * Matches knees to the levels the machine claims, in order of size: each
 * knee to the nearest unmatched level (log scale), knees beyond the claimed
 * levels fill the unclaimed ones. also: a second source's sizes (CPUID when
 * claimed is sysfs'), 0 where it says nothing, or NULL: a knee is as near a
 * level as the nearer of the two (a VM's sysfs says 480 MiB of L3 where
 * CPUID says 32 MiB: a knee at 15 MiB is the L3's, not the 512 KiB L2's).
 */
void cache_levels__resolve(const uint64_t claimed[CARM_LEVELS], const uint64_t also[CARM_LEVELS],
			   const uint64_t *knees, size_t nknees,
			   struct cache_level out[CARM_LEVELS]);

#endif
