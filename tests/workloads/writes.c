/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Known numbers of events, for the custom event tests: exactly N write(2)
 * calls of 5 bytes to /dev/null from emit(), then P freshly mapped pages
 * touched once each from touch() (huge pages off for them: one fault a
 * page). Prints "writes N fd FD pages P faults F emit_s S touch_s S" on
 * stderr, F being the minor faults touch() really took (getrusage), S the
 * seconds emit() and touch() took (the cost a profiler adds to them).
 *
 *   writes [N [P]]   (default 1000 writes, 2000 pages)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) static void emit(int fd, long n)
{
	for (long i = 0; i < n; i++)
		if (write(fd, "hello", 5) != 5)
			exit(1);
}

__attribute__((noinline)) static long touch(long pages)
{
	long size = sysconf(_SC_PAGESIZE);
	struct rusage before, after;
	volatile char *p = mmap(NULL, (size_t)(pages * size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0);

	if (p == MAP_FAILED)
		exit(1);
	madvise((void *)p, (size_t)(pages * size), MADV_NOHUGEPAGE);
	getrusage(RUSAGE_SELF, &before);
	for (long i = 0; i < pages; i++)
		p[i * size] = 1;
	getrusage(RUSAGE_SELF, &after);
	return after.ru_minflt - before.ru_minflt;
}

/* What the workload itself takes, under a profiler or not: its own cost, apart from the profiler's start and end. */
static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, pages = argc > 2 ? atol(argv[2]) : 2000, faults;
	double t0, t1, t2;
	int fd = open("/dev/null", O_WRONLY);

	if (fd < 0)
		return 1;
	t0 = seconds();
	emit(fd, n);
	t1 = seconds();
	faults = touch(pages);
	t2 = seconds();
	fprintf(stderr, "writes %ld fd %d pages %ld faults %ld emit_s %.6f touch_s %.6f\n", n, fd, pages, faults,
		t1 - t0, t2 - t1);
	return 0;
}
