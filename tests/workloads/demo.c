/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The demo workload: two threads that spend known shares of their time in
 * known functions (about 60% in crunch_numbers, 30% in parse_records, 10% in
 * checksum), so that a flame graph of it has a shape to recognise.
 * Usage: demo [SECONDS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Each function spins on its own so that samples land in it, not in a helper. */
#define SPIN(name, iterations)                                               \
	static void __attribute__((noinline)) name(void)                     \
	{                                                                    \
		unsigned long x = sink;                                      \
		for (unsigned long i = 0; i < (iterations); i++)             \
			x = x * 6364136223846793005UL + 1442695040888963407UL; \
		sink = x;                                                    \
	}

SPIN(crunch_numbers, 6000000)
SPIN(parse_records, 3000000)
SPIN(checksum, 1000000)

static void *worker(void *arg)
{
	double until = now() + *(double *)arg;

	while (now() < until) {
		crunch_numbers();
		parse_records();
		checksum();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	pthread_t thread;

	if (pthread_create(&thread, NULL, worker, &seconds) != 0) {
		perror("pthread_create");
		return 1;
	}
	worker(&seconds);
	pthread_join(thread, NULL);
	return 0;
}
