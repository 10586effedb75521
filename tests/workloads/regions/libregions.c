/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The region of a library loaded with dlopen (tests/workloads/regions.c). */
#include <time.h>

#include "lp/region.h"

void plugin(void);

void plugin(void)
{
	struct timespec ts;
	double end;
	volatile unsigned long x = 0;

	LP_REGION_BEGIN(plugin);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	end = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + 0.1;
	do {
		for (int i = 0; i < 1000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	} while ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 < end);
	LP_REGION_END(plugin);
}
