/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Weights per source line (lp-lines): each sample's leaf frame (or the
 * leafmost frame whose source is readable, nearest_source), or with inclusive every frame once, mapped to FILE:LINE through DWARF line tables
 * and summed per line and function, on- and off-CPU apart.
 */
#ifndef LP_LINEPROFILE_H
#define LP_LINEPROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/error.h"

struct line_profile_opts {
	const char *const *events;	/* NULL: cpu and offcpu */
	size_t nevents;
	bool inclusive;
	bool nearest_source;		/* credit the leafmost frame whose source file is readable */
	bool annotate;			/* keep where each source is read from, for line_profile__annotate */
	bool strict;			/* a stream without its trailer is an error, not a warning */
	lp_warn_fn warn;		/* files without line information, once each; a stream without its trailer */
	void *ctx;
};

struct line_profile;

struct line_profile *line_profile__new(const struct line_profile_opts *o);
void line_profile__free(struct line_profile *p);

/* Reads all of fd, an lp stream named name in messages; -errno with err set. */
int line_profile__read(struct line_profile *p, int fd, const char *name, struct lp_error *err);

/*
 * Writes "FILE:LINE<TAB>FUNCTION<TAB>WEIGHT<TAB>PERCENT", heaviest first, and
 * "<TAB>ON%<TAB>OFF%" (the line's on- and off-CPU shares) when the samples
 * had both. A frame without a line is "DSO:?". -EIO.
 */
int line_profile__write(struct line_profile *p, FILE *out);

/*
 * The source of function fn with its lines' weights in the margin (as perf
 * annotate --stdio at source level), from the file with most of its weight;
 * p was made with o.annotate. -ENOENT: no samples with lines in that
 * function; -errno of reading the source, with *path set; -ERANGE: the
 * source is shorter than its line table says; -EIO.
 */
int line_profile__annotate(struct line_profile *p, const char *fn, FILE *out, const char **path);

#endif
