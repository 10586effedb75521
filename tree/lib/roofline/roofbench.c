/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "roofline/roofbench.h"

#include <errno.h>
#include <numa.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

struct barrier {
	atomic_uint waiting, generation;
	unsigned n;
};

/* Spins rather than sleeps: waking a sleeping thread on another CPU costs more than a run here. */
static void barrier__wait(struct barrier *b)
{
	unsigned gen = atomic_load_explicit(&b->generation, memory_order_acquire);

	if (atomic_fetch_add_explicit(&b->waiting, 1, memory_order_acq_rel) + 1 == b->n) {
		atomic_store_explicit(&b->waiting, 0, memory_order_relaxed);
		atomic_fetch_add_explicit(&b->generation, 1, memory_order_release);
		return;
	}
	while (atomic_load_explicit(&b->generation, memory_order_acquire) == gen)
		cpu_relax();
}

enum job_kind { JOB_MEMORY, JOB_FP, JOB_CLOCK };

struct job {
	const struct roof_bench_opts *o;
	enum job_kind kind;
	carm_mem_fn *mem;
	carm_fp_fn *fp;
	size_t bytes;		/* per thread */
	uint64_t count;		/* passes or iterations per run, set by thread 0 */
	struct barrier barrier;
	uint64_t *start, *end;	/* [thread * runs + run] */
	atomic_int error;
};

struct worker {
	struct job *job;
	unsigned index;
	int cpu;
	pthread_t thread;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void run_once(struct job *j, void *buf, uint64_t count)
{
	switch (j->kind) {
	case JOB_MEMORY:
		j->mem(buf, j->bytes, count);
		break;
	case JOB_FP:
		j->fp(count);
		break;
	case JOB_CLOCK:
		carm__clock_chain(count);
		break;
	}
}

/* Thread 0 doubles the work of a run until it lasts run_seconds. */
static uint64_t calibrate(struct job *j, void *buf)
{
	uint64_t count = j->kind == JOB_MEMORY ? 1 : 1024, want = (uint64_t)(j->o->run_seconds * 1e9);

	for (;;) {
		uint64_t t = now_ns();

		run_once(j, buf, count);
		t = now_ns() - t;
		if (t >= want || count > (UINT64_MAX >> 2))
			return count;
		/* jump close when far below, then double */
		count = t < want / 16 && t > 0 ? count * (want / t) / 2 + 1 : count * 2;
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct job *j = w->job;
	unsigned runs = j->o->runs;
	cpu_set_t set;
	void *buf = NULL;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		atomic_store(&j->error, -errno);
	carm__flush_denormals();
	if (j->kind == JOB_MEMORY) {
		/* touched here first, so its pages are on this thread's node */
		buf = mmap(NULL, j->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED) {
			atomic_store(&j->error, -ENOMEM);
			buf = NULL;
		} else {
			memset(buf, 1, j->bytes);
		}
	}
	barrier__wait(&j->barrier);
	if (w->index == 0 && !atomic_load(&j->error))
		j->count = calibrate(j, buf);
	barrier__wait(&j->barrier);
	for (unsigned r = 0; r < runs; r++) {
		barrier__wait(&j->barrier);
		if (atomic_load_explicit(&j->error, memory_order_relaxed))
			continue;
		j->start[w->index * runs + r] = now_ns();
		run_once(j, buf, j->count);
		j->end[w->index * runs + r] = now_ns();
	}
	if (buf)
		munmap(buf, j->bytes);
	return NULL;
}

unsigned roof_bench__cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	return (unsigned)CPU_COUNT(&set);
}

/* The CPUs the threads go to: this process's, in order, or taking NUMA nodes in turn. */
static int pick_cpus(const struct roof_bench_opts *o, int *cpus)
{
	cpu_set_t set;
	int all[CPU_SETSIZE], n = 0, taken = 0;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return -errno;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			all[n++] = c;
	if (o->threads == 0 || o->threads > (unsigned)n)
		return -ERANGE;
	if (o->interleaved && numa_available() >= 0) {
		int nodes = numa_max_node() + 1;

		/* node 0's first CPU, node 1's first, ..., node 0's second, ... */
		for (int round = 0; taken < (int)o->threads && round < n; round++)
			for (int node = 0; node < nodes && taken < (int)o->threads; node++) {
				int seen = 0;

				for (int i = 0; i < n; i++)
					if (numa_node_of_cpu(all[i]) == node && seen++ == round) {
						cpus[taken++] = all[i];
						break;
					}
			}
		if (taken == (int)o->threads)
			return 0;
	}
	for (unsigned i = 0; i < o->threads; i++)
		cpus[i] = all[i];
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Runs the job on every thread; the median run's nanoseconds in *ns, the work of one thread's run in j->count. */
static int run_job(struct job *j, uint64_t *ns)
{
	const struct roof_bench_opts *o = j->o;
	struct worker *w = calloc(o->threads, sizeof(*w));
	int *cpus = calloc(o->threads, sizeof(*cpus));
	uint64_t *runs = calloc(o->runs, sizeof(*runs));
	unsigned started = 0;
	int ret;

	j->start = calloc((size_t)o->threads * o->runs, sizeof(uint64_t));
	j->end = calloc((size_t)o->threads * o->runs, sizeof(uint64_t));
	if (!w || !cpus || !runs || !j->start || !j->end) {
		ret = -ENOMEM;
		goto cleanup;
	}
	if (o->runs == 0) {
		ret = -EINVAL;
		goto cleanup;
	}
	if ((ret = pick_cpus(o, cpus)) < 0)
		goto cleanup;
	j->barrier.n = o->threads;
	for (; started < o->threads; started++) {
		w[started] = (struct worker){ .job = j, .index = started, .cpu = cpus[started] };
		if (pthread_create(&w[started].thread, NULL, work, &w[started]) != 0) {
			/* the started ones wait at the barrier for the rest: run them alone */
			atomic_store(&j->error, -EAGAIN);
			j->barrier.n = started;
			break;
		}
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(w[i].thread, NULL);
	if ((ret = atomic_load(&j->error)) < 0)
		goto cleanup;
	for (unsigned r = 0; r < o->runs; r++) {
		uint64_t first = UINT64_MAX, last = 0;

		for (unsigned t = 0; t < o->threads; t++) {
			if (j->start[t * o->runs + r] < first)
				first = j->start[t * o->runs + r];
			if (j->end[t * o->runs + r] > last)
				last = j->end[t * o->runs + r];
		}
		runs[r] = last > first ? last - first : 1;
	}
	qsort(runs, o->runs, sizeof(*runs), cmp_u64);
	*ns = o->runs % 2 ? runs[o->runs / 2] : (runs[o->runs / 2 - 1] + runs[o->runs / 2]) / 2;
	ret = 0;
cleanup:
	free(w);
	free(cpus);
	free(runs);
	free(j->start);
	free(j->end);
	return ret;
}

int roof_bench__memory(const struct roof_bench_opts *o, enum carm_isa isa, enum carm_precision p, unsigned loads,
		       unsigned stores, size_t bytes_per_thread, struct roof_rate *out)
{
	struct job j = { .o = o, .kind = JOB_MEMORY };
	size_t chunk = carm__mem_chunk(isa, p, loads, stores);
	uint64_t ns;
	double total;
	int ret;

	if (!carm_isa__supported(isa) || !(j.mem = carm__mem_kernel(isa, p, loads, stores)) || !chunk)
		return -ENOTSUP;
	j.bytes = bytes_per_thread / chunk * chunk;
	if (j.bytes == 0)
		j.bytes = chunk;
	if ((ret = run_job(&j, &ns)) < 0)
		return ret;
	total = (double)j.bytes * (double)j.count * o->threads;
	out->seconds = ns / 1e9;
	out->per_second = total / out->seconds;
	out->instructions_per_second = out->per_second / carm_isa__width(isa, p);
	return 0;
}

int roof_bench__fp(const struct roof_bench_opts *o, enum carm_isa isa, enum carm_precision p, enum carm_op op,
		   struct roof_rate *out)
{
	struct job j = { .o = o, .kind = JOB_FP };
	uint64_t per_iteration, ns;
	double iterations;
	int ret;

	if (!(op == CARM_FMA ? carm_isa__has_fma(isa) : carm_isa__supported(isa)) ||
	    !(j.fp = carm__fp_kernel(isa, p, op, &per_iteration)))
		return -ENOTSUP;
	if ((ret = run_job(&j, &ns)) < 0)
		return ret;
	iterations = (double)j.count * o->threads;
	out->seconds = ns / 1e9;
	out->per_second = iterations * per_iteration / out->seconds;
	out->instructions_per_second = iterations * CARM_FP_CHAINS / out->seconds;
	return 0;
}

int roof_bench__clock(const struct roof_bench_opts *o, double *hz)
{
	struct roof_bench_opts one = *o;
	struct job j = { .o = &one, .kind = JOB_CLOCK };
	uint64_t ns;
	int ret;

	one.threads = 1;
	if ((ret = run_job(&j, &ns)) < 0)
		return ret;
	*hz = (double)j.count * 8 / (ns / 1e9);
	return 0;
}
