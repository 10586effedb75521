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

#include "error.h"

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

/*
 * Whether line has the shape of a perf script sample header: a command, its
 * PID (or PID/TID), then an event name ending in ':'. For telling formats
 * apart; the parser itself accepts what stackcollapse-perf.pl does.
 */
bool perfscript__is_header(const char *line, size_t len);
const char *perfscript__error(const struct perfscript *p);

/* The event being counted (given, or the first seen) and its length; NULL before any. */
const char *perfscript__event(const struct perfscript *p, size_t *len);

/*
 * At end of input: true if a sample had started but no blank line ended it.
 * stackcollapse-perf.pl drops such a sample, and so do we (the caller warns).
 */
bool perfscript__pending(const struct perfscript *p);

#endif
