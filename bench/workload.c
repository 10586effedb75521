/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A benchmark workload with deep, varied frame-pointer stacks: threads that
 * descend 10 to 40 levels through eight mutually recursive functions along
 * one of 256 paths, then spin. Usage: workload SECONDS [THREADS [LEVELS]],
 * or workload nITERATIONS [THREADS [LEVELS]] for a fixed amount of work (to
 * time). LEVELS: the average depth, each level two frames (default 25: 10
 * to 40 levels; 10 gives stacks of about 23 frames).
 *
 * TIMER_HZ=N (1 to 100000) interrupts each thread N times a second with an empty signal
 * (a timer of its own): what a timer interrupt costs the machine, no
 * profiler there, the floor under a sampling profiler at that rate.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static double seconds;
static long iterations;	/* per thread, if > 0: a fixed amount of work */
static int min_levels = 10, level_range = 31;
static long timer_hz;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef void level_fn(unsigned path, int depth);
static level_fn level0, level1, level2, level3, level4, level5, level6, level7;
static level_fn *const levels[8] = { level0, level1, level2, level3,
				     level4, level5, level6, level7 };

static void __attribute__((noinline)) descend(unsigned path, int depth)
{
	if (depth == 0) {
		unsigned long x = sink;

		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005UL + path;
		sink = x;
		return;
	}
	levels[(path >> (depth % 8)) % 8](path, depth - 1);
}

#define LEVEL(n)                                                               \
	static void __attribute__((noinline)) level##n(unsigned path, int depth) \
	{                                                                      \
		descend(path * 31 + n, depth);                                 \
		sink += n;                                                     \
	}
LEVEL(0) LEVEL(1) LEVEL(2) LEVEL(3) LEVEL(4) LEVEL(5) LEVEL(6) LEVEL(7)

static void on_timer(int sig)
{
	(void)sig;
}

/* (the threads spin: a wall-clock timer of the thread's own ticks as its CPU time would) */
static void interrupt_me(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGPROF };
	struct itimerspec every = { .it_interval.tv_nsec = 1000000000 / timer_hz };
	timer_t timer;

	every.it_value = every.it_interval;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &ev, &timer) == 0)
		timer_settime(timer, 0, &every, NULL);
}

static void *worker(void *arg)
{
	unsigned seed = (unsigned)(unsigned long)arg;
	double until = now() + seconds;

	if (timer_hz > 0)
		interrupt_me();

	for (long i = 0; iterations > 0 ? i < iterations : now() < until; i++) {
		seed = seed * 1103515245 + 12345;
		descend((seed >> 8) % 256, min_levels + (int)((seed >> 16) % (unsigned)level_range));
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 2;
	pthread_t t[64];

	if (argc > 1 && argv[1][0] == 'n')
		iterations = atol(argv[1] + 1);
	else
		seconds = argc > 1 ? atof(argv[1]) : 5;
	if (argc > 3) {
		int levels = atoi(argv[3]);

		if (levels < 2 || levels > 1000)
			return 2;
		min_levels = levels / 2;
		level_range = levels + 1;
	}
	if (threads < 1 || threads > 64)
		return 2;
	if (getenv("TIMER_HZ")) {
		struct sigaction sa = { .sa_handler = on_timer, .sa_flags = SA_RESTART };

		timer_hz = atol(getenv("TIMER_HZ"));
		if (timer_hz < 0 || timer_hz > 100000)
			return 2;
		sigaction(SIGPROF, &sa, NULL);
	}
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(unsigned long)(i + 1));
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
