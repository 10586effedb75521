/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a code region's marks cost when nobody records (bench/regions.sh): a
 * small loop body entered and left N times as a region, built with the
 * probes (a nop each) and without (-DLP_REGION_NONE). Prints "elapsed S".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lp/region.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000000;
	volatile unsigned long x = 0;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		LP_REGION_BEGIN(step);
		x += (unsigned long)i * 3;
		LP_REGION_END(step);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("elapsed %.6f\n", (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
}
