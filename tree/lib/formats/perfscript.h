/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `perf script` text to folded stacks, line by line, with the rules of
 * FlameGraph's stackcollapse-perf.pl: same names, tidying, annotations and
 * event selection, so that the folded output is the same.
 */
#ifndef LP_PERFSCRIPT_H
#define LP_PERFSCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

enum stack_naming {
	NAMING_COMM,		/* comm */
	NAMING_PID,		/* comm-PID */
	NAMING_TID,		/* comm-PID/TID */
};

struct perfscript_opts {
	enum stack_naming naming;
	bool annotate_kernel;	/* _[k] */
	bool annotate_jit;	/* _[j] */
	bool addrs;		/* [dso <0xaddr>] for unknown symbols */
	const char *event_filter;	/* NULL: the first event seen */
	bool event_defaulted;		/* event_filter is the one a reader before saw first: warn as if */
	/* Told about events skipped because of the default filter, once. */
	lp_warn_fn warn;
	void *ctx;
};

struct perfscript_sample {
	const char *key;	/* comm;root;...;leaf */
	size_t keylen;
	uint64_t period;
	const char *thread;	/* the TID as printed (the PID if perf printed one id) */
	size_t threadlen;
};

struct perfscript;

/* NULL+errno (ENOMEM, or EINVAL if a pattern does not compile). */
struct perfscript *perfscript__new(const struct perfscript_opts *opts);
void perfscript__free(struct perfscript *p);

/*
 * Feeds one line without its newline. Returns 1 when the line completed a
 * sample (see perfscript__sample), 0 otherwise, -EINVAL for a line that is
 * neither a header, a frame, a comment nor blank, -ERANGE for a period that
 * does not fit 64 bits, -ENOMEM. perfscript__error says what was wrong.
 */
int perfscript__line(struct perfscript *p, const char *line, size_t len);
const struct perfscript_sample *perfscript__sample(const struct perfscript *p);

/* What one line of perf script text is by its shape alone, for telling formats apart. */
enum perfscript_shape {
	PERFSCRIPT_OTHER,	/* none of the below (a blank line, a comment, anything else) */
	PERFSCRIPT_HEADER,	/* a sample header without an event name: "ls 29419/29419  2272.847733: " */
	PERFSCRIPT_EVENT_HEADER,	/* one with it, as the default fields give: "... 333444 cpu-clock: " */
	PERFSCRIPT_SIDEBAND,	/* a header-like PERF_RECORD_* line (--show-task-events, --show-mmap-events) */
	PERFSCRIPT_FRAME,	/* an indented "ADDR SYM (DSO)" */
};

/*
 * The header and frame shapes are stackcollapse-perf.pl's own patterns
 * (a command, then PID or PID/TID between white space; an event is a last
 * "NAME:" after a ':' and an optional period), so what it reads as a sample
 * is one here too.
 */
enum perfscript_shape perfscript__shape(const char *line, size_t len);
const char *perfscript__error(const struct perfscript *p);

/* The event being counted (given, or the first seen) and its length; NULL before any. */
const char *perfscript__event(const struct perfscript *p, size_t *len);

/*
 * At end of input: true if a sample had started but no blank line ended it.
 * stackcollapse-perf.pl drops such a sample, and so do we (the caller warns).
 * A last PERF_RECORD_* line without frames is no sample: false.
 */
bool perfscript__pending(const struct perfscript *p);

#endif
