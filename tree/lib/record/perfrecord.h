/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's perf records, decoded and (for what existed before the
 * recording) encoded: the one place that knows their byte layout, which
 * perfevent.c chooses (LP_SAMPLE_TYPE, sample_id_all). Everything that reads
 * the ring buffer goes through here.
 */
#ifndef LP_PERFRECORD_H
#define LP_PERFRECORD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbols/cfi.h"

/* Records and their parts are 8-byte aligned. */
static inline size_t perf_round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* What the session asked samples to carry beyond LP_SAMPLE_TYPE. */
struct perf_layout {
	bool read_value;	/* PERF_SAMPLE_READ (not in tracepoint samples) */
	bool regs_and_stack;	/* PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER */
	bool no_period;		/* without PERF_SAMPLE_PERIOD: a software event's fixed period (period 0) */
};

/* A sample record taken apart: pointers are into the record. */
struct ring_sample {
	uint64_t id, time, period, value, nr;
	bool has_value;
	pid_t pid, tid;
	uint32_t cpu;
	const uint64_t *ips;	/* the callchain, nr entries, with PERF_CONTEXT_* markers */
	const uint8_t *raw;	/* PERF_SAMPLE_RAW (tracepoints) */
	uint32_t raw_size;
	bool has_regs;
	struct user_regs regs;
	const uint8_t *stack;	/* the user stack snapshot, what the kernel could copy */
	uint64_t stack_size;
	/*
	 * A record lp-record keeps as a difference (ring_sample__copy_delta):
	 * the whole copy is stack_whole bytes, of which stack holds the first
	 * stack_size; the rest is in sample stack_key's copy (a seq). Else 0.
	 */
	uint64_t stack_whole;
	uint32_t stack_key;
	/*
	 * The kernel copied less than it set out to: it stops at the first page
	 * it cannot read without faulting it in, a page of the stack the thread
	 * has not touched yet, or the stack's end. No bigger copy goes further.
	 */
	bool stack_short;
};

/* Decodes a sample (raw: it carries PERF_SAMPLE_RAW and no value); false if malformed. */
bool ring_sample__decode(const struct perf_event_header *h, const struct perf_layout *l, bool raw,
			 struct ring_sample *s);

/* The sampling event's id of a sample, without decoding the rest. */
uint64_t ring_sample__id(const struct perf_event_header *h);

/* A record's time: a sample's own, else the sample_id_all trailer's (0 if it has none). */
/*
 * The kernel reserves the whole user stack copy asked for in each sample and
 * writes as much of it as the stack's mapping holds: the size of sample h
 * (s, decoded) without the part left unwritten, and the copy of it that size
 * into dst (its stack size field says so; the record stays well formed).
 */
size_t ring_sample__kept_size(const struct perf_event_header *h, const struct ring_sample *s);
void ring_sample__copy_kept(const struct perf_event_header *h, const struct ring_sample *s, void *dst,
			    size_t kept);

/*
 * The size of sample h (s, decoded, with a whole stack copy) kept with only
 * the first prefix bytes of its copy (a multiple of 8), and that record in
 * dst: the rest of the copy is that of sample key (ring_sample.stack_key).
 */
size_t ring_sample__delta_size(const struct perf_event_header *h, const struct ring_sample *s, size_t prefix);
void ring_sample__copy_delta(const struct perf_event_header *h, const struct ring_sample *s, void *dst,
			     size_t prefix, uint32_t key);

uint64_t perf_record__time(const struct perf_event_header *h);

/*
 * The thread a sample, MMAP2, COMM, FORK or EXIT record is of (a FORK's:
 * the child; its parent in *parent when not NULL, else -1); -1 for other
 * records and for one too short to say.
 */
pid_t perf_record__tid(const struct perf_event_header *h, pid_t *parent);

/* PERF_RECORD_LOST: the samples lost. */
uint64_t perf_lost__count(const struct perf_event_header *h);

/* PERF_RECORD_READ (inherit_stat, as a thread exits): its thread and its counter's final value. */
struct perf_read {
	pid_t pid, tid;
	uint64_t value;
};

bool perf_read__decode(const struct perf_event_header *h, struct perf_read *r);

struct perf_mmap2 {
	pid_t pid, tid;
	uint64_t start, len, pgoff;
	uint64_t dev;		/* maj << 32 | min; 0 when the record carries a build id instead */
	uint64_t ino;
	const char *path;
};

void perf_mmap2__decode(const struct perf_event_header *h, struct perf_mmap2 *m);

struct perf_comm {
	pid_t pid, tid;
	const char *comm;
	bool exec;		/* the name changed because the thread exec'd */
};

void perf_comm__decode(const struct perf_event_header *h, struct perf_comm *c);

/* PERF_RECORD_FORK and PERF_RECORD_EXIT */
struct perf_task {
	pid_t pid, ppid, tid, ptid;
};

void perf_task__decode(const struct perf_event_header *h, struct perf_task *t);

/*
 * Encoding, for what existed before recording (/proc): records as the kernel
 * would have written them, with a trailer at time. Each writes into buf
 * (size bytes) and returns the header, or NULL if it does not fit.
 */
struct perf_event_header *perf_mmap2__encode(void *buf, size_t size, const struct perf_mmap2 *m,
					     uint64_t time);
struct perf_event_header *perf_comm__encode(void *buf, size_t size, const struct perf_comm *c, uint64_t time);

#endif
