/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Time spent in a signal handler, over the code it interrupted: a timer
 * sends SIGALRM every millisecond while main runs interrupted_work, and the
 * handler (on_tick) spins about half of each millisecond. A sample in the
 * handler has the kernel's signal frame between on_tick and the function it
 * interrupted: main;interrupted_work;<libc's __restore_rt>;on_tick.
 *
 *   signals [SECONDS]   (default 1)
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile unsigned long sink;
static volatile sig_atomic_t ticks;

static void __attribute__((noinline)) on_tick(int sig)
{
	(void)sig;
	for (unsigned long i = 0; i < 300000; i++)
		sink = sink * 6364136223846793005UL + i;
	ticks++;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void __attribute__((noinline)) interrupted_work(double seconds)
{
	double until = now() + seconds;

	while (now() < until)
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	struct itimerval every_ms = { { 0, 1000 }, { 0, 1000 } };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &every_ms, NULL);
	interrupted_work(argc > 1 ? atof(argv[1]) : 1);
	return ticks > 0 ? 0 : 1;
}
