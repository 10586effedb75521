/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What each vendor's PMU counts of FP work and memory operations, and how
 * it converts: Intel FP_ARITH_INST_RETIRED by width and precision (an FMA
 * counts twice already) and MEM_INST_RETIRED loads and stores; AMD Zen 1
 * RETIRED_SSE_AVX_OPERATIONS by precision, Zen 2 and later
 * RETIRED_SSE_AVX_FLOPS (no precision), Zen 4 and 5 RETIRED_FP_OPS_BY_WIDTH,
 * LS_DISPATCH loads and stores; Arm FP_*_SPEC, LD_SPEC and ST_SPEC.
 */
#ifndef LP_FLOPEVENTS_H
#define LP_FLOPEVENTS_H

#include <stddef.h>

enum flop_role {
	FLOP_NONE,
	FLOP_FLOPS,	/* each count is flops FLOPs of width bytes (width 0: unknown) */
	FLOP_WIDTH,	/* FP operations of width bytes: only the width mix (Zen 4 by width) */
	FLOP_LOADS,
	FLOP_STORES,
	FLOP_LOADS_STORES,	/* one count is a load and a store */
};

struct flop_event {
	const char *name;	/* libpfm4's, lower case: "fp_arith_inst_retired:256b_packed_double" */
	enum flop_role role;
	unsigned flops;
	unsigned width;
};

/*
 * The role of an event as lp-record's -e names it, in any case, '.' or ':'
 * before the unit mask, with or without a "pmu::" prefix; NULL when the
 * table does not know it.
 */
const struct flop_event *flop_event__find(const char *name);

enum flop_vendor { FLOP_INTEL, FLOP_ZEN1, FLOP_ZEN2_3, FLOP_ZEN4_5, FLOP_ARM, FLOP_UNKNOWN };

/* This CPU's family of counters, from CPUID (or /proc/cpuinfo on Arm). */
enum flop_vendor flop_vendor__this(void);
const char *flop_vendor__name(enum flop_vendor v);

/* The events lp-roofline record asks for on a vendor's CPU (NULL-terminated). */
const char *const *flop_vendor__events(enum flop_vendor v);

#endif
