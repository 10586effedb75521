/*
 * Built without frame pointers (see the Makefile): functions whose frames
 * (~12 KB of locals) outgrow lp-record's user stack snapshot, as bzip2's
 * mainSort does. Unwinding cannot reach past them; what it must not do is
 * make callers up out of stack data.
 *
 *   bigframe [SECONDS]   (default 1)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sorts its own 12 KB of counts, again and again: the frame is the data. */
__attribute__((noinline)) static unsigned sort_block(unsigned seed)
{
	unsigned counts[3072];

	for (size_t i = 0; i < 3072; i++)
		counts[i] = seed = seed * 1103515245u + 12345u;
	for (size_t i = 1; i < 3072; i++) {
		unsigned v = counts[i];
		size_t j = i;

		while (j > 0 && counts[j - 1] > v && i - j < 64) {
			counts[j] = counts[j - 1];
			j--;
		}
		counts[j] = v;
	}
	return counts[seed % 3072];
}

__attribute__((noinline)) static unsigned compress(double seconds)
{
	double start = now();
	unsigned x = 1;

	while (now() - start < seconds)
		x += sort_block(x);
	return x;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1;

	printf("%u\n", compress(seconds));
	return 0;
}
