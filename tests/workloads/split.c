/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A workload with a known split of CPU time, for lp-record's fidelity tests:
 * 60% in sixty_percent (thread "sixty"), 30% in thirty_percent (thread
 * "thirty"), 10% in ten_percent in a child process that execs this program
 * again ("split --ten", named "tenner"). Shares are of CPU time, measured with
 * the threads' own CPU clocks, so they hold whatever the scheduler does.
 *
 * Other modes: --jit (code in anonymous memory named by /tmp/perf-PID.map;
 * --jit-nomap without the map),
 * --syscalls (kernel time), --memcpy (time in libc), --early (a child that
 * exits at once), --deep (time 200 calls deep: deeper than a stack snapshot
 * reaches), --sleep S, --exit N.
 * The base unit of CPU time is SPLIT_SECONDS (default 1).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Distinct constants keep the compiler from folding the functions into one. */
#define BURN(name, k)                                                          \
	static void __attribute__((noinline)) name(double seconds)             \
	{                                                                      \
		double until = cpu_seconds() + seconds;                        \
		unsigned long x = sink;                                        \
		while (cpu_seconds() < until)                                  \
			for (int i = 0; i < 20000; i++)                        \
				x = x * 6364136223846793005UL + (k);           \
		sink = x;                                                      \
	}

BURN(sixty_percent, 1442695040888963407UL)
BURN(thirty_percent, 1442695040888963409UL)
BURN(ten_percent, 1442695040888963411UL)
BURN(after_early_child, 1442695040888963413UL)

static double unit(void)
{
	const char *s = getenv("SPLIT_SECONDS");

	return s ? atof(s) : 1.0;
}

static void *sixty(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "sixty");
	sixty_percent(0.6 * unit());
	return NULL;
}

static void *thirty(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "thirty");
	thirty_percent(0.3 * unit());
	return NULL;
}

static int split(const char *self)
{
	pthread_t a, b;
	pid_t child = fork();
	int status;

	if (child == 0) {
		execl(self, self, "--ten", (char *)NULL);
		_exit(127);
	}
	pthread_create(&a, NULL, sixty, NULL);
	pthread_create(&b, NULL, thirty, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	waitpid(child, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* A loop written as machine code into anonymous memory, as a JIT would: mov ecx, n; dec ecx; jnz; ret */
static int jit(int with_map)
{
	static const unsigned char code[] = { 0xB9, 0x00, 0xE1, 0xF5, 0x05, 0xFF, 0xC9, 0x75, 0xFC, 0xC3 };
	unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char path[64];
	FILE *map;
	double until;

	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem, code, sizeof(code));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if (with_map) {
		map = fopen(path, "w");
		if (!map)
			return 1;
		fprintf(map, "%lx %zx jitted_loop\n", (unsigned long)mem, sizeof(code));
		fclose(map);
	}
	until = cpu_seconds() + 0.3 * unit();
	while (cpu_seconds() < until)
		((void (*)(void))mem)();
	return 0;
}

static void __attribute__((noinline)) make_syscalls(double seconds)
{
	double until = cpu_seconds() + seconds;
	char c = 0;
	FILE *f = fopen("/dev/null", "w");

	while (cpu_seconds() < until)
		for (int i = 0; i < 1000; i++)
			if (fwrite(&c, 1, 1, f) != 1 || fflush(f) != 0)
				break;
	fclose(f);
}

/* Big copies: the samples land in libc's memcpy, which has no frame pointer. */
static void __attribute__((noinline)) copy_loop(double seconds)
{
	static char a[1 << 20], b[1 << 20];
	double until = cpu_seconds() + seconds;

	while (cpu_seconds() < until) {
		memcpy(a, b, sizeof(a));
		/* read the copy, or the compiler drops it as a dead store */
		b[sink % sizeof(b)] += a[sink % sizeof(a)];
		sink++;
	}
}

/* Spins at the bottom of depth nested calls, each frame kept (no tail calls). */
static double __attribute__((noinline)) dive(int depth, double seconds)
{
	volatile char frame[16] = { 0 };
	double until;

	if (depth > 0)
		return dive(depth - 1, seconds) + frame[depth % 16];
	until = cpu_seconds() + seconds;
	while (cpu_seconds() < until)
		sink++;
	return frame[0];
}

static int early(void)
{
	pid_t child = fork();

	if (child == 0)
		_exit(3);
	waitpid(child, NULL, 0);
	after_early_child(0.2 * unit());
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (strcmp(mode, "--ten") == 0) {
		prctl(PR_SET_NAME, "tenner");
		ten_percent(0.1 * unit());
		return 0;
	}
	if (strcmp(mode, "--jit") == 0)
		return jit(1);
	if (strcmp(mode, "--jit-nomap") == 0)
		return jit(0);
	if (strcmp(mode, "--syscalls") == 0) {
		make_syscalls(0.3 * unit());
		return 0;
	}
	if (strcmp(mode, "--memcpy") == 0) {
		copy_loop(0.3 * unit());
		return 0;
	}
	if (strcmp(mode, "--early") == 0)
		return early();
	if (strcmp(mode, "--deep") == 0)
		return (int)dive(200, 0.3 * unit());
	if (strcmp(mode, "--sleep") == 0) {
		printf("sleeping\n");
		fflush(stdout);
		sleep(argc > 2 ? (unsigned)atoi(argv[2]) : 10);
		return 0;
	}
	if (strcmp(mode, "--exit") == 0)
		return argc > 2 ? atoi(argv[2]) : 0;
	return split(argv[0]);
}
