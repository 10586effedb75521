/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A recursion that goes down slowly: each of LEVELS calls of descend (a
 * 512-byte frame each, 200 KB in all at the default) spins SECONDS/LEVELS,
 * then calls the next. Most of its stacks are far deeper than lp-record's
 * stack copy; each is a little deeper than the one sampled before it. The
 * number of descend frames a sample shows can only grow with its time, and
 * every stack starts at _start;...;main. The deepest level exits: there is
 * no way back up to sample (a return of 400 levels takes microseconds, but
 * one run in 15 under load had two samples on it: the thread's clock ran
 * 2 ms there, most likely while the host had stopped this VM's CPU).
 *
 *   descend [SECONDS [LEVELS]]   (default 1 400)
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void __attribute__((noinline)) descend(int level, int levels, double per_level)
{
	volatile unsigned char pad[512];
	double until = now() + per_level;

	pad[0] = (unsigned char)level;
	while (now() < until)
		sink = sink * 6364136223846793005UL + pad[0];
	if (level == levels)
		exit(0);
	descend(level + 1, levels, per_level);
	sink += pad[0];
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1;
	int levels = argc > 2 ? atoi(argv[2]) : 400;

	if (levels < 1)
		return 2;
	descend(1, levels, seconds / levels);
	return 0;
}
