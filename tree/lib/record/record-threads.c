/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Threads and processes while writing: spawns with their stacks, names, ends, exact times, T records. */
#include "record/writer-int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/fpchain.h"
#include "base/hash.h"
#include "record/offcpu-sampler.h"
#include "record/perfevent.h"
#include "base/stackmap.h"
#include "symbols/stackroot.h"
#include "symbols/symload.h"
#include "record/tpfields.h"
#include "record/tracefs.h"
#include <sys/wait.h>

struct thread_end *writer__thread_end_of(struct writer *w, pid_t tid, bool add)
{
	uint64_t h = hash_mix((uint64_t)(uint32_t)tid);
	struct thread_end *e;

	if (add && htab__reserve(&w->thread_ends) < 0)
		return NULL;
	if (!add && !w->thread_ends.n)
		return NULL;
	for (size_t j = h; (e = htab__at(&w->thread_ends, j))->head.used; j++)
		if (e->head.hash == h && e->tid == tid)
			return e;
	if (!add)
		return NULL;
	htab__insert(&w->thread_ends, e, h);
	*e = (struct thread_end){ .head = e->head, .tid = tid };
	return e;
}

/*
 * tid's accounts, started at time when first seen; NULL when out of memory.
 * A thread that exited has its summary written: what comes after (its last
 * switch away, as it dies) is counted nowhere, not as a thread of its own.
 */
struct thread_stat *writer__account(struct writer *w, pid_t pid, pid_t tid, uint64_t time)
{
	struct thread_stat *t = thread_stats__get(w->threads, pid, tid);
	const struct thread_end *e;

	if (t && !t->has_start) {
		if ((e = writer__thread_end_of(w, tid, false)) && e->exited) {
			thread_stats__remove(w->threads, tid);
			memset(&w->gone, 0, sizeof(w->gone));
			return &w->gone;
		}
		t->start = time;
		t->has_start = true;
	}
	return t;
}

/* The wait status of pid, from the kernel (the off-CPU program) or from waiting for the command. */
bool writer__exit_status(const struct writer *w, pid_t pid, int *status)
{
	uint64_t h = hash_mix((uint64_t)(uint32_t)pid);
	const struct proc_end *e;

	for (size_t i = h; w->ends.n && (e = htab__at(&w->ends, i))->head.used; i++)
		if (e->head.hash == h && e->pid == pid) {
			*status = e->status;
			return true;
		}
	if (pid == w->r->child && w->r->exited) {
		*status = w->r->wait_status;
		return true;
	}
	return false;
}

/*
 * Adds each PERF_RECORD_READ (one per CPU's counter, as the thread exits,
 * just after its EXIT record) to that EXIT's total.
 */
int writer__collect_clocks(struct writer *w, size_t from, size_t to)
{
	const struct recorder *r = w->r;

	for (size_t i = from; i < to; i++) {
		struct perf_read rd;
		struct perf_task t;
		struct exit_clock *e;
		size_t j = i;

		if (r->index[i].type != PERF_RECORD_READ || !perf_read__decode(r->index[i].h, &rd))
			continue;
		while (j-- > 0 && i - j < EXIT_READ_WINDOW) {
			if (r->index[j].type != PERF_RECORD_EXIT)
				continue;
			perf_task__decode(r->index[j].h, &t);
			if (t.tid == rd.tid)
				break;
		}
		if (j == SIZE_MAX || i - j >= EXIT_READ_WINDOW)
			continue;
		if (htab__reserve(&w->clocks) < 0)
			return -ENOMEM;
		uint64_t h = hash_mix(j);

		for (size_t k = h; (e = htab__at(&w->clocks, k))->head.used; k++)
			if (e->head.hash == h && e->exit == j)
				break;
		if (!e->head.used) {
			htab__insert(&w->clocks, e, h);
			e->exit = j;
			e->total = 0;
		}
		e->total += rd.value;
		w->clocks_read += rd.value;
	}
	return 0;
}

bool writer__exit_clock(const struct writer *w, size_t exit, uint64_t *total)
{
	uint64_t h = hash_mix(exit);
	const struct exit_clock *e;

	for (size_t k = h; w->clocks.n && (e = htab__at(&w->clocks, k))->head.used; k++)
		if (e->head.hash == h && e->exit == exit) {
			*total = e->total;
			return true;
		}
	return false;
}

/* Collects the processes' and threads' ends the off-CPU program reported. */
int writer__collect_ends(struct writer *w, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		const struct offcpu_event *ev;
		uint64_t hash;
		struct proc_end *e;

		if (w->r->index[i].type != LP_RECORD_PROC_END)
			continue;
		ev = (const struct offcpu_event *)(w->r->index[i].h + 1);
		hash = hash_mix((uint64_t)ev->pid);
		if (htab__reserve(&w->ends) < 0)
			return -ENOMEM;
		for (size_t j = hash; (e = htab__at(&w->ends, j))->head.used; j++)
			if (e->head.hash == hash && e->pid == (pid_t)ev->pid)
				break;
		if (!e->head.used)
			htab__insert(&w->ends, e, hash);
		e->pid = (pid_t)ev->pid;
		e->status = (int)ev->weight;

		struct thread_end *t = writer__thread_end_of(w, (pid_t)ev->tid, true);

		if (!t)
			return -ENOMEM;
		t->at = i;
		t->cpu = ev->end;
		t->has_end = true;
	}
	return 0;
}

/* The exact on-CPU time of the thread whose EXIT is index entry exit, from its end near it. */
bool writer__exact_at_exit(struct writer *w, pid_t tid, size_t exit, uint64_t *cpu)
{
	struct thread_end *e = writer__thread_end_of(w, tid, false);

	if (!e || !e->has_end || e->taken || (e->at > exit ? e->at - exit : exit - e->at) >= EXIT_READ_WINDOW)
		return false;
	e->taken = true;
	*cpu = e->cpu;
	return true;
}

/* A process's exit record says how it ended: status=N, or signal=SIGNAME when a signal killed it. */
int writer__put_exit_status(struct writer *w, int status)
{
	char name[32];
	const char *abbrev;

	if (WIFSIGNALED(status)) {
		abbrev = sigabbrev_np(WTERMSIG(status));
		if (abbrev)
			snprintf(name, sizeof(name), "SIG%s", abbrev);
		else
			snprintf(name, sizeof(name), "%d", WTERMSIG(status));
		return lp_writer__attr_str(&w->out, "signal", name);
	}
	return lp_writer__attr_u64(&w->out, "status", (uint64_t)WEXITSTATUS(status));
}

int writer__write_comm(struct writer *w, size_t i, uint64_t time)
{
	struct perf_comm c;
	const char *path;
	int ret;

	perf_comm__decode(w->r->index[i].h, &c);
	path = c.exec ? writer__exec_path(w->r, i, c.pid) : NULL;
	writer__set_comm(w->r, c.tid, c.comm);
	if (c.exec && (ret = symbolizer__exec(w->sym, c.pid)) < 0)
		return ret;
	if (c.exec) {
		struct thread_stat *t = writer__account(w, c.pid, c.tid, time);

		if (!t)
			return -ENOMEM;
		stack_roots__forget(w->roots, c.pid);
		t->exec_pending = true;
	}
	if (path && (ret = writer__check_frame_pointers(w, path)) < 0)
		return ret;
	if ((ret = lp_writer__proc(&w->out, time, c.pid, c.tid, c.exec ? LP_PROC_EXEC : LP_PROC_COMM, c.comm)) < 0 ||
	    (path && (ret = lp_writer__exec_path(&w->out, path)) < 0))
		return ret;
	return lp_writer__end(&w->out);
}

int writer__write_fork(struct writer *w, size_t i, uint64_t time)
{
	struct recorder *r = w->r;
	size_t at = writer__fork_sample(w, i);
	const struct perf_event_header *tp = at ? r->index[at - 1].h : NULL;
	struct thread_end *e;
	struct ring_sample sm;
	struct perf_task t;
	int ret;

	perf_task__decode(r->index[i].h, &t);
	writer__set_comm(r, t.tid, writer__comm_of(r, t.ptid));
	if ((e = writer__thread_end_of(w, t.tid, false)))
		e->exited = false;
	if (!writer__account(w, t.pid, t.tid, time))
		return -ENOMEM;
	if (t.pid != t.ppid) {
		w->stats->processes++;
		if ((ret = symbolizer__fork(w->sym, t.ppid, t.pid)) < 0)
			return ret;
	} else {
		w->stats->threads++;
	}
	strbuf__reset(&w->stack);
	strbuf__reset(&w->locs);
	if (tp && ring_sample__decode(tp, &r->layout, true, &sm) && (ret = writer__callchain(w, &sm, t.ppid, false, NULL, 0)) < 0)
		return ret;
	if ((ret = lp_writer__proc(&w->out, time, t.pid, t.tid, LP_PROC_SPAWN, writer__comm_of(r, t.tid))) < 0 ||
	    (ret = lp_writer__spawn_parent(&w->out, t.ppid, t.ptid, lp_span__of(&w->stack), lp_span__of(&w->locs))) < 0)
		return ret;
	return lp_writer__end(&w->out);
}

/*
 * What of a thread's exact on-CPU time no sample stands for, as a sample of
 * its own: a program that runs a millisecond between fork and exit is
 * seldom sampled at 999 Hz (its counter starts a whole period from its
 * first sample), and a shell loop of them is mostly such time.
 */
static int write_unsampled(struct writer *w, const struct thread_stat *t, uint64_t rest, uint64_t time)
{
	int ret = lp_writer__sample(&w->out, time, t->pid, t->tid, writer__comm_of(w->r, t->tid), "cpu", rest,
				    LP_SPAN(SYM_NOT_SAMPLED), LP_SPAN(""));

	w->stats->unsampled_ns += rest;
	w->stats->unsampled_threads += !t->sampled_cpu;
	return ret ?: lp_writer__attr_str(&w->out, "unsampled", "1") ?: lp_writer__end(&w->out);
}

/*
 * A thread's T record: start, end (when it ended), its exact on-CPU time where
 * the kernel said, and what the samples say; then, when the two disagree by
 * more than the tolerance, a #lp.warning naming it.
 */
int writer__write_thread(struct writer *w, const struct thread_stat *thread, uint64_t time, bool ended)
{
	struct thread_stat s = *thread, *t = &s;
	const char *comm = writer__comm_of(w->r, t->tid);
	char text[256];
	const char *v[1] = { text };
	int ret;

	/*
	 * A thread's task-clock total as it exits is the clock its samples were
	 * weighed by, to the end of its exit: the off-CPU program's
	 * sum_exec_runtime is read at sched_process_exit, and the exit's work
	 * after it was 5% of a /bin/true here, where a sample taken in it
	 * outweighed the figure. The command's main thread gave no total as it
	 * exited: its own is what the whole tree's total does not owe to the
	 * others, where the off-CPU program gave none.
	 */
	if (t->has_clock) {
		t->cpu = t->clock;
		t->has_cpu = true;
	} else if (t->has_cpu) {
		/* a thread that ran before it was attached to: its time since (-p, -a) */
		t->cpu -= recorder__cpu_before(w->r, t->tid, t->cpu);
	} else if (t->tid == w->r->child && w->r->clock_total >= w->clocks_read && w->r->clock_total) {
		t->cpu = w->r->clock_total - w->clocks_read;
		t->has_cpu = true;
	}
	/*
	 * Only for threads followed from their start or attach: -a and -C
	 * sample some CPUs, not a thread's every run. A thread cannot run
	 * longer than it lived: task-clock's totals count twice when the kernel
	 * throttles sampling.
	 */
	if (perf_opts__samples(&w->r->o.perf) && !w->r->o.perf.system_wide && t->has_cpu) {
		uint64_t cpu = t->has_start && time > t->start && t->cpu > time - t->start ? time - t->start : t->cpu;

		if (cpu > t->sampled_cpu && (ret = write_unsampled(w, t, cpu - t->sampled_cpu, time)) < 0)
			return ret;
	}
	if ((ret = lp_writer__thread(&w->out, time, t->pid, t->tid, comm)) < 0 ||
	    (t->has_start && (ret = lp_writer__attr_u64(&w->out, "start", t->start)) < 0) ||
	    (ended && (ret = lp_writer__attr_u64(&w->out, "end", time)) < 0) ||
	    (t->has_cpu && (ret = lp_writer__attr_u64(&w->out, "cpu", t->cpu)) < 0) ||
	    (perf_opts__samples(&w->r->o.perf) && (ret = lp_writer__attr_u64(&w->out, "sampled-cpu", t->sampled_cpu)) < 0) ||
	    (w->r->offcpu && (ret = lp_writer__attr_u64(&w->out, "sampled-offcpu", t->sampled_offcpu)) < 0) ||
	    (ret = lp_writer__end(&w->out)) < 0)
		return ret;
	/* a thread's first 100 ms are too few samples to judge */
	if (!perf_opts__samples(&w->r->o.perf) || !thread_stat__strays(t, w->r->o.time_tolerance, 100000000))
		return 0;
	snprintf(text, sizeof(text), "thread %s (pid %d, tid %d): sampled on-CPU time %.3f s, exact %.3f s",
		 comm, (int)t->pid, (int)t->tid, (double)t->sampled_cpu / 1e9, (double)t->cpu / 1e9);
	if (!w->stats->strayed_threads++)
		snprintf(w->stats->first_strayed, sizeof(w->stats->first_strayed), "%s", text);
	return lp_writer__meta(&w->out, "warning", v, 1);
}

/* The summaries of the threads still alive when recording ended (attached, or system-wide). */
int writer__write_living_threads(struct writer *w)
{
	struct thread_stat *t;
	int ret = 0;

	for (size_t i = 0; ret == 0 && (t = thread_stats__next(w->threads, &i));) {
		if (!t->has_cpu)
			t->has_cpu = thread_stats__cpu_so_far(t->pid, t->tid, &t->cpu);
		ret = writer__write_thread(w, t, w->r->end_ns, false);
	}
	return ret;
}

/* 1 + the index of the tracepoint sample of the FORK record at index fork, or 0 */
size_t writer__fork_sample(const struct writer *w, size_t fork)
{
	uint64_t h = hash_mix(fork);
	const struct fork_sample *e;

	for (size_t k = h; w->fork_samples.n && (e = htab__at(&w->fork_samples, k))->head.used; k++)
		if (e->head.hash == h && e->fork == fork)
			return e->sample + 1;
	return 0;
}

static int remember_fork_sample(struct writer *w, size_t fork, size_t sample)
{
	uint64_t h = hash_mix(fork);
	struct fork_sample *e;

	if (htab__reserve(&w->fork_samples) < 0)
		return -ENOMEM;
	for (size_t k = h; (e = htab__at(&w->fork_samples, k))->head.used; k++)
		if (e->head.hash == h && e->fork == fork)
			break;
	if (!e->head.used)
		htab__insert(&w->fork_samples, e, h);
	e->fork = fork;
	e->sample = sample;
	return 0;
}

/* Matches each FORK record of from..to with the tracepoint sample of the same child, taken in the parent. */
int writer__match_fork_stacks(struct writer *w, size_t from, size_t to)
{
	struct recorder *r = w->r;

	for (size_t i = from; i < to; i++) {
		const struct perf_event_header *h = r->index[i].h;
		struct ring_sample sm;
		int32_t child;

		if (!r->index[i].fork_sample)
			continue;
		if (!ring_sample__decode(h, &r->layout, true, &sm) || sm.raw_size < r->fork_child_offset + 4)
			continue;
		memcpy(&child, sm.raw + r->fork_child_offset, 4);
		/* the FORK record is near in time: search around */
		for (size_t j = i > FORK_WINDOW ? i - FORK_WINDOW : 0; j < w->visible && j < i + FORK_WINDOW; j++) {
			struct perf_task t;

			if (r->index[j].type != PERF_RECORD_FORK)
				continue;
			perf_task__decode(r->index[j].h, &t);
			if (t.tid == child) {
				if (remember_fork_sample(w, j, i) < 0)
					return -ENOMEM;
				break;
			}
		}
	}
	return 0;
}
