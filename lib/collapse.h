/*
 * lp-collapse's work: reading lp streams, `perf script` text and folded
 * stacks into one set of folded stacks, and writing it out.
 */
#ifndef LP_COLLAPSE_H
#define LP_COLLAPSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "perfscript.h"

enum input_format {
	FORMAT_AUTO,
	FORMAT_LP,
	FORMAT_PERF,
	FORMAT_FOLDED,
};

struct collapse_opts {
	enum input_format format;
	enum stack_naming naming;
	bool annotate_kernel, annotate_jit;
	bool addrs;			/* perf script: addresses of unknown frames */
	const char *event_filter;	/* perf script: event to keep */
	const char *const *events;	/* lp stream: events to keep, NULL = all */
	size_t nevents;
	bool samples;			/* count samples, not weights */
	bool time_ordered;
	bool strip_hex;			/* 0x1234 -> 0x... in names */
	bool diff;			/* two-count folded lines are allowed */
	bool offcpu_column;		/* lp: offcpu samples count in column 1 */
	int64_t only_tid;		/* lp: keep only this thread's samples; 0 for all */
	/*
	 * If set, every sample goes here instead of being kept (no --time-ordered):
	 * for consumers that build their own structure as they read.
	 */
	int (*sink)(void *ctx, const char *key, size_t len, int col, uint64_t weight);
	void *sink_ctx;
	/* Warnings (file, line or 0, message); lib/ prints nothing itself. */
	void (*warn)(void *ctx, const char *file, long line, const char *msg);
	void *ctx;
};

struct collapse_error {
	const char *file;
	long line;	/* 0 when not about one line */
	char msg[256];
};

struct collapser;

struct collapser *collapser__new(const struct collapse_opts *opts);
void collapser__free(struct collapser *c);

/* The format of a name ("auto", "lp", "perf", "folded"); -EINVAL. */
int input_format__parse(const char *name, enum input_format *f);

/*
 * Reads all of fd (named name in messages) into column col (0, or 1 for the
 * second profile of a differential). -errno with err filled in.
 */
int collapser__read(struct collapser *c, int fd, const char *name, int col,
		    struct collapse_error *err);

/* Formats read so far, as a bit mask of 1 << FORMAT_x. */
unsigned collapser__formats(const struct collapser *c);

/*
 * The unit of the lp stream events counted so far: "ns" for cpu and offcpu,
 * the unit of a custom event's #lp.event line; NULL if unknown or none.
 */
const char *collapser__unit(const struct collapser *c);

/* The unique stacks read, with their counts (owned by c). */
struct stackmap *collapser__stacks(struct collapser *c);

/* Each thread's samples in time order, merged while consecutive stacks are equal. */
typedef int (*collapse_visit)(void *ctx, const char *key, size_t len, uint64_t count);
int collapser__each_timed(struct collapser *c, collapse_visit visit, void *ctx);

struct collapse_output {
	bool diff;		/* "STACK COUNT1 COUNT2" */
	bool normalize;		/* scale COUNT1 so that both totals match */
};

/* Writes the folded stacks; -EIO (also check the stream's error state), -ENOMEM. */
int collapser__write(struct collapser *c, FILE *out, const struct collapse_output *o);

#endif
