/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside a recording, shared by its three parts: recorder.c keeps the
 * records as they come, record-start.c starts the command or attaches,
 * record-write.c symbolises and writes the stream. Not for other modules.
 */
#ifndef LP_RECORDER_INT_H
#define LP_RECORDER_INT_H

#include <stdbool.h>

#include "base/htab.h"
#include "record/perfrecord.h"
#include "record/recorder.h"
#include "base/thread.h"

/* Our own record type among the kept ones: an off-CPU interval from the BPF ring buffer. */
enum { LP_RECORD_OFFCPU = 0x4c50, LP_RECORD_PROC_END = 0x4c51 };

/*
 * A kept record. Its type is here too: passes over every record look at the
 * type first, so that records in the spill file are not read for nothing.
 */
struct index_entry {
	uint64_t time;
	uint32_t seq;		/* arrival order: ties in time keep it */
	uint16_t type;		/* h->type */
	uint16_t fork_sample;	/* a sample of the fork tracepoint */
	uint32_t stack_key;	/* a sample whose stack copy is partly another's: that one's seq + 1; else 0 */
	const struct perf_event_header *h;
};

/* The index in time order, ties in arrival order (seq): sorted in place. */
void index__sort(struct index_entry *index, size_t n);

struct chunk;
struct follow_gate;
struct spill;
struct writer;
struct spilled_range;
struct symbolizer;
struct sym_loader;

struct thread_name {
	struct htab_entry head;
	pid_t tid;
	char comm[17];
};

/* A thread running before recording began (-p, -a): its on-CPU time then, which its T record leaves out. */
struct cpu_before {
	struct htab_entry head;
	pid_t tid;
	uint64_t ns;
};

struct recorder {
	struct record_opts o;
	struct event_rings *session;
	struct perf_layout layout;	/* of the session's samples */
	struct offcpu *offcpu;
	uint64_t offcpu_drops;
	struct offcpu_drops offcpu_drop_causes;
	long max_stack;		/* kernel.perf_event_max_stack */
	struct {
		uint64_t samples, sample_ns;
	} counts;
	pid_t child;
	int wait_status;
	bool exited;
	uint64_t child_cpu_ns;	/* CPU time of the command and the children it waited for, once exited */
	uint64_t clock_total;	/* task-clock of the command's whole tree, once exited; 0 if unknown */
	struct {
		uint64_t value, enabled, running, lost;
		uint64_t enabled_sum;	/* over the CPUs' counters, as running is (enabled is their most) */
		bool known;
	} custom_times[RECORD_MAX_EVENTS];	/* each -e event's, when recording ended */
	uint64_t start_ns, end_ns;	/* recording began, ended */
	uint64_t start_realtime_ns;	/* CLOCK_REALTIME at start_ns: streams of other hosts on one axis */

	struct chunk *chunks;	/* the newest first */
	struct chunk *spare;	/* a chunk let go of in a live recording, for the next ones */
	size_t chunk_size, kept_bytes;	/* in chunks */
	uint64_t max_time;	/* of the records kept so far */
	struct recorder_follower *follower;	/* what reads records while recording, or NULL */
	int follower_error;	/* why it stopped following, when it did */
	struct chunk_use *uses;	/* the chunks by address, with where each is last read; NULL: not planned */
	size_t nuses, next_release;
	size_t *release_order;	/* of uses, by their last reads */
	struct worker closer;	/* closes the events once read, while the stream is written */
	bool closing;		/* it was started */
	struct spill *spill;	/* where records go beyond o.spill_after, or NULL */
	struct chunk *spilling;	/* a full chunk being written there, its records' entries from first to spilling_end */
	size_t spilling_end;
	struct spilled_range *spilled;	/* whose entries hold offsets in it */
	size_t nspilled;
	int spill_errno;	/* why it could not be written: all stays in memory then */
	struct index_entry *index;	/* every record kept, in the order they came */
	size_t n, cap;
	struct follow_gate *gate;	/* task records are the machine's: those of the followed tasks pass; or NULL */
	struct stack_deltas *deltas;	/* on-CPU samples' stack copies kept as differences; NULL: whole */
	uint32_t *at_seq;	/* where each record (by seq) is in the sorted index, where differences need it */

	struct htab names;	/* of struct thread_name */
	struct htab cpu_before;	/* of struct cpu_before */
	/* the write phase's symbolizer, into which the loader reads the files mapped while recording */
	struct symbolizer *sym;
	struct sym_loader *loader;
	size_t next_expect;	/* records kept when the loader is next told what to expect */
	size_t fork_child_offset;	/* of child_pid in the fork tracepoint's raw data */
	/* code regions' probes, attached as their files are mapped; NULL once they cannot be (said why in regions_off) */
	struct region_probes *regions;
	char regions_off[256];
};

/* Attaches the code region probes of a file the workload maps (once a file); a failure stops it, said in regions_off. */
void recorder__scan_regions(struct recorder *r, const char *path, uint64_t dev, uint64_t ino);

/* Notes tid's on-CPU time before recording began; -ENOMEM. */
int recorder__note_cpu_before(struct recorder *r, pid_t tid, uint64_t ns);
/* What of cpu (tid's exact on-CPU time) was before recording began: 0 for a thread it saw start. */
uint64_t recorder__cpu_before(const struct recorder *r, pid_t tid, uint64_t cpu);

/* Keeps a copy of a record (a perf_record_fn). */
int recorder__keep(void *ctx, const struct perf_event_header *h);
/*
 * Has the files of the mappings kept so far, and of those to come, read while
 * the command runs (recorder__write waits for them). -errno when it cannot:
 * they are read as the write phase meets them, as before.
 */
int recorder__load_symbols(struct recorder *r);
/* Makes every kept record readable through its index entry, spilled ones too. */
int recorder__settle(struct recorder *r);
/*
 * Lets go of the memory of spilled records read so far (they stay readable),
 * and reads in those of the n records from index entry from on.
 */
void recorder__release_read(struct recorder *r, size_t from, size_t n);
/*
 * Chunks of records in memory are let go of as soon as the last of their
 * records is written (the index sorted): the memory the write phase asks for
 * next (its caches, the output file's pages) is then memory just held, not
 * fresh pages. recorder__plan_release finds where each chunk is last read;
 * recorder__hold makes record h (a chunk's, or not) stay until entry i is
 * written; recorder__release_written lets go of the chunks no entry after
 * the first done ones reads. -ENOMEM from the plan leaves every chunk kept.
 */
int recorder__plan_release(struct recorder *r);
void recorder__hold(struct recorder *r, const struct perf_event_header *h, size_t i);
void recorder__release_written(struct recorder *r, size_t done);
/* Lets go of the chunks whose records all came before record seq (in arrival order). */
void recorder__release_before(struct recorder *r, size_t seq);
/*
 * What reads the records while they are recorded (a live recording's
 * writer): recorder.c calls it and knows nothing more of it, so the
 * recorder does not depend on its writer. mapped sees each MMAP2 record as
 * it comes; settled is called after each round of reading with the time up
 * to which every record has come, and a negative return (-ENOMEM, -EIO)
 * ends the recording; free lets it go when the recording fails before
 * recorder__write ends it.
 */
struct recorder_follower {
	void (*mapped)(struct recorder_follower *f, const struct perf_event_header *h);
	int (*settled)(struct recorder_follower *f, uint64_t settled);
	void (*free)(struct recorder_follower *f);
};

/* A kept off-CPU record's parts: the event, its stack snapshot, its addresses (user, then kernel). */
const struct offcpu_event *offcpu_record__parts(const struct perf_event_header *h, const uint8_t **stack,
						const uint64_t **ips);

uint64_t recorder__monotonic_ns(void);
/* Notes when recording begins, on both clocks. */
void recorder__mark_start(struct recorder *r);

#endif
