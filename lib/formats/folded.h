/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Folded stacks, the format of FlameGraph: "frame;frame;frame COUNT [COUNT2]". */
#ifndef LP_FOLDED_H
#define LP_FOLDED_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

struct folded_line {
	const char *stack;
	size_t stacklen;
	uint64_t count[2];
	int ncounts;	/* 2 for the differential form */
};

/*
 * Parses one line. As flamegraph.pl reads it, the count follows the last
 * white space, and a stack that itself ends in white space and digits holds
 * the first count of a differential line. -EINVAL with a message in err.
 */
int folded__parse(const char *line, size_t len, struct folded_line *out, struct lp_error *err);

#endif
