/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Known FLOPs for lp-roofline: triad() does a[i] = b[i] + s * c[i] over n
 * doubles, reps times: 2 FLOPs, 2 loads and a store of 8 bytes each per
 * element; the setup in main adds a few thousand more FLOPs, nothing else.
 * Usage: flops [REPS]; says "truth triad FLOPS BYTES" on stderr.
 */
#include <stdio.h>
#include <stdlib.h>

#define N 4096

static double a[N], b[N], c[N];

__attribute__((noinline)) static void triad(double s, long n)
{
	for (long i = 0; i < n; i++)
		a[i] = b[i] + s * c[i];
}

int main(int argc, char **argv)
{
	long reps = argc > 1 ? atol(argv[1]) : 200000;

	for (long i = 0; i < N; i++) {
		b[i] = (double)i;
		c[i] = 1.0 / (double)(i + 1);
	}
	for (long r = 0; r < reps; r++)
		triad(0.5 + (double)(r & 1), N);
	fprintf(stderr, "truth triad %ld %ld\n", 2L * N * reps, 24L * N * reps);
	return a[N - 1] < 0;
}
