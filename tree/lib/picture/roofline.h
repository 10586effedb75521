/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The roofline plot (lp-svg --roofline): R records as roofs on log-log axes
 * of arithmetic intensity (FLOP/byte) and performance (FLOP/s), each memory
 * level a slope up to the ISA's top compute roof, each compute roof a flat
 * line, and each Q record a point sized by its time, with its numbers in a
 * tooltip. A standalone SVG whose script (share/roofline.js) shows one ISA's
 * roofs at a time, highlights points by regex and says what bounds each.
 */
#ifndef LP_ROOFLINE_H
#define LP_ROOFLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/error.h"

struct roofline_opts {
	const char *title;
	int width, height;	/* pixels */
	const char *fonttype;
	double fontsize;
	const char *js, *css;	/* share/roofline.js and .css */
	size_t jslen, csslen;
	bool strict;		/* a stream without its trailer is an error, not a warning */
	lp_warn_fn warn;
	void *ctx;
};

struct roofline;

struct roofline *roofline__new(const struct roofline_opts *o);
void roofline__free(struct roofline *r);

/* Reads the R and Q records of an lp stream (others are skipped); -errno with err set. */
int roofline__read(struct roofline *r, int fd, const char *name, struct lp_error *err);

/* The SVG; -EINVAL with err set when there is no roof to draw, -EIO. */
int roofline__write(struct roofline *r, FILE *out, struct lp_error *err);

#endif
