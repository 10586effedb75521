/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the parts of writing a recording share: the writer and the records it
 * keeps beside the stream. Private to lib/record/.
 *
 *   record-write.c     the walk over the records in time order, samples, live mode
 *   record-unwind.c    a sample's chain: frame pointers, CFI, learned roots, looked-ahead callers
 *   record-threads.c   threads and processes: spawns, names, ends, exact times, T records
 *   record-header.c    the stream's header and what only its end knows
 */
#ifndef LP_WRITER_INT_H
#define LP_WRITER_INT_H

#include "record/recorder-int.h"

#include <stdbool.h>
#include <stdint.h>

#include "base/htab.h"
#include "stream/lpregions.h"
#include "stream/lpstream.h"
#include "record/perfrecord.h"
#include "base/strbuf.h"
#include "symbols/symbolizer.h"
#include "record/threadstat.h"

/* Callers CFI unwinding may add to a chain. */
enum { MAX_UNWIND = 32 };
/* records written between lettings-go of the spill file's pages: some tens of MB */
enum { RELEASE_EVERY = 16384 };
/* records written between looks for chunks all written: a chunk is some thousands */
enum { CHUNKS_CHECKED_EVERY = 512 };
/*
 * How far ahead of the chain cache's end its memory is faulted in by another
 * thread, where there is a CPU for it (54-frame chains fill 18 MB in 0.1 s)
 */
enum { CHAIN_TEXT_AHEAD = 8 << 20 };
/*
 * and no further than the records left could fill, at most a new chain of
 * some 1 KB each (bench/workload.c's random paths): more is fresh memory
 * nobody uses, and a fresh page's cost here is the host's, one fault at a
 * time for both CPUs (a 3000-sample recording's write phase took 45 ms
 * with 12 MB faulted in ahead, 12-25 ms with none)
 */
enum { CHAIN_TEXT_PER_RECORD = 1024 };

/*
 * How long a live recording's writer waits, at most, for a sample that
 * reaches a process's root (look_ahead) before it writes one whose root is
 * not known yet, in ns: the records after it wait as long, in memory.
 */
#define LIVE_ROOT_WAIT 5000000000ull
/* how callchain may give a chain */
/*
 * CHAIN_MEMORY_GONE: an off-CPU stack of one frame whose thread had no user
 * memory left to read (preempted as it exited): stopped, it is counted as
 * offcpu_one_frame, not as unwinding that could not go on.
 */
enum { CHAIN_MAY_WAIT = 1, CHAIN_IN_PARTS = 2, CHAIN_MEMORY_GONE = 4 };
/* how far apart a fork's tracepoint sample and its FORK record are looked for, in records */
enum { FORK_WINDOW = 256 };
/* how many records ahead the next one to write is fetched (its header twice as far) */
enum { PREFETCH_AHEAD = 3 };
/* the root of a sample taken while the kernel loaded a program: no user code runs there */
#define EXEC_FRAME "[execve]"

/* How far back from a PERF_RECORD_READ its thread's EXIT record is looked for. */
enum { EXIT_READ_WINDOW = 512 };

/* The last counter value seen per (thread, CPU): each inherited event counts for one of them. */
struct last_value {
	struct htab_entry head;
	uint64_t key, value, time;	/* the counter's value at its last sample, and that sample's time */
};

/* How a process ended: its wait status. */
struct proc_end {
	struct htab_entry head;
	pid_t pid;
	int status;
};

/*
 * A stack copy kept as a difference, put together again: the copy it
 * refers to (key, at sp, size bytes) lies in bytes at WHOLE_ROOM, and each
 * difference overwrites its first bytes, put back (dirty) before the next:
 * most of a copy is the other's, and is not copied each time.
 */
struct whole_copy {
	uint8_t *bytes;
	uint32_t key;
	bool has_key;
	uint64_t dirty_from, dirty_to;
	uint64_t used;		/* when last used: the oldest is taken for another key */
};

/*
 * Copies put together at once: threads' samples alternate in time, each
 * referring to its own thread's copy, and one place for them all copied a
 * whole copy (10-24 KB) for nearly every sample.
 */
enum { WHOLE_COPIES = 8 };

/* Room for a callchain's frames. */
struct frame_buf {
	struct sym_frame *v;
	uint64_t *walked;	/* return addresses of a walk of the stack copy (cap of them too) */
	uint64_t *cfas;		/* where on the stack each of v returns to, 0 when not known (cap of them too) */
	struct whole_copy wholes[WHOLE_COPIES];
	uint64_t whole_uses;
	size_t cap;
};

/*
 * Where a thread's stack ends, as its whole stacks say (the outermost
 * frame's end), and the deepest sample of it whose stack went on beyond the
 * copy: together, how big a copy would have reached its roots.
 */
struct stack_top {
	struct htab_entry head;
	pid_t tid;
	uint64_t top, deepest_stopped;
	/*
	 * The user frames of the thread's last stack that reached its root, leaf
	 * first, each with where on the stack it returns to (0: unknown): callers
	 * of a frame still live at the same place, with the same return address,
	 * are the same (writer__complete_root).
	 */
	struct sym_frame *root_frames;
	uint64_t *root_cfas;
	size_t root_n, root_cap;
	bool root_unknown;	/* that stack ended in [unwind stopped] (the learned roots complete it) */
	/*
	 * writer_complete_later's reading ahead: the index entry of the thread's
	 * next sample reaching its root, or 0; records looked at up to there.
	 */
	size_t later_at, later_looked;
};

/* Lets go of what tid's stacks showed: the thread is gone (its number may come back as another). */
void writer__forget_stacks(struct writer *w, pid_t tid);

/* tid's entry (record-roots.c), made when it has none; NULL when out of memory. */
struct stack_top *writer__stack_top(struct writer *w, pid_t tid);

/*
 * Keeps the n user frames (leaf first, with where each returns to) of a
 * stack of tid that ended where unwinding could go no further, not where
 * the copy did (root_unknown: at an entry the learned roots complete). -ENOMEM
 */
int writer__remember_root(struct writer *w, pid_t tid, const struct sym_frame *frames, const uint64_t *cfas, size_t n,
			 bool root_unknown);

/*
 * The n frames of buf, a stack of pid's thread tid that stopped past the
 * copy, completed from the stack writer__remember_root kept: the new count,
 * 0 when that stack had no frame of the same function returning to the same
 * place, or -errno. *root_unknown: it ends at an entry still.
 */
ssize_t writer__complete_root(struct writer *w, pid_t pid, pid_t tid, struct frame_buf *buf, size_t n,
			     bool *root_unknown);

/* Room for cap frames in b, with their walked return addresses and places; -ENOMEM */
int writer__frames_reserve(struct frame_buf *b, size_t cap);
void writer__frames_release(struct frame_buf *b);

/* The biggest copy a thread's stopped stacks needed to reach its roots, where known: 0 when none is. */
uint64_t writer__stack_needed(const struct writer *w);

/* Where look_ahead stopped in a process's records: it goes on from there. */
struct looked_ahead {
	struct htab_entry head;
	pid_t pid;
	size_t until;
};

struct prefaulter;

struct writer {
	struct stackmap *programs;	/* executables already checked for frame pointers */
	struct htab values;	/* of struct last_value: a counter's, by thread and CPU */
	struct htab ends;	/* of struct proc_end: how each process ended, where the kernel said */
	struct htab thread_ends;	/* of struct thread_end, by thread */
	struct thread_stat gone;	/* the accounts of an exited thread's late records, kept nowhere */
	struct htab clocks;	/* of struct exit_clock: task-clock totals by the index of the EXIT */
	struct lp_regions *open_regions;	/* each thread's code regions open, written as C records */
	uint64_t clocks_read;	/* the sum of them all */
	struct tp_fields *tp[RECORD_MAX_EVENTS];	/* a custom tracepoint's field decoder, or NULL */
	struct thread_stats *threads;	/* of the threads not ended yet, for their T records */
	struct recorder *r;
	struct symbolizer *sym;
	struct prefaulter *prefaulter;	/* of the chain cache's memory, or NULL */
	struct stack_roots *roots;	/* each process's stacks' one root */
	struct lp_writer out;
	struct strbuf stack, locs;	/* the stack being rendered, escaped lists */
	/* or its callers, in the symbolizer's cache, when has_callers: stack and locs hold the leaf then */
	struct lp_span callers_stack, callers_locs;
	bool has_callers;
	struct record_stats *stats;
	struct htab fork_samples;	/* of struct fork_sample: a FORK's tracepoint sample, by the FORK's index */
	struct recorder_follower follower;	/* a live recording's: how the recorder hands it records */
	/* records in their places, that may be read ahead: all, or in a live recording those settled */
	size_t visible;
	size_t collected, done;	/* a live recording's: records collected (forks, ends, clocks), written */
	uint64_t settled_time;	/* records up to it have all come */
	bool more_to_come;	/* records after the settled ones may come: look_ahead cannot tell "none" */
	uint64_t chain[2 * OFFCPU_MAX_STACK + 3];	/* an off-CPU record's, as perf orders one */
	struct frame_buf frames;	/* a callchain's, reused from sample to sample */
	struct frame_buf ahead;		/* the same for look_ahead's samples */
	struct frame_buf later;		/* and for writer_complete_later's */
	bool peeking;		/* unwinding a later sample to complete this one: nothing kept of it */
	struct strbuf ahead_stack, ahead_locs;
	struct htab looked;	/* of struct looked_ahead: how far look_ahead went, by process */
	struct htab stack_tops;	/* of struct stack_top, by thread: how big a copy reaches its roots */
	size_t at;		/* the index entry being written */
};

/*
 * A thread's end: as the off-CPU program saw it (the last, if its number
 * came back), with its exact on-CPU time for the summary its EXIT record
 * writes, which may come just before it in time; and whether that EXIT
 * record was written (until the number comes back in a FORK).
 */
struct thread_end {
	struct htab_entry head;
	pid_t tid;
	size_t at;		/* the off-CPU program's end: its index entry */
	uint64_t cpu;
	bool has_end, taken;	/* taken by the EXIT record's summary */
	bool exited;
};

/* The task-clock totals (inherit_stat) a thread's exit gave, by the index of its EXIT record. */
struct exit_clock {
	struct htab_entry head;
	size_t exit;
	uint64_t total;
};

/* A FORK record's tracepoint sample, taken in the parent: a few per recording, so not an array by index. */
struct fork_sample {
	struct htab_entry head;
	size_t fork, sample;
};

const char *writer__comm_of(struct recorder *r, pid_t tid);
void writer__set_comm(struct recorder *r, pid_t tid, const char *comm);
int writer__callchain(struct writer *w, const struct ring_sample *sm, pid_t pid, bool cut, uint64_t *past_copy,
		     unsigned how);
bool writer__inside_exec(struct writer *w, struct thread_stat *t, const struct ring_sample *sm, bool in_kernel);
int writer__exec_chain(struct writer *w, const struct ring_sample *sm);
bool writer__taken_in_kernel(const struct perf_event_header *h);
bool writer__cut_at_max_stack(const struct writer *w, const struct ring_sample *sm);
struct thread_end *writer__thread_end_of(struct writer *w, pid_t tid, bool add);
struct thread_stat *writer__account(struct writer *w, pid_t pid, pid_t tid, uint64_t time);
const char *writer__exec_path(struct recorder *r, size_t from, pid_t pid);
int writer__check_frame_pointers(struct writer *w, const char *path);
bool writer__exit_status(const struct writer *w, pid_t pid, int *status);
int writer__collect_clocks(struct writer *w, size_t from, size_t to);
bool writer__exit_clock(const struct writer *w, size_t exit, uint64_t *total);
int writer__collect_ends(struct writer *w, size_t from, size_t to);
bool writer__exact_at_exit(struct writer *w, pid_t tid, size_t exit, uint64_t *cpu);
int writer__put_exit_status(struct writer *w, int status);
int writer__write_comm(struct writer *w, size_t i, uint64_t time);
int writer__write_fork(struct writer *w, size_t i, uint64_t time);
int writer__write_thread(struct writer *w, const struct thread_stat *thread, uint64_t time, bool ended);
int writer__write_living_threads(struct writer *w);
int writer__match_fork_stacks(struct writer *w, size_t from, size_t to);
size_t writer__fork_sample(const struct writer *w, size_t fork);
/* Code regions (record-regions.c): a probe sample as a C record; a thread's open ones closed at its exit. */
enum { LP_REGION_NAME_CAP = 256 };
int writer__write_region(struct writer *w, const struct perf_event_header *h, int index);
int writer__close_regions(struct writer *w, pid_t pid, pid_t tid, uint64_t time);
int writer__write_counts(struct recorder *r, struct lp_writer *out, const struct record_stats *st);
int writer__write_header(struct recorder *r, struct lp_writer *out, const struct record_stats *st, bool live);
/*
 * Each -e event's exact count over the command and all it spawned (its
 * inherited counter, read once recording ended), as an N record, and how
 * far the samples' weights stray from it: for a command only (attached,
 * the counter is of the first task alone; system-wide, of every task).
 */
int writer__write_event_counts(struct writer *w);
int writer__write_trailer(struct lp_writer *out, const struct record_stats *st);
void writer__count_losses(struct recorder *r, struct record_stats *stats);

#endif
