/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A profile: what every reader of stacks builds from its inputs (lp streams,
 * `perf script` text, folded stacks, detected per input), as unique stacks
 * with one or two counts, or each thread's samples in time order. lp-collapse
 * writes it as folded stacks; lp-svg draws it.
 */
#ifndef LP_PROFILE_H
#define LP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "formats/detect.h"
#include "stream/lpstream.h"
#include "formats/perfscript.h"

/* What off-CPU samples show of waits: lp-svg --waits. */
enum profile_waits {
	WAITS_ALL,		/* every wait with its stack */
	WAITS_UNEXPLAINED,	/* a wait a thread of the stream ended as one frame naming it, "[waiting for NAME]" */
	WAITS_NONE,		/* no off-CPU samples */
};

struct profile_opts {
	enum lp_format format;
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
	int64_t only_pid;		/* lp: keep only this process's samples; 0 for all */
	bool by_host, by_rank;		/* lp: root frames host=NAME, rank=N from each input's metadata */
	bool by_region;			/* lp: root frames region=NAME of the regions open (C records), outermost first */
	enum profile_waits waits;	/* lp: off-CPU samples' stacks */
	bool spawn_notes;		/* lp, NAMING_TID: each thread's spawning stack (file:line) in its note */
	bool strict;			/* an lp stream without its trailer is an error, not a warning */
	unsigned jobs;			/* perf script text: cores to read a big file with (0, 1: one) */
	/*
	 * If set, every sample goes here instead of being kept (no --time-ordered):
	 * for consumers that build their own structure as they read. weight is
	 * that of samples samples: 1, or a stack of a big file's second half.
	 */
	int (*sink)(void *ctx, const char *key, size_t len, int col, uint64_t weight, uint64_t samples);
	void *sink_ctx;
	/* Warnings, with the file and line; lib/ prints nothing itself. */
	lp_warn_fn warn;
	void *ctx;
};

struct profile;

struct profile *profile__new(const struct profile_opts *opts);
void profile__free(struct profile *c);

/*
 * Reads all of fd (named name in messages) into column col (0, or 1 for the
 * second profile of a differential). -errno with err filled in.
 */
int profile__read(struct profile *c, int fd, const char *name, int col,
		    struct lp_error *err);

/*
 * The threads' summaries read so far (T records, with NAMING_TID): notes in
 * words, each for the stacks whose root is keys[i] ("comm-PID/TID"); with
 * spawn_notes, also where the thread was spawned (P records before its T).
 */
size_t profile__notes(const struct profile *c, const char *const **keys, const char *const **texts);

/*
 * With one event selected whose exact count the stream holds (N records,
 * lp-record -e, lp-stat -o): the samples of it kept and the occurrences
 * counted. false otherwise.
 */
bool profile__exact_count(const struct profile *c, uint64_t *samples, uint64_t *occurrences);

/* The weight of the waits drawn as one frame naming their waker (WAITS_UNEXPLAINED). */
uint64_t profile__explained_waits(const struct profile *c);

/* Processes whose samples were kept (lp streams; counted up to 2: one, or more than one). */
unsigned profile__processes(const struct profile *c);

/* Formats read so far, as a bit mask of 1 << LP_FORMAT_x. */
unsigned profile__formats(const struct profile *c);

/*
 * The unit of the lp stream events counted so far: "ns" for cpu and offcpu,
 * the unit of a custom event's #lp.event line; NULL if unknown or none.
 */
const char *profile__unit(const struct profile *c);

/* The unique stacks read, with their counts (owned by c). */
struct stackmap *profile__stacks(struct profile *c);

/* Each thread's samples in time order, merged while consecutive stacks are equal. */
typedef int (*profile_visit)(void *ctx, const char *key, size_t len, uint64_t count);
int profile__each_timed(struct profile *c, profile_visit visit, void *ctx);

struct folded_output {
	bool diff;		/* "STACK COUNT1 COUNT2" */
	bool normalize;		/* scale COUNT1 so that both totals match */
};

/* Writes the folded stacks; -EIO (also check the stream's error state), -ENOMEM. */
int profile__write_folded(struct profile *c, FILE *out, const struct folded_output *o);

#endif
