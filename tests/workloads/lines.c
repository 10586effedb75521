/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Known hot source lines, for lp-lines: loop() runs a heavy loop (3 parts of
 * the work) on one line and a light one (1 part) on the next, for SECONDS of
 * CPU time.
 *
 *   lines [SECONDS]   (default 1)
 */
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long loop(long n)
{
	volatile unsigned long heavy = 0, light = 0;

	for (long i = 0; i < 3 * n; i++) heavy += (unsigned long)i * 7;
	for (long i = 0; i < n; i++) light += (unsigned long)i * 7;
	return heavy + light;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1, start = cpu_seconds();
	unsigned long sum = 0;

	while (cpu_seconds() - start < seconds)
		sum += loop(1000000);
	return sum == 42;
}
