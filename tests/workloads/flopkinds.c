/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Known FLOPs and bytes of each kind, for lp-roofline record --emulate:
 * kernel() does a[i] = b[i] + s * c[i] over N elements, REPS times, written
 * with the intrinsics of one ISA and precision so that the compiler cannot
 * pick others: 2 FLOPs an element (an FMA is two), two loads and a store of
 * the element's size. "threads" runs the avx2-dp kernel in two threads,
 * "copy" copies N doubles REPS times (no FLOPs, 8 bytes loaded and stored
 * each), "fork" runs the sse-dp kernel in a child process, "avx512" adds
 * with AVX-512 (which QEMU 7.2 cannot run).
 * Usage: flopkinds KIND [REPS]; says "truth FUNCTION FLOPS LOADED STORED" on
 * stderr for each function that does the work.
 */
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 1024

static double ad[N], bd[N], cd[N];
static float af[N], bf[N], cf[N];
static double ta[2][N], tb[2][N], tc[2][N];
static long reps = 2000;

#define NOINLINE __attribute__((noipa))

NOINLINE static void scalar_dp(double *a, const double *b, const double *c, double s)
{
	__m128d k = _mm_set_sd(s);

	for (long i = 0; i < N; i++)
		_mm_store_sd(a + i, _mm_add_sd(_mm_load_sd(b + i), _mm_mul_sd(k, _mm_load_sd(c + i))));
}

NOINLINE static void scalar_sp(float *a, const float *b, const float *c, float s)
{
	__m128 k = _mm_set_ss(s);

	for (long i = 0; i < N; i++)
		_mm_store_ss(a + i, _mm_add_ss(_mm_load_ss(b + i), _mm_mul_ss(k, _mm_load_ss(c + i))));
}

NOINLINE static void sse_dp(double *a, const double *b, const double *c, double s)
{
	__m128d k = _mm_set1_pd(s);

	for (long i = 0; i < N; i += 2)
		_mm_storeu_pd(a + i, _mm_add_pd(_mm_loadu_pd(b + i), _mm_mul_pd(k, _mm_loadu_pd(c + i))));
}

NOINLINE static void sse_sp(float *a, const float *b, const float *c, float s)
{
	__m128 k = _mm_set1_ps(s);

	for (long i = 0; i < N; i += 4)
		_mm_storeu_ps(a + i, _mm_add_ps(_mm_loadu_ps(b + i), _mm_mul_ps(k, _mm_loadu_ps(c + i))));
}

__attribute__((target("avx2,fma"))) NOINLINE static void avx2_dp(double *a, const double *b, const double *c,
								     double s)
{
	__m256d k = _mm256_set1_pd(s);

	for (long i = 0; i < N; i += 4)
		_mm256_storeu_pd(a + i, _mm256_fmadd_pd(k, _mm256_loadu_pd(c + i), _mm256_loadu_pd(b + i)));
}

__attribute__((target("avx2,fma"))) NOINLINE static void avx2_sp(float *a, const float *b, const float *c, float s)
{
	__m256 k = _mm256_set1_ps(s);

	for (long i = 0; i < N; i += 8)
		_mm256_storeu_ps(a + i, _mm256_fmadd_ps(k, _mm256_loadu_ps(c + i), _mm256_loadu_ps(b + i)));
}

__attribute__((target("avx512f"))) NOINLINE static void avx512_dp(double *a, const double *b, const double *c,
								   double s)
{
	__m512d k = _mm512_set1_pd(s);

	for (long i = 0; i < N; i += 8)
		_mm512_storeu_pd(a + i, _mm512_fmadd_pd(k, _mm512_loadu_pd(c + i), _mm512_loadu_pd(b + i)));
}

/* copied 8 bytes at a time, as written (not turned into a call of memcpy) */
__attribute__((optimize("no-tree-loop-distribute-patterns", "no-tree-vectorize"))) NOINLINE static void
copy(double *restrict a, const double *restrict b)
{
	for (long i = 0; i < N; i++)
		a[i] = b[i];
}

static void *worker(void *arg)
{
	long t = (long)arg;

	for (long r = 0; r < reps; r++)
		avx2_dp(ta[t], tb[t], tc[t], 0.5);
	return NULL;
}

static void truth(const char *function, long flops, long loaded, long stored)
{
	fprintf(stderr, "truth %s %ld %ld %ld\n", function, flops, loaded, stored);
}

int main(int argc, char **argv)
{
	const char *kind = argc > 1 ? argv[1] : "";
	long n = (long)N;

	if (argc > 2)
		reps = atol(argv[2]);
	for (long i = 0; i < N; i++) {
		bd[i] = (double)i, cd[i] = 1.0 / (double)(i + 1);
		bf[i] = (float)i, cf[i] = 1.0f / (float)(i + 1);
		tb[0][i] = tb[1][i] = bd[i], tc[0][i] = tc[1][i] = cd[i];
	}
	if (strcmp(kind, "scalar-dp") == 0) {
		for (long r = 0; r < reps; r++)
			scalar_dp(ad, bd, cd, 0.5);
		truth("scalar_dp", 2 * n * reps, 16 * n * reps, 8 * n * reps);
	} else if (strcmp(kind, "scalar-sp") == 0) {
		for (long r = 0; r < reps; r++)
			scalar_sp(af, bf, cf, 0.5f);
		truth("scalar_sp", 2 * n * reps, 8 * n * reps, 4 * n * reps);
	} else if (strcmp(kind, "sse-dp") == 0) {
		for (long r = 0; r < reps; r++)
			sse_dp(ad, bd, cd, 0.5);
		truth("sse_dp", 2 * n * reps, 16 * n * reps, 8 * n * reps);
	} else if (strcmp(kind, "sse-sp") == 0) {
		for (long r = 0; r < reps; r++)
			sse_sp(af, bf, cf, 0.5f);
		truth("sse_sp", 2 * n * reps, 8 * n * reps, 4 * n * reps);
	} else if (strcmp(kind, "avx2-dp") == 0) {
		for (long r = 0; r < reps; r++)
			avx2_dp(ad, bd, cd, 0.5);
		truth("avx2_dp", 2 * n * reps, 16 * n * reps, 8 * n * reps);
	} else if (strcmp(kind, "avx2-sp") == 0) {
		for (long r = 0; r < reps; r++)
			avx2_sp(af, bf, cf, 0.5f);
		truth("avx2_sp", 2 * n * reps, 8 * n * reps, 4 * n * reps);
	} else if (strcmp(kind, "avx512") == 0) {
		for (long r = 0; r < reps; r++)
			avx512_dp(ad, bd, cd, 0.5);
		truth("avx512_dp", 2 * n * reps, 16 * n * reps, 8 * n * reps);
	} else if (strcmp(kind, "copy") == 0) {
		for (long r = 0; r < reps; r++)
			copy(ad, bd);
		truth("copy", 0, 8 * n * reps, 8 * n * reps);
	} else if (strcmp(kind, "fork") == 0) {
		pid_t child = fork();
		int status;

		if (child < 0)
			return 1;
		if (child == 0) {
			for (long r = 0; r < reps; r++)
				sse_dp(ad, bd, cd, 0.5);
			truth("sse_dp", 2 * n * reps, 16 * n * reps, 8 * n * reps);
			_exit(ad[N - 1] < 0);
		}
		if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
	} else if (strcmp(kind, "threads") == 0) {
		pthread_t t[2];

		for (long i = 0; i < 2; i++)
			if (pthread_create(&t[i], NULL, worker, (void *)i) != 0)
				return 1;
		for (long i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		/* per thread */
		truth("avx2_dp", 2 * n * reps, 16 * n * reps, 8 * n * reps);
	} else {
		fprintf(stderr, "usage: flopkinds scalar-dp|scalar-sp|sse-dp|sse-sp|avx2-dp|avx2-sp|avx512|copy|threads|fork "
				"[REPS]\n");
		return 2;
	}
	return ad[N - 1] < 0 || af[N - 1] < 0 || ta[1][N - 1] < 0;
}
