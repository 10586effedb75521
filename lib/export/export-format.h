/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What export.c hands each format: records with their fields unescaped
 * and their stacks as frames, the events and inputs seen so far. Each format
 * is one file (export-pprof.c, ...) with one export_ops; a consumer outside
 * this folder (lp-svg's timeline, picture/timeline.c) is written the same way.
 */
#ifndef LP_EXPORT_FORMAT_H
#define LP_EXPORT_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "export/export.h"
#include "stream/lpstream.h"
#include "base/strbuf.h"

struct export_event {
	char *key, *title, *unit;	/* raw */
	bool in_ns;			/* weights are nanoseconds of time */
	bool offcpu;			/* intervals off the CPU: TIME is their start */
	uint64_t period;		/* what one sample stands for, in the event's unit (#lp.sampling), or 0 */
};

struct export_input {
	char *name;			/* the file, "stdin" */
	char *host, *rank;		/* its #lp.host and #lp.rank, NULL when absent */
	uint64_t start, realtime;	/* #lp.start, #lp.realtime (CLOCK_REALTIME then), when has_ */
	bool has_start, has_realtime;
};

struct export_frame {
	struct lp_span name;		/* raw */
	struct lp_span dso;		/* raw, empty when unknown */
	uint64_t offset;
	bool has_offset;
};

struct export_stack {
	const struct export_frame *frames;	/* root first */
	size_t n;
};

/* A sample; its frames are decoded when a format asks (export_sample__stack). */
struct export_sample {
	const struct lp_sample *s;
	size_t event;			/* index into export_ctx.events */
	struct lp_span comm;		/* raw */
	uint64_t dur;			/* off-CPU: the interval's length (dur=, else WEIGHT) */
	int64_t cpu;			/* cpu=, or -1 */
};

struct export_proc {
	const struct lp_proc *p;
	struct lp_span comm, path;	/* raw */
	struct export_stack stack;	/* spawn: the parent's spawning stack */
	const struct lp_fields *fields;	/* the whole record, for attributes (exit status=) */
};

struct export_thread {
	const struct lp_thread *t;
	struct lp_span comm;		/* raw */
};

struct exporter;

struct export_ctx {
	struct exporter *owner;
	FILE *out;
	const struct export_opts *o;
	struct export_event *events;
	size_t nevents;
	struct export_input *inputs;	/* the one being read is the last */
	size_t ninputs;
	struct lp_error *err;		/* for messages about the place being read */
};

struct export_ops {
	/* the format lays samples out in time: records whose TIME goes back are refused */
	bool in_time_order;
	/* NULL+errno */
	void *(*begin)(struct export_ctx *x);
	int (*sample)(void *st, struct export_ctx *x, const struct export_sample *s);
	int (*proc)(void *st, struct export_ctx *x, const struct export_proc *p);		/* may be NULL */
	int (*thread)(void *st, struct export_ctx *x, const struct export_thread *t);	/* may be NULL */
	int (*region)(void *st, struct export_ctx *x, const struct lp_region *c);	/* may be NULL */
	/* The end of one input (may be NULL): state keyed by its pids ends with it. */
	int (*input_end)(void *st, struct export_ctx *x);
	int (*finish)(void *st, struct export_ctx *x);
	void (*free)(void *st);
};

extern const struct export_ops export__pprof_ops, export__speedscope_ops, export__trace_ops,
	export__perf_script_ops;

/* The frames of the sample being handed to a format, root first; -errno with x->err set. */
int export_sample__stack(struct export_ctx *x, struct export_stack *out);

/*
 * What a format made of a stack (rendered text, ids), kept for the next sample
 * with the same STACK and LOCS: recordings repeat a few thousand stacks many
 * times. Emptied when it holds max_bytes, so memory stays bounded however
 * many stacks are unique.
 */
struct export_memo;

struct export_memo *export_memo__new(size_t max_bytes);
void export_memo__free(struct export_memo *m);
/* 1 with *data and *len if s's stack was seen; 0: make it, then export_memo__put; -ENOMEM. */
int export_memo__get(struct export_memo *m, const struct lp_sample *s, const void **data, size_t *len);
/* Keeps data for the stack of the last export_memo__get that returned 0. -ENOMEM. */
int export_memo__put(struct export_memo *m, const void *data, size_t len);

/* The output could not be written: -EIO, with a message about the output, not the input being read. */
int export__write_failed(struct export_ctx *x);

/* Appends a string literal. */
#define add_lit(b, lit) strbuf__add((b), (lit), sizeof(lit) - 1)

/* Numbers without printf, which the per-sample formats would spend a third of their time in. */
int export__put_u64(struct strbuf *b, uint64_t v);
int export__put_i64(struct strbuf *b, int64_t v);
/* Lower-case hex, right-aligned in width columns (0: no padding). */
int export__put_hex(struct strbuf *b, uint64_t v, unsigned width);

/* Seconds and nanoseconds, "SSS.NNNNNNNNN". */
int export__time(struct strbuf *b, uint64_t ns);

#endif
