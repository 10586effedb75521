/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Telling the three inputs of the readers apart: lp streams, `perf script`
 * text and folded stacks, by what the input really holds.
 */
#ifndef LP_DETECT_H
#define LP_DETECT_H

#include "base/error.h"

enum lp_format {
	LP_FORMAT_AUTO,
	LP_FORMAT_LP,		/* lp stream */
	LP_FORMAT_PERF,		/* perf script text */
	LP_FORMAT_FOLDED,	/* folded stacks */
};

/* The format of a name ("auto", "lp", "perf", "folded"); -EINVAL. */
int lp_format__parse(const char *name, enum lp_format *f);
const char *lp_format__name(enum lp_format f);

struct lines;

/*
 * What the lines ahead in r are, peeked (nothing is consumed): an lp stream
 * by its version line or a record; perf script text by a sample header
 * followed by a frame (or an event header by a blank line), or by a
 * PERF_RECORD_* side-band line; folded stacks by a line that parses as one
 * and has no frame under it. Lines that settle nothing (comments, a bad line
 * among good ones) are looked past, the first line that settles it wins.
 * An input of nothing but comments is given to the lp stream reader, whose
 * verdict on it (lp_reader__read: an error) every program shares.
 *
 * 0 with *f set; -EINVAL when the input is none of the three (err names the
 * first line that is not a comment); -errno when reading failed (err says so).
 */
int lp_format__detect(struct lines *r, enum lp_format *f, struct lp_error *err);

#endif
