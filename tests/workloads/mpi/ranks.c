/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An MPI job whose ranks do known, different amounts of work, for lp-record
 * under mpirun: rank r burns (r + 1) * MS milliseconds of its own CPU time in
 * burn(), then every rank meets at a barrier. Prints "rank R of N burnt MS ms"
 * on stderr.
 *
 *   mpirun -np 2 ranks [MS]   (default 200)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double thread_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static double burn(double ms)
{
	double start = thread_ms(), x = 0;

	while (thread_ms() - start < ms)
		for (int i = 0; i < 10000; i++)
			x += i * 0.5;
	return x;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 200, start, x;
	int rank, size;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	start = thread_ms();
	x = burn((rank + 1) * ms);
	fprintf(stderr, "rank %d of %d burnt %.0f ms\n", rank, size, thread_ms() - start);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return x < 0;
}
