/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lp-filter's work: reading an lp stream or folded stacks and writing the
 * same with stack frames cut, STACK and LOCS in step; every other line
 * passes unchanged and in order.
 */
#ifndef LP_LPFILTER_H
#define LP_LPFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/error.h"
#include "filter/pyfilter.h"

/* Decides keep[i] for frames[i] (root first). -EINVAL with err's message set, -ENOMEM. */
typedef int (*filter_decide_fn)(void *ctx, const struct filter_frame *frames, size_t n, bool *keep,
				struct lp_error *err);

struct lpfilter_opts {
	filter_decide_fn decide;
	void *ctx;
	bool needs_exec;	/* the filter looks at executables: folded input cannot do */
	bool mark;		/* a run of cut frames becomes one (cut) frame */
	bool pure;		/* decide depends on the frames alone: the same stack is cut the same way */
	bool needs_offsets;	/* decide reads filter_frame.offset (else it stays 0) */
	bool strict;		/* an lp stream without its trailer is an error */
	lp_warn_fn warn;	/* told of what the reader went on past (a stream without its trailer) */
	void *warn_ctx;
};

/*
 * Filters all of fd (called name in messages) to out. -errno with err filled
 * in: the input's line for bad input, no line for a write error.
 */
int lpfilter__run(const struct lpfilter_opts *o, int fd, const char *name, FILE *out, struct lp_error *err);

#endif
