/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a recording knows of each thread, for its T record: when it started
 * and ended, its exact on-CPU time (the kernel's own accounting) and what the
 * samples say of it.
 */
#ifndef LP_THREADSTAT_H
#define LP_THREADSTAT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct thread_stat {
	pid_t pid, tid;
	uint64_t start;		/* spawned, exec'd or first seen (ns) */
	uint64_t cpu;		/* exact on-CPU ns, where has_cpu */
	uint64_t clock;		/* its task-clock total, summed over CPUs as it exited */
	uint64_t sampled_cpu, sampled_offcpu;	/* ns the samples stand for */
	bool has_start, has_cpu, has_clock;
	bool exec_pending;	/* exec'd, and the new program not yet seen running */
	/* the samples with no stack copied before record exec_told_until: inside an exec or not */
	bool exec_told;
	size_t exec_told_until;
};

struct thread_stats;

struct thread_stats *thread_stats__new(void);
void thread_stats__free(struct thread_stats *t);

/* tid's entry (made, zeroed but for pid and tid, when new); NULL when out of memory. */
struct thread_stat *thread_stats__get(struct thread_stats *t, pid_t pid, pid_t tid);

/* tid's entry if there is one, else NULL. */
struct thread_stat *thread_stats__find(struct thread_stats *t, pid_t tid);

/* Forgets tid (it ended: its number may come back as another thread). */
void thread_stats__remove(struct thread_stats *t, pid_t tid);

/* Every entry in turn: for (i = 0; (s = thread_stats__next(t, &i));). */
struct thread_stat *thread_stats__next(struct thread_stats *t, size_t *i);

/* A living thread's exact on-CPU time so far (/proc/PID/task/TID/schedstat); false when gone. */
bool thread_stats__cpu_so_far(pid_t pid, pid_t tid, uint64_t *ns);

/*
 * Whether sampled on-CPU time strays from the exact by more than
 * tolerance_pct per cent of it, judged only for threads that ran at least
 * min_ns (fewer samples are noise).
 */
bool thread_stat__strays(const struct thread_stat *s, unsigned tolerance_pct, uint64_t min_ns);

#endif
