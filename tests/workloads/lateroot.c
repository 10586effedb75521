/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A thread whose stacks show what is rootward of libc's thread entry only
 * late in its life. For its first SECONDS it spins in deep_work, whose 12 KB
 * frame outgrows lp-record's stack snapshot: CFI stops there, and frame
 * pointers take the stack to start_thread, which keeps none, so its callers
 * are unknown. For its last tenth of that it spins in shallow_work, whose
 * whole stack fits the snapshot: CFI unwinds it to clone3. Every stack of
 * the thread has one root all the same: clone3;start_thread;worker.
 *
 *   lateroot [SECONDS]   (default 0.5)
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void __attribute__((noinline)) deep_work(double seconds)
{
	volatile unsigned counts[3072];
	double until = now() + seconds;

	while (now() < until)
		for (unsigned i = 0; i < 3072; i++)
			counts[i] = counts[(i * 7) % 3072] * 1103515245u + i;
	sink += counts[0];
}

static void __attribute__((noinline)) shallow_work(double seconds)
{
	double until = now() + seconds;

	while (now() < until)
		for (int i = 0; i < 100000; i++)
			sink = sink * 6364136223846793005UL + (unsigned long)i;
}

static void *worker(void *arg)
{
	double seconds = *(double *)arg;

	deep_work(seconds);
	shallow_work(seconds / 10);
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.5;
	pthread_t t;

	if (pthread_create(&t, NULL, worker, &seconds) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	return 0;
}
