/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Off-CPU benchmark workloads: prints "elapsed SECONDS switches N" for its
 * timed part only, so a tool's start-up is not counted.
 *
 *   pingpong pipe N    two threads pass a byte back and forth N times over pipes
 *   pingpong sleep N   N sleeps of 1 ms with a little work between them
 *
 * With GATE=PATH in the environment it waits for PATH to exist before the
 * timed part (for tools that attach to a running process).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2];
static long rounds;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *echo(void *arg)
{
	char c;

	(void)arg;
	for (long i = 0; i < rounds; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			exit(1);
	return NULL;
}

static long switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

int main(int argc, char **argv)
{
	const char *gate = getenv("GATE");
	volatile double x = 0;
	pthread_t t;
	long sw;
	double t0;
	char c = 'x';

	if (argc != 3 || (strcmp(argv[1], "pipe") && strcmp(argv[1], "sleep"))) {
		fprintf(stderr, "usage: pingpong pipe|sleep N\n");
		return 2;
	}
	rounds = atol(argv[2]);
	while (gate && access(gate, F_OK) != 0)
		usleep(10000);
	if (pipe(ping) || pipe(pong))
		return 1;
	sw = switches();
	t0 = now();
	if (strcmp(argv[1], "pipe") == 0) {
		pthread_create(&t, NULL, echo, NULL);
		for (long i = 0; i < rounds; i++)
			if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
				return 1;
		pthread_join(t, NULL);
	} else {
		struct timespec ms = { 0, 1000000 };

		for (long i = 0; i < rounds; i++) {
			for (int j = 0; j < 20000; j++)
				x += j;
			nanosleep(&ms, NULL);
		}
	}
	printf("elapsed %.6f switches %ld\n", now() - t0, switches() - sw);
	return 0;
}
