/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Blocking beside exiting threads, for the off-CPU loss test: a "sleeper"
 * thread sleeps 1 ms at a time in nap() while the main thread keeps starting
 * short-lived threads that exit at once, all on the CPUs the test pins them
 * to, so threads exit (and free their BPF task storage) on the CPU where the
 * sleeper wakes. Prints "naps N blocked M threads T" on stderr: M is how many times the
 * sleeper really left the CPU to wait (its voluntary context switches; a
 * nap whose timer expired first does not block), each one blocked interval;
 * T how many short-lived threads were started.
 *
 *   churn [ROUNDS]   (default 400 naps)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static volatile int done;
static long blocked;	/* the sleeper's voluntary context switches: its real blocked intervals */

__attribute__((noinline)) static void nap(void)
{
	struct timespec ts = { 0, 1000000 };

	nanosleep(&ts, NULL);
}

static void *sleeper(void *arg)
{
	long rounds = (long)arg;
	struct rusage before, after;

	getrusage(RUSAGE_THREAD, &before);
	for (long i = 0; i < rounds; i++)
		nap();
	getrusage(RUSAGE_THREAD, &after);
	blocked = after.ru_nvcsw - before.ru_nvcsw;
	done = 1;
	return NULL;
}

static void *brief(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 400;
	pthread_t s, t;
	long threads = 0;

	if (rounds <= 0 || pthread_create(&s, NULL, sleeper, (void *)rounds) != 0)
		return 1;
	while (!done) {
		if (pthread_create(&t, NULL, brief, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
		threads++;
	}
	pthread_join(s, NULL);
	fprintf(stderr, "naps %ld blocked %ld threads %ld\n", rounds, blocked, threads);
	return 0;
}
