/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Writing a flame graph (or flame chart) of a flametree as one standalone SVG. */
#ifndef LP_FLAMESVG_H
#define LP_FLAMESVG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "picture/flametree.h"
#include "picture/palette.h"

enum flame_coloring {
	COLORING_PALETTE,	/* one profile, coloured by name */
	COLORING_ONOFF,		/* column 0 on-CPU, column 1 off-CPU: blended by off-CPU share */
	COLORING_DIFF,		/* column 0 before, column 1 after: red growth, blue shrinkage */
};

struct flamesvg_opts {
	const char *title, *subtitle, *notes;
	const char *countname;	/* unit name of plain counts ("samples") */
	const char *unit;	/* "ns": values are times, shown as ms/s; NULL: counts */
	const char *nametype;	/* "Function:" */
	const char *fonttype;
	double fontsize, fontwidth;
	int width, frameheight;
	double minwidth;	/* pixels, or a fraction of the width if minwidth_fraction */
	bool minwidth_fraction;
	const char *palette;
	const char *bgcolors;	/* NULL: the palette's default */
	enum palette_hash hash;
	bool inverted, negate, flamechart;
	uint64_t total;		/* 0, or the total to scale widths against (--total) */
	enum flame_coloring coloring;
	/* Colour of a name from a --cp palette map, or false to compute it. */
	bool (*mapped_color)(void *ctx, const char *name, size_t len, uint32_t *rgb);
	void *ctx;
	/* words a frame's tooltip adds, by the frame's name (a thread's summary on its root) */
	const char *const *frame_note_names, *const *frame_notes;
	size_t nframe_notes;
};

/* The JavaScript and CSS embedded in every file (share/flamegraph.js, .css). */
struct flamesvg_assets {
	const char *js, *css;
	size_t jslen, csslen;
};

/* Writes the SVG. -ENOMEM, -EIO (check ferror too), -EINVAL for assets that would break out of CDATA. */
int flamesvg__write(FILE *out, const struct flametree *t, const struct flamesvg_opts *o,
		    const struct flamesvg_assets *assets);

#endif
