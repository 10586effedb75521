/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Roofline points (lp-roofline points): per code region of lp streams, the
 * FLOPs and memory operations their FP and load/store event samples count
 * (each event known by the vendor table in flopevents.h), the bytes those
 * operations move as the vendor lets us estimate them, and the region's
 * on-CPU seconds from its cpu samples; written as Q records.
 */
#ifndef LP_POINTS_H
#define LP_POINTS_H

#include <stdbool.h>
#include <stdio.h>

#include "base/error.h"

struct points_opts {
	unsigned depth;		/* 0: each leaf function; N: the first N frames from the root */
	bool by_region;		/* each code region instead (C records), inner ones in outer ones too */
	bool strict;		/* a stream without its trailer is an error, not a warning */
	lp_warn_fn warn;
	void *ctx;
};

struct points;

struct points *points__new(const struct points_opts *o);
void points__free(struct points *p);

/* Reads an lp stream's samples (and keeps its R records); -errno with err set. */
int points__read(struct points *p, int fd, const char *name, struct lp_error *err);

/*
 * The R records read, then one Q record per region, the longest on the CPU
 * first. -ENODATA with err set when no input had FLOP or load/store events;
 * -EIO.
 */
int points__write(struct points *p, FILE *out, struct lp_error *err);

#endif
