/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stack pages the program has not touched yet: the kernel copies no page of
 * a stack into a sample that it would have to fault in, so what is above
 * such a page is not in the copy, however big a copy was asked for.
 *
 *   (SECONDS of CPU time)
 *   freshstack hole [SECONDS]   spins in a function whose 64 KB frame it
 *                               never touched but at its bottom: every
 *                               sample's copy ends at the page above
 *   freshstack late [SECONDS]   in a thread of its own (a fresh stack), spins
 *                               half the time in a function whose 16 KB frame
 *                               it has touched only at its bottom, then
 *                               writes all of it and spins as long: the
 *                               second half's whole stacks show the first's
 *                               callers
 *   freshstack fault [SECONDS]  forks children that each write a 4 MB frame
 *                               page by page from its top down: each write
 *                               faults a page in, and a sample taken in the
 *                               fault finds not even the page at the stack
 *                               pointer there (as inside an execve)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HOLE_BYTES (64 * 1024)
#define FAULT_BYTES (4 * 1024 * 1024)
#define LATE_BYTES (16 * 1024)

/*
 * The calling thread's CPU time: SECONDS are of the CPU, so a machine busy
 * with other work gives as many samples as an idle one.
 */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The CPU time of the children waited for, which do fault()'s work. */
static double children_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_CHILDREN, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

__attribute__((noinline)) static unsigned spin_over_hole(double seconds)
{
	volatile unsigned char frame[HOLE_BYTES];
	double start = now();
	unsigned x = 1;

	frame[0] = 1;
	while (now() - start < seconds)
		for (int i = 0; i < 100000; i++)
			x = x * 1103515245u + 12345u + frame[0];
	return x;
}

__attribute__((noinline)) static unsigned hole(double seconds)
{
	return spin_over_hole(seconds) + 1;
}

static inline __attribute__((always_inline)) unsigned spin_until(double start, double seconds, unsigned x,
								 volatile unsigned char *data)
{
	while (now() - start < seconds)
		for (int i = 0; i < 100000; i++)
			x = x * 1103515245u + 12345u + *data;
	return x;
}

__attribute__((noinline)) static unsigned spin_late(double seconds)
{
	volatile unsigned char frame[LATE_BYTES];
	double start = now();
	unsigned x;

	frame[0] = 1;
	x = spin_until(start, seconds / 2, 1, &frame[0]);
	for (size_t i = 0; i < LATE_BYTES; i += 64)
		frame[i] = (unsigned char)i;
	return spin_until(start, seconds, x, &frame[0]);
}

static void *late_thread(void *seconds)
{
	static unsigned result;

	result = spin_late(*(double *)seconds);
	return &result;
}

__attribute__((noinline)) static unsigned late(double seconds)
{
	pthread_t thread;
	void *result;

	if (pthread_create(&thread, NULL, late_thread, &seconds) != 0 || pthread_join(thread, &result) != 0) {
		fprintf(stderr, "freshstack: no thread\n");
		exit(1);
	}
	return *(unsigned *)result;
}

__attribute__((noinline)) static unsigned touch_down(void)
{
	volatile unsigned char frame[FAULT_BYTES];

	for (size_t i = FAULT_BYTES; i >= 4096; i -= 4096)
		frame[i - 1] = (unsigned char)i;
	return frame[FAULT_BYTES - 1];
}

__attribute__((noinline)) static unsigned fault(double seconds)
{
	unsigned children = 0;

	/* the parent never touches that deep: each child's pages are its own first touches */
	while (children_cpu() < seconds) {
		pid_t pid = fork();
		int status;

		if (pid < 0) {
			perror("freshstack: fork");
			exit(1);
		}
		if (pid == 0)
			_exit((int)touch_down() & 1);
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) {
			fprintf(stderr, "freshstack: a child failed\n");
			exit(1);
		}
		children++;
	}
	return children;
}

int main(int argc, char **argv)
{
	double seconds = argc > 2 ? atof(argv[2]) : 1;

	if (argc > 1 && strcmp(argv[1], "hole") == 0)
		printf("%u\n", hole(seconds));
	else if (argc > 1 && strcmp(argv[1], "late") == 0)
		printf("%u\n", late(seconds));
	else if (argc > 1 && strcmp(argv[1], "fault") == 0)
		printf("%u children\n", fault(seconds));
	else {
		fprintf(stderr, "usage: freshstack hole|late|fault [SECONDS]\n");
		return 2;
	}
	return 0;
}
