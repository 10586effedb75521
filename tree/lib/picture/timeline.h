/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A timeline of threads (lp-svg --timeline): one row per thread, nested under
 * its process and the process under its parent (P records), on one time axis:
 * on-CPU time from cpu samples, off-CPU intervals as they were, exec and exit.
 * Read by the exporter (export-format.h) as one more consumer of lp streams, each
 * input a band; written as a standalone SVG whose script (share/timeline.js)
 * draws every zoom level from the exact intervals embedded in the file.
 */
#ifndef LP_TIMELINE_H
#define LP_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>

struct timeline_opts {
	const char *title;
	int width;		/* pixels */
	int rowheight;		/* pixels */
	const char *fonttype;
	double fontsize;
	bool srclines;		/* file:line of spawning stacks (libdw) */
	/* share/timeline.js and .css */
	const char *js, *css;
	size_t jslen, csslen;
};

/* The exporter's format: export_opts.format_opts points to a struct timeline_opts. */
struct export_ops;
extern const struct export_ops timeline__ops;

#endif
