/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The machine's roofs (lp-roofline roofs): cache sizes from sysfs and CPUID
 * confirmed by a bandwidth sweep, then per ISA the bandwidth of each memory
 * level and the FLOP rate of add, mul and fma, written as R records and as
 * the CARM Tool's CSV.
 */
#ifndef LP_ROOFS_H
#define LP_ROOFS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "roofline/cachelevels.h"
#include "carm/carm.h"
#include "base/error.h"
#include "roofline/roofbench.h"

enum { ROOF_L1, ROOF_L2, ROOF_L3, ROOF_DRAM, ROOF_NMEM };

struct roofs_opts {
	enum carm_isa isas[CARM_NISA];	/* nisas 0: every ISA this CPU has */
	size_t nisas;
	enum carm_precision precision;
	unsigned threads;
	bool interleaved;
	unsigned loads, stores;
	unsigned runs;
	const char *sysfs_root;		/* "" for the real /sys */
	uint64_t size[ROOF_NMEM];	/* each level's test size per thread, 0: from the caches */
	lp_warn_fn warn;		/* disagreements between the sources */
	void (*progress)(void *ctx, const char *what);
	void *ctx;
};

struct roofs_isa {
	enum carm_isa isa;
	bool has_mem[ROOF_NMEM], has_fp[CARM_NOP];
	struct roof_rate mem[ROOF_NMEM], fp[CARM_NOP];
};

struct roofs {
	struct carm_cache sysfs[CARM_LEVELS], cpuid[CARM_LEVELS];
	struct cache_sweep sweep;
	struct cache_level levels[CARM_LEVELS];
	uint64_t test_size[ROOF_NMEM];	/* per thread; 0 for a level not tested */
	double hz;
	struct roofs_isa isa[CARM_NISA];
	size_t nisa;
};

/* "L1", "L2", "L3", "DRAM". */
const char *roofs__level_name(int level);

/* Measures everything o asks for; -errno with err's message set. */
int roofs__measure(const struct roofs_opts *o, struct roofs *r, struct lp_error *err);

/* The R records (and #lp.cache lines saying where each size came from); -EIO or -ENOMEM. */
int roofs__write_records(const struct roofs_opts *o, const struct roofs *r, FILE *out);

#endif
