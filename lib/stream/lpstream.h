/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lp stream, version 1 (share/man/man5/lp-stream.5). This module owns the
 * whole format: no other file splits a record into fields or joins fields
 * into a record. Parsed fields are spans into the caller's line: nothing is
 * copied or unescaped until asked for.
 *
 *   lpstream.c         lines, fields, records (S, P, metadata, #lp.event)
 *   lpstream-list.c    STACK and LOCS lists, LOCS items, escaping helpers
 *   lpstream-read.c    the reader every program uses: the one loop over a stream's lines
 *   lpstream-write.c   the writer every producer uses
 */
#ifndef LP_LPSTREAM_H
#define LP_LPSTREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

#include "base/error.h"
#include "stream/scan.h"
#include "base/strbuf.h"

#define LP_STREAM_VERSION 1
#define LP_STREAM_MAGIC "#lp-stream"

struct lp_span {
	const char *s;
	size_t len;
};

#define LP_SPAN(lit) ((struct lp_span){ (lit), sizeof(lit) - 1 })

/* What a buffer holds, as a span (valid until the buffer changes). */
static inline struct lp_span lp_span__of(const struct strbuf *b)
{
	return (struct lp_span){ b->s, b->len };
}

static inline bool lp_span__eq(struct lp_span s, const char *lit, size_t n)
{
	return s.len == n && __builtin_memcmp(s.s, lit, n) == 0;
}

/* ---- lines and fields ---- */

struct lp_fields {
	struct lp_span *v;
	size_t n, cap;
};

/* Splits line at every TAB into f (reused between calls); -ENOMEM. */
int lp_fields__split(struct lp_fields *f, const char *line, size_t len);
void lp_fields__release(struct lp_fields *f);

enum lp_line_kind {
	LP_LINE_COMMENT,	/* starts with '#': comment or metadata */
	LP_LINE_RECORD,		/* first field is one capital letter */
};

/*
 * Classifies a line. -EINVAL with err's message set for a line that is
 * neither (empty, or a first field that is not one capital letter).
 */
int lp_stream__line_kind(const char *line, size_t len, struct lp_error *err);

/*
 * Checks a comment line: 1 and *version set (unless NULL) if it is "#lp-stream N", 0 for
 * another comment; -EINVAL for a malformed version line or a version newer
 * than this program reads.
 */
int lp_stream__version_line(const char *line, size_t len, int *version, struct lp_error *err);

/* ---- S records ---- */

struct lp_sample {
	uint64_t time;
	int64_t pid, tid;
	struct lp_span comm;	/* escaped */
	struct lp_span event;	/* escaped */
	uint64_t weight;
	struct lp_span stack;	/* escaped list, root first, "" for no frames */
	struct lp_span locs;	/* escaped list, or "-" */
	const struct lp_span *attrs;	/* KEY=VALUE fields */
	size_t nattrs;
};

enum { LP_SAMPLE_FIELDS = 9, LP_SAMPLE_STACK_FIELD = 7 };

/* Parses and validates an S record split into f; -EINVAL naming the field and the problem. */
int lp_sample__parse(const struct lp_fields *f, struct lp_sample *s, struct lp_error *err);

/* 1 and *value: the value of attribute key ("dur") among KEY=VALUE fields; 0 when none has it. */
int lp_attrs__find(const struct lp_span *attrs, size_t n, const char *key, struct lp_span *value);

/* The value of attribute key ("dur"), or 0 if the sample has none. */
int lp_sample__attr(const struct lp_sample *s, const char *key, struct lp_span *value);

/*
 * What ended an off-CPU sample's wait, from its waker=, wakerpid=,
 * wakercomm= and queued= attributes (lp-stream(5)).
 */
enum lp_woken { LP_WOKEN_UNSEEN, LP_WOKEN_BY_IRQ, LP_WOKEN_BY_THREAD };

struct lp_wait {
	enum lp_woken by;
	int64_t tid, pid;	/* LP_WOKEN_BY_THREAD: the waker */
	struct lp_span comm;	/* its name then, escaped; empty when not said */
	uint64_t queued;	/* ns it then waited for a CPU, when has_queued */
	bool has_queued;
	/* the recorder said the waker's process was being recorded (wakerrecorded=1) */
	bool recorded;
	/* by a thread of a process the stream knows (lp_reader__wait only) */
	bool explained;
};

/* Parses s's wait; -EINVAL naming the attribute and the problem. */
int lp_sample__wait(const struct lp_sample *s, struct lp_wait *w, struct lp_error *err);

/* ---- P records ---- */

enum lp_proc_what { LP_PROC_SPAWN, LP_PROC_EXEC, LP_PROC_COMM, LP_PROC_EXIT, LP_PROC_OTHER };

struct lp_proc {
	uint64_t time;
	int64_t pid, tid;
	enum lp_proc_what what;
	struct lp_span what_name;	/* as written, for kinds this version does not know */
	struct lp_span comm;		/* escaped */
	int64_t ppid, ptid;		/* spawn */
	struct lp_span stack, locs;	/* spawn: the parent's spawning stack */
	struct lp_span path;		/* exec: escaped */
	size_t stack_field;		/* spawn: index of STACK in the fields (LOCS follows) */
};

/* "spawn", "exec", "comm", "exit"; NULL for LP_PROC_OTHER. */
const char *lp_proc__name(enum lp_proc_what what);

/* Parses a P record split into f; -EINVAL naming the field and the problem. */
int lp_proc__parse(const struct lp_fields *f, struct lp_proc *p, struct lp_error *err);

/* ---- T records: a thread's summary ---- */

struct lp_thread {
	uint64_t time;
	int64_t pid, tid;
	struct lp_span comm;		/* escaped */
	const struct lp_span *attrs;	/* KEY=VALUE fields: start, end, cpu, sampled-cpu... */
	size_t nattrs;
};

/* Parses a T record split into f; -EINVAL naming the field and the problem. */
int lp_thread__parse(const struct lp_fields *f, struct lp_thread *t, struct lp_error *err);

/* Attribute key as a number: 1 with *v, 0 when absent, -EINVAL when not a number. */
int lp_thread__attr_u64(const struct lp_thread *t, const char *key, uint64_t *v);

/* ---- C records: code regions ---- */

/* "C TIME PID TID begin|end NAME KEY=VALUE...": a thread enters or leaves a code region. */
struct lp_region {
	uint64_t time;
	int64_t pid, tid;
	bool begin;			/* else its end */
	struct lp_span name;		/* escaped, not empty */
	const struct lp_span *attrs;
	size_t nattrs;
};

/* Parses a C record split into f; -EINVAL naming the field and the problem. */
int lp_region__parse(const struct lp_fields *f, struct lp_region *c, struct lp_error *err);

/* ---- R and Q records: roofline roofs and points ---- */

enum lp_roof_kind { LP_ROOF_MEMORY, LP_ROOF_COMPUTE };

/* "R NAME KIND VALUE UNIT KEY=VALUE...": a roof of the machine. */
struct lp_roof {
	struct lp_span name;		/* escaped: L1, L2, L3, DRAM, FP-avx2-dp-fma */
	enum lp_roof_kind kind;
	double value;			/* B/s (memory) or FLOP/s (compute), > 0 */
	const struct lp_span *attrs;	/* isa=, precision=, threads=, size=, ldst= */
	size_t nattrs;
};

/* Parses an R record split into f; -EINVAL naming the field and the problem. */
int lp_roof__parse(const struct lp_fields *f, struct lp_roof *r, struct lp_error *err);

/* "Q NAME FLOPS BYTES SECONDS KEY=VALUE...": a code region's point. */
struct lp_point {
	struct lp_span name;		/* escaped: a function, or a stack prefix as a list */
	uint64_t flops, bytes;
	double seconds;			/* on-CPU */
	const struct lp_span *attrs;	/* bytes=exact|width-8..., counters= */
	size_t nattrs;
};

/* Parses a Q record split into f; -EINVAL naming the field and the problem. */
int lp_point__parse(const struct lp_fields *f, struct lp_point *q, struct lp_error *err);

/* ---- K records: counts of executed code ---- */

/*
 * "K PID TID NAME INSNS FLOPS LOADED STORED KEY=VALUE...": what a thread's
 * code in function NAME executed, counted exactly (lp-roofline record
 * --emulate: counts=emulated): instructions, FLOPs, bytes loaded and stored;
 * the FLOPs by ISA and precision in keys ISA-PRECISION (sse-dp=N...).
 */
struct lp_counts {
	int64_t pid, tid;
	struct lp_span name;		/* escaped list of one frame */
	uint64_t insns, flops, loaded, stored;
	const struct lp_span *attrs;
	size_t nattrs;
};

/* Parses a K record split into f; -EINVAL naming the field and the problem. */
int lp_counts__parse(const struct lp_fields *f, struct lp_counts *k, struct lp_error *err);

/* ---- N records: events counted ---- */

/* Why an N record has no VALUE. */
enum lp_count_state {
	LP_COUNT_COUNTED,
	LP_COUNT_NOT_SUPPORTED,	/* state=not-supported: the machine cannot count the event */
	LP_COUNT_NOT_COUNTED,	/* state=not-counted: open, but it never ran (or its count was refused) */
};

/*
 * "N TIME PID TID COMM EVENT VALUE ENABLED RUNNING KEY=VALUE...": what
 * event EVENT counted, exactly (lp-stat; lp-record beside its samples),
 * read at TIME: VALUE occurrences (ns for the clocks) while it was ENABLED
 * ns, of which RUNNING really counting (less when a PMU multiplexed it;
 * the count is not scaled). PID TID COMM: the thread's own count, or "-"
 * for a total over everything counted (pid and tid -1). VALUE "-" when
 * there is none, with state= saying why. Keys: interval=NS (the count is
 * of the NS before TIME), run=N (of -r), cpu=N.
 */
struct lp_count {
	uint64_t time;
	int64_t pid, tid;		/* -1: a total */
	struct lp_span comm;		/* escaped; "-" for a total */
	struct lp_span event;		/* escaped */
	enum lp_count_state state;
	uint64_t value, enabled, running;
	const struct lp_span *attrs;
	size_t nattrs;
};

/* Parses an N record split into f; -EINVAL naming the field and the problem. */
int lp_count__parse(const struct lp_fields *f, struct lp_count *n, struct lp_error *err);

/* ---- metadata ---- */

/* The keys whose values every reader takes alike: where and when a stream was made. */
enum lp_meta_known {
	LP_META_OTHER,
	LP_META_HOST,		/* #lp.host NAME */
	LP_META_RANK,		/* #lp.rank N */
	LP_META_START,		/* #lp.start NS */
	LP_META_REALTIME,	/* #lp.realtime NS */
};

/* "#lp.KEY\tVALUE..." */
struct lp_meta {
	struct lp_span key;
	const struct lp_span *values;	/* escaped */
	size_t nvalues;
	enum lp_meta_known known;	/* set by lp_meta__parse */
	uint64_t number;		/* RANK, START, REALTIME: the value, once lp_meta__check took it */
};

/* 1 and m set if line is a metadata line (split into f), 0 for another comment; -ENOMEM. */
int lp_meta__parse(struct lp_fields *f, const char *line, size_t len, struct lp_meta *m);

/*
 * Checks the value of a known key and sets m->number: the reader does it for
 * every metadata line, so each program takes #lp.host or #lp.start alike.
 * -EINVAL naming the key and the problem; 0 for other keys.
 */
int lp_meta__check(struct lp_meta *m, struct lp_error *err);

/* "#lp.event KEY PERF-EVENT PERIOD TITLE UNIT": a custom event's definition. */
struct lp_event_def {
	struct lp_span key, perf_event, period, title, unit;	/* escaped */
};

/* 1 and d set if m is an #lp.event line, 0 if it is other metadata; -EINVAL if too short. */
int lp_event_def__parse(const struct lp_meta *m, struct lp_event_def *d, struct lp_error *err);

/* "#lp.sampling EVENT SOURCE MODE": how an event was sampled (lp-stream(5)). */
enum lp_sampling_mode {
	LP_SAMPLING_OTHER,	/* a MODE this version does not know */
	LP_SAMPLING_FREQ,	/* freq=HZ */
	LP_SAMPLING_PERIOD,	/* period=N, in the event's unit */
	LP_SAMPLING_EVERY,	/* every-interval: each off-CPU interval, weighted by its length */
};

struct lp_sampling {
	struct lp_span event, source;	/* escaped */
	enum lp_sampling_mode mode;
	uint64_t value;			/* HZ or N; 0 for the other modes */
};

/* 1 and s set if m is an #lp.sampling line, 0 if it is other metadata; -EINVAL if too short. */
int lp_sampling__parse(const struct lp_meta *m, struct lp_sampling *s, struct lp_error *err);

/* ---- lists (STACK, LOCS) ---- */

/*
 * Walks a ';'-separated list, finding separators 16 bytes at a time: every
 * reader of lists uses this one walker. Items are escaped spans.
 */
struct lp_list_iter {
	const char *s;
	size_t len, start, block;
	unsigned mask;		/* separators and '%' left in the current block */
	bool done;
};

static inline void lp_list_iter__init(struct lp_list_iter *it, struct lp_span list)
{
	it->s = list.s;
	it->len = list.len;
	it->start = 0;
	it->block = 0;
	it->mask = list.len ? special_mask(list.s, list.len) : 0;
	it->done = list.len == 0;
}

/*
 * 1 with *item (and *escaped: it holds a '%'; may be NULL), or 0 at the end.
 * "" has no items. Inline: readers call it for every frame of every sample.
 */
static inline int lp_list_iter__next(struct lp_list_iter *it, struct lp_span *item, bool *escaped)
{
	bool esc = false;

	if (it->done)
		return 0;
	/* a block at a time, then its separators bit by bit: items are short */
	for (;;) {
		while (it->mask) {
			size_t i = it->block + (size_t)__builtin_ctz(it->mask);

			it->mask &= it->mask - 1;
			if (it->s[i] == '%') {
				esc = true;
				continue;
			}
			item->s = it->s + it->start;
			item->len = i - it->start;
			it->start = i + 1;
			if (escaped)
				*escaped = esc;
			return 1;
		}
		it->block += 16;
		if (it->block >= it->len)
			break;
		it->mask = special_mask(it->s + it->block, it->len - it->block);
	}
	/* the end of the list ends the last item */
	item->s = it->s + it->start;
	item->len = it->len - it->start;
	it->done = true;
	if (escaped)
		*escaped = esc;
	return 1;
}

size_t lp_list__count(struct lp_span list);

/*
 * Counts a list's items and checks every escape; with empty_is_bad an empty
 * item is an error. what names the list in messages ("STACK").
 */
int lp_list__check(struct lp_span list, const char *what, bool empty_is_bad, size_t *items,
		   struct lp_error *err);

/*
 * Checks that every '%' of s is followed by two hex digits; -EINVAL naming
 * what and the byte (counted from at, where s starts in its field).
 */
int lp_span__check_escapes(struct lp_span s, const char *what, size_t at, struct lp_error *err);

/* Appends the unescaped form of an escaped span; -EINVAL on a bad escape. */
int lp_span__unescape_to(struct strbuf *out, struct lp_span s);

/* Appends one raw item to an escaped list being built (adds the ';'). */
int lp_list__append(struct strbuf *list, const char *item, size_t len);

/* A LOCS item: "DSO+0xOFFSET", "[kernel.kallsyms]+0xADDR" or "-". */
struct lp_loc {
	struct lp_span dso;	/* empty for "-" */
	uint64_t offset;
	bool has_offset;
};

/* Takes an (unescaped) LOCS item apart; an item without "+0xHEX" is all DSO. */
void lp_loc__parse(struct lp_span item, struct lp_loc *loc);

/* Writes the (unescaped) LOCS item "DSO+0xOFFSET" into buf, cut to size as snprintf does; its length. */
size_t lp_loc__format(char *buf, size_t size, const char *dso, uint64_t offset);

/* A LOCS item of kernel code: [kernel.kallsyms]+0x..., [module]+0x... */
bool lp_loc__is_kernel(struct lp_span item);

/* ---- reading: the one loop over a stream ---- */

struct lines;
struct lp_reader;

/*
 * What a program does with each line of a stream. A line goes to its kind's
 * callback when there is one, else to other (when set), else nowhere. Every
 * record of a kind this version knows (S, P, T, C, R, Q, K, N) is parsed and checked
 * whether a callback takes it or not, so that every program gives the same
 * verdict on the same stream; records of other kinds are passed to other
 * unread. A callback returns 0, or a negative errno with the error given to
 * lp_reader__read filled (its place is set already) or left empty for the
 * reader to word ("out of memory" for -ENOMEM, else strerror).
 */
struct lp_reader_ops {
	int (*sample)(void *ctx, struct lp_reader *r, const struct lp_sample *s);
	int (*proc)(void *ctx, struct lp_reader *r, const struct lp_proc *p);
	int (*thread)(void *ctx, struct lp_reader *r, const struct lp_thread *t);
	int (*region)(void *ctx, struct lp_reader *r, const struct lp_region *c);
	int (*roof)(void *ctx, struct lp_reader *r, const struct lp_roof *roof);
	int (*point)(void *ctx, struct lp_reader *r, const struct lp_point *q);
	int (*counts)(void *ctx, struct lp_reader *r, const struct lp_counts *k);
	int (*count)(void *ctx, struct lp_reader *r, const struct lp_count *n);
	/* "#lp.event" lines, checked: a custom event's definition (to meta when NULL) */
	int (*event)(void *ctx, struct lp_reader *r, const struct lp_event_def *d);
	/* the other "#lp.KEY" lines, the trailer "#lp.end" among them */
	int (*meta)(void *ctx, struct lp_reader *r, const struct lp_meta *m);
	/* "#lp-stream N": a stream begins (streams may follow one another: cat a.lp b.lp) */
	int (*version)(void *ctx, struct lp_reader *r, int version);
	/* other comments, unknown record kinds, and the kinds above that have no callback */
	int (*other)(void *ctx, struct lp_reader *r, const char *line, size_t len);
};

struct lp_reader_opts {
	const char *name;	/* the input's name, for warnings */
	/* "lp-export": the reader that needs records in time order (S, P and T records' TIME
	 * never going back within a stream), named when they are not; NULL: any order */
	const char *ordered_for;
	bool strict;		/* a stream without its trailer is an error, not a warning */
	lp_warn_fn warn;
	void *warn_ctx;
};

/*
 * Reads in to its end through ops. The rules, the same for every program:
 * an input without a version line and without records (0 bytes, comments
 * alone) is an error, and so is a first line that is neither a comment nor
 * a record; a stream that began with its version line and ends without its
 * trailer is warned about (an error with strict); a record after a trailer
 * is an error. 0, or a negative errno with err filled (err->file is the
 * caller's to set).
 */
int lp_reader__read(const struct lp_reader_opts *o, struct lines *in, const struct lp_reader_ops *ops, void *ctx,
		    struct lp_error *err);

/*
 * For the sample callback: the wait of the S record being read, explained
 * when its waker is a thread of the sample's own process, of one that had a
 * record (S, P or T) before it in the stream, or of one the recorder says it
 * recorded (wakerrecorded=1: a process born during the wait has its first
 * record after the wait's): what the waiter waited for was recorded too.
 * (The reader checked its attributes: a malformed one was an error of the
 * stream.)
 */
int lp_reader__wait(struct lp_reader *r, const struct lp_sample *s, struct lp_wait *w);

/* For callbacks: the line being read (as read: not terminated), its fields (records and metadata). */
const char *lp_reader__line(const struct lp_reader *r, size_t *len);
const struct lp_fields *lp_reader__fields(const struct lp_reader *r);
/* Its number (1-based). */
long lp_reader__lineno(const struct lp_reader *r);

/* ---- writing ---- */

/*
 * Builds each record in one reused buffer and writes it with one fwrite:
 * the producers' hot path (lp-record writes hundreds of thousands a second).
 * Every call returns 0, -ENOMEM or -EIO (check ferror at the end as well).
 */
struct bgwrite;

struct lp_writer {
	FILE *out;
	struct strbuf line;	/* records kept (batched) and the one being built */
	size_t kept;		/* bytes of whole records in line, not written yet */
	bool batched;
	size_t batch;		/* bytes kept before they are written, when batched */
	struct bgwrite *bg;	/* NULL, or what writes the batches */
	uint64_t records;	/* written (or kept): the trailer's count */
	int err;		/* the errno of the first write that failed */
};

void lp_writer__init(struct lp_writer *w, FILE *out);
void lp_writer__release(struct lp_writer *w);

/*
 * Keeps whole records until there are LP_WRITER_BATCH bytes of them, then
 * writes them with one fwrite (a few hundred instructions a record less):
 * until lp_writer__flush, nothing else may write to the writer's FILE. Into
 * a regular file, LP_WRITER_FILE_BATCH bytes: a filesystem takes fewer,
 * bigger writes for less (ext4: lp-record's write phase 9% faster with 1 MB).
 */
enum { LP_WRITER_BATCH = 64 << 10, LP_WRITER_FILE_BATCH = 1 << 20 };
void lp_writer__batch(struct lp_writer *w);
/* Writes the records kept: 0 or -EIO (w->err says why). */
int lp_writer__flush(struct lp_writer *w);

/*
 * Batches written by a thread of their own, to the writer's FILE's file
 * descriptor (what the FILE holds is written first), until
 * lp_writer__foreground: nothing else may write to that file meanwhile.
 * 0 or -errno (no thread: batches are written as lp_writer__batch's are).
 */
enum { LP_WRITER_BG_BATCH = 256 << 10 };
int lp_writer__background(struct lp_writer *w);
/* Writes what is kept, waits until all is written, ends the thread: 0 or -EIO (w->err says why). */
int lp_writer__foreground(struct lp_writer *w);

int lp_writer__version(struct lp_writer *w);
/*
 * The stream's trailer, its last line: "#lp.end\tN", N the records this
 * writer wrote. A stream without it is known to be cut.
 */
int lp_writer__trailer(struct lp_writer *w);
/* "#lp.KEY\tVALUE\t...": values raw, escaped here. */
int lp_writer__meta(struct lp_writer *w, const char *key, const char *const *values, size_t n);
/* "#lp.sampling\tEVENT\tSOURCE\tMODE", MODE from mode and value (not LP_SAMPLING_OTHER). */
int lp_writer__sampling(struct lp_writer *w, const char *event, const char *source, enum lp_sampling_mode mode,
			uint64_t value);

/*
 * As lp_writer__sample, with STACK and LOCS each in parts (callers, leaf)
 * joined by ';', an empty part adding none: a stack's cached callers are
 * not copied once more to be joined.
 */
int lp_writer__sample_parts(struct lp_writer *w, uint64_t time, int64_t pid, int64_t tid, const char *comm,
			    const char *event, uint64_t weight, const struct lp_span stack[2],
			    const struct lp_span locs[2]);
/* An S record up to its attributes; comm and event raw, stack and locs escaped lists (locs "" = "-"). */
int lp_writer__sample(struct lp_writer *w, uint64_t time, int64_t pid, int64_t tid, const char *comm,
		      const char *event, uint64_t weight, struct lp_span stack, struct lp_span locs);
/* "C TIME PID TID begin|end NAME" (name raw), its attributes to follow. */
int lp_writer__region(struct lp_writer *w, uint64_t time, int64_t pid, int64_t tid, bool opens, const char *name);
/* "T TIME PID TID COMM" (comm raw): a thread's summary, its KEY=VALUE attributes to follow. */
int lp_writer__thread(struct lp_writer *w, uint64_t time, int64_t pid, int64_t tid, const char *comm);
/* "P TIME PID TID WHAT COMM" (comm raw), then what the kind takes: */
int lp_writer__proc(struct lp_writer *w, uint64_t time, int64_t pid, int64_t tid, enum lp_proc_what what,
		    const char *comm);
/* spawn: PPID PTID STACK LOCS */
int lp_writer__spawn_parent(struct lp_writer *w, int64_t ppid, int64_t ptid, struct lp_span stack,
			    struct lp_span locs);
/* exec: PATH (raw) */
int lp_writer__exec_path(struct lp_writer *w, const char *path);

/* "R NAME KIND VALUE UNIT" (name raw, value written with no fraction), its attributes to follow. */
int lp_writer__roof(struct lp_writer *w, const char *name, enum lp_roof_kind kind, double value);
/* "Q NAME FLOPS BYTES SECONDS" (name an escaped list), its attributes to follow. */
/* "K PID TID NAME INSNS FLOPS LOADED STORED" up to its attributes; name an escaped frame */
int lp_writer__counts(struct lp_writer *w, int64_t pid, int64_t tid, struct lp_span name, uint64_t insns,
		      uint64_t flops, uint64_t loaded, uint64_t stored);
/* "N TIME PID TID COMM EVENT VALUE ENABLED RUNNING" (pid -1: a total, PID TID COMM "-"; comm, event raw), state= added when not counted. */
int lp_writer__count(struct lp_writer *w, uint64_t time, int64_t pid, int64_t tid, const char *comm,
		     const char *event, enum lp_count_state state, uint64_t value, uint64_t enabled,
		     uint64_t running);
int lp_writer__point(struct lp_writer *w, struct lp_span name, uint64_t flops, uint64_t bytes, double seconds);

/* Attributes of the record being built: "\tKEY=VALUE". */
int lp_writer__attr_u64(struct lp_writer *w, const char *key, uint64_t v);
int lp_writer__attr_str(struct lp_writer *w, const char *key, const char *raw);

/* Ends the record being built and writes it. */
int lp_writer__end(struct lp_writer *w);

/* Writes a parsed S record as it was. */
int lp_writer__copy_sample(struct lp_writer *w, const struct lp_sample *s);

/* Writes a split record again with fields at and at + 1 (STACK, LOCS) replaced by escaped lists. */
int lp_writer__replace_stack(struct lp_writer *w, const struct lp_fields *f, size_t at, struct lp_span stack,
			     struct lp_span locs);

/* Writes a line as it was (comments, records passed through). */
int lp_writer__raw(struct lp_writer *w, const char *line, size_t len);

#endif
