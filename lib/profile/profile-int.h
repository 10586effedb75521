/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What profile's files share: the profile itself. Private to lib/profile/.
 *
 *   profile.c        inputs of any format into unique stacks, lp streams and folded stacks read
 *   profile-perf.c   perf script text, on two cores for a big file
 */
#ifndef LP_PROFILE_INT_H
#define LP_PROFILE_INT_H

#include "profile/profile.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/htab.h"
#include "base/lines.h"
#include "stream/lpregions.h"
#include "stream/lpstream.h"
#include "base/stackmap.h"
#include "base/strbuf.h"


/* One sample kept for --time-ordered. */
struct timed {
	uint64_t time, seq, weight;
	uint32_t thread, stack;
};

struct event_unit {
	char *event, *unit;
};

struct profile {
	struct profile_opts o;
	unsigned processes;		/* whose samples were kept, counted to 2 */
	uint64_t explained_weight;	/* of the waits drawn as their waker (WAITS_UNEXPLAINED) */
	uint64_t kept_samples;		/* samples of the selected events kept */
	uint64_t exact_count;		/* the N records' totals of the selected events */
	bool has_exact;
	int64_t first_pid;
	struct stackmap *stacks;
	struct stackmap *threads;
	struct timed *timed;
	size_t ntimed, timed_cap;
	uint64_t seq;

	struct strbuf key, hexless;

	struct event_unit *units;	/* from #lp.event metadata */
	size_t nunits;
	struct strbuf last_event;	/* the event whose unit was checked last */
	struct strbuf first_unit;
	bool units_warned;
	unsigned formats;

	const char *file;	/* input being read, for warnings */
	struct lines *lines;
	int fd;
	off_t fd_base;		/* where in fd its reading began; -1: not a place (a pipe) */
	bool event_defaulted;	/* the second half of a split: its event is the first one seen */
	/*
	 * The second half of a split whose reader has a sink: how many samples
	 * went into each column of each stack (by id), for the sink's count.
	 */
	uint64_t (*adds)[STACKMAP_COLUMNS];
	size_t adds_cap;
	bool count_adds;

	char **note_keys, **note_texts;	/* threads' summaries (T records) by root name, for tooltips */
	size_t nnotes, notes_cap;
	struct htab spawns;		/* struct spawn_note by tid: where each thread was spawned */
	struct srclines *src;		/* their frames' lines */

	/* the input's #lp.host and #lp.rank, as root frames for --by ("host=NAME;") */
	struct strbuf host_frame, rank_frame;
	bool has_host, has_rank;
	struct lp_regions *regions;	/* each thread's open code regions (--by region) */
};

struct spawn_note {
	struct htab_entry head;
	int64_t pid, tid;
	char *text;
};

/* A warning at the line being read. */
void profile__warn(struct profile *c, const char *msg);

/* Adds weight to the stack key (and, --time-ordered, to the thread's samples in time order). */
int profile__add(struct profile *c, const char *key, size_t len, int col, uint64_t weight,
		uint64_t time, const char *thread, size_t threadlen, struct lp_error *err);

/* Reads perf script text from c->lines into column col; -errno with err filled. */
int profile__read_perf(struct profile *c, int col, struct lp_error *err);

#endif
