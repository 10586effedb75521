/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * From a profile to a flame graph's tree: stacks go straight into the tree
 * as they are read (reversed for --reverse, merged from the leaves), or a
 * time-ordered profile becomes a flame chart. And what the tree says about
 * how to colour it.
 */
#ifndef LP_FLAMESINK_H
#define LP_FLAMESINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "picture/flamesvg.h"
#include "picture/flametree.h"
#include "profile/profile.h"
#include "base/strbuf.h"

/* The frame that stands for the frames of a stack deeper than the depth limit. */
#define FLAME_DEEPER "[deeper frames folded]"

struct flame_sink {
	struct flametree *tree;
	bool reverse;		/* leaf first: merge stacks from their leaves */
	size_t max_depth;	/* frames drawn of a stack, the rest folded into FLAME_DEEPER; 0: all */
	uint64_t folded;	/* stacks that were deeper (of a merged stack, as many as its samples) */
	struct strbuf reversed, capped;
};

/* A profile_opts.sink: column 0 or 1 of the tree gets weight, of samples samples. -ENOMEM, -EOVERFLOW. */
int flame_sink__add(void *ctx, const char *stack, size_t len, int col, uint64_t weight, uint64_t samples);
void flame_sink__release(struct flame_sink *s);

/* Each thread's samples of p in time order, merged while consecutive stacks are equal: a flame chart. */
int flame_sink__add_timed(struct flame_sink *s, struct profile *p);

/*
 * How to colour a finished tree: two inputs, or folded lines with two counts,
 * make a differential graph; an lp stream with off-CPU time in column 1 an
 * on/off-CPU blend; anything else the palette.
 */
enum flame_coloring flame_coloring__choose(const struct flametree *t, int ninputs, bool lp_input);

#endif
