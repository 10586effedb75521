/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Python stack filters: a file run in an embedded CPython that defines
 * process(callchain) (and optionally setup()), called once per stack with
 * ((symbol, executable), offset) entries, leaf first, returning one bool per
 * entry (True keeps the frame).
 */
#ifndef LP_PYFILTER_H
#define LP_PYFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

struct pyfilter;

struct filter_frame {
	const char *sym, *exec;	/* exec "" when unknown */
	size_t symlen, execlen;
	uint64_t offset;
};

/* Runs the file and setup(). NULL with err's message set (the message or traceback) on failure. */
struct pyfilter *pyfilter__load(const char *path, struct lp_error *err);
void pyfilter__free(struct pyfilter *p);

/*
 * keep[i] for frames[i] (root first, as in a STACK field). -EINVAL with
 * *detail (malloc'ed) when process() raises or returns something else than n
 * bools; -ENOMEM.
 */
int pyfilter__decide(struct pyfilter *p, const struct filter_frame *frames, size_t n, bool *keep,
		     struct lp_error *err);

#endif
