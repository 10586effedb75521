/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the timeline's files share: the threads, bands and spans it collects.
 * Private to lib/picture/.
 *
 *   timeline.c          collecting: each record of the inputs into threads, their spans and spawns
 *   timeline-layout.c   laying out: bands, rows nested by spawn tree
 *   timeline-write.c    writing: the SVG with its data embedded
 */
#ifndef LP_TIMELINE_INT_H
#define LP_TIMELINE_INT_H

#include "picture/timeline.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/export-format.h"
#include "base/htab.h"
#include "base/stackmap.h"
#include "base/strbuf.h"


struct span {
	uint64_t start, end;
	uint32_t stack;		/* its entry in the stacks map */
};

struct spans {
	struct span *v;
	size_t n, cap;
};

/* When an off-CPU interval's thread was made runnable, and by what (its S record's waker=). */
struct wake {
	uint64_t at;
	int64_t pid, tid;	/* the waker, a thread; tid 0: an interrupt */
};

struct wakes {
	struct wake *v;
	size_t n, cap;
};

/* A code region a thread was in (C records): from its begin to its end, depth 0 outermost. */
struct region_span {
	uint64_t start, end;
	uint32_t name;		/* in the timeline's region names */
	uint32_t depth;
};

struct region_spans {
	struct region_span *v;
	size_t n, cap;
	size_t *open;		/* indexes of those not ended yet, outermost first */
	size_t nopen, open_cap;
};

struct spawn_frame {
	size_t name, dso;	/* offsets into the thread's spawn text */
	size_t name_len, dso_len;
	uint64_t offset;
	bool has_offset;
};

struct thread {
	size_t band;
	int64_t pid, tid;
	char *comm, *exe, *status;
	ptrdiff_t parent;	/* the spawning thread, or -1 */
	uint64_t spawned;
	struct strbuf spawn_text;
	struct spawn_frame *spawn;
	size_t nspawn;
	bool has_spawn;
	uint64_t start, end;
	bool has_start, has_end;
	bool ended_with_process;	/* no exit of its own: its process's */
	uint64_t first, last;	/* the samples' extent */
	bool seen;
	uint64_t *execs;
	size_t nexecs;
	uint64_t cpu;		/* exact, from a T record */
	bool has_cpu;
	uint64_t sampled_cpu, sampled_off;
	struct spans on, off;
	struct wakes wakes;
	struct region_spans regions;
	/* layout */
	size_t row;
	uint32_t depth;
};

/* The thread now using a tid in the band being read. */
struct live {
	struct htab_entry head;
	int64_t tid;
	size_t thread;
};

struct band {
	char *name, *host, *rank;
	uint64_t start, realtime;
	bool has_start, has_realtime;
	bool has_procs;
	uint64_t first, last;	/* everything it holds */
	bool seen;
	size_t first_row, end_row;
};

struct timeline {
	const struct timeline_opts *o;
	struct thread *threads;
	size_t nthreads, cap;
	struct band *bands;
	size_t nbands;
	struct htab live;
	struct stackmap *stacks;	/* key: thread index (8 bytes), then the escaped STACK */
	struct strbuf key;
	size_t cpu_event, off_event;
	struct stackmap *region_names;	/* each region's name once (escaped), its id the index written */
};

struct layout {
	struct timeline *tl;
	size_t *band_order;	/* bands as drawn: by rank when every input has one */
	size_t *order;		/* rows: thread indexes */
	size_t nrows;
	size_t *kids;		/* children of each thread, CSR-style */
	size_t *kid_at;
};

void timeline__spans_order(struct spans *s);
void timeline__close_regions(struct thread *t);
int timeline__lay_out(struct layout *l);
int timeline__finish(void *st, struct export_ctx *x);
void timeline__free(void *st);

#endif
