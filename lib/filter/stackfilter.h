/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Frame filters of lp-filter: files of SYM/EXEC/ANY regex statements in
 * groups joined by OR (a frame matches when every statement of some group
 * does), with the verdict memoised per distinct (symbol, executable).
 */
#ifndef LP_STACKFILTER_H
#define LP_STACKFILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

struct stackfilter;

/* Parses a filter file. NULL+errno; EINVAL with err filled in for a bad file. */
struct stackfilter *stackfilter__load(const char *path, struct lp_error *err);
void stackfilter__free(struct stackfilter *f);

/* Whether any statement looks at executables (EXEC), which folded stacks lack. */
bool stackfilter__uses_exec(const struct stackfilter *f);

/* 1 if the frame matches, 0 if not, -ENOMEM. exec may be "" when unknown. */
int stackfilter__match(struct stackfilter *f, const char *sym, size_t symlen, const char *exec,
		       size_t execlen);

#endif
