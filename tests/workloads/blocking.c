/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Known blocking, for the off-CPU tests: each kind in its own function, its
 * real blocked time measured around the call and printed on stderr as
 * "truth FUNCTION SECONDS", so tests compare samples with what happened.
 *
 *   do_read    a pipe read blocked ~300 ms (thread "reader")
 *   wait_lock  a mutex another thread holds ~200 ms (thread "waiter")
 *   hold_lock  sleeps ~200 ms holding that mutex (thread "locker")
 *   nap        20 sleeps of 50 ms (main thread)
 *   reap       waits ~100 ms for a child process that sleeps in child_nap
 *   spin       ~300 ms on the CPU (main thread), while the reader waits
 *
 * "blocking contend" instead runs one more spinning thread than there are
 * CPUs for 300 ms, so threads wait to run (preempted, state R).
 *
 * "blocking pingpong N" passes a byte N times between two threads over pipes
 * (serve, thread "server", and ask, main thread): pinned to one CPU, each
 * write wakes the other thread, which takes the CPU as the call returns.
 *
 * "blocking grandchild" reads a pipe (in await_grandchild) that a grandchild
 * writes: its child sleeps 100 ms, forks it and exits; it sleeps 100 ms and
 * writes. The process that ends the wait was born during it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int fds[2], held[2];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void truth(const char *what, double seconds)
{
	fprintf(stderr, "truth %s %.6f\n", what, seconds);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

__attribute__((noinline)) static double spin(double seconds)
{
	double start = now(), x = 0;

	while (now() - start < seconds)
		x += 1e-9;
	return x;
}

__attribute__((noinline)) static void do_read(void)
{
	char c;
	double t = now();

	if (read(fds[0], &c, 1) != 1)
		exit(1);
	truth("do_read", now() - t);
}

static void *reader(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "reader");
	do_read();
	return NULL;
}

__attribute__((noinline)) static void hold_lock(void)
{
	double t = now();

	sleep_ms(200);
	truth("hold_lock", now() - t);
}

static void *locker(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "locker");
	pthread_mutex_lock(&lock);
	if (write(held[1], "x", 1) != 1)
		exit(1);
	hold_lock();
	pthread_mutex_unlock(&lock);
	return NULL;
}

__attribute__((noinline)) static void wait_lock(void)
{
	double t = now();

	pthread_mutex_lock(&lock);
	truth("wait_lock", now() - t);
	pthread_mutex_unlock(&lock);
}

static void *waiter(void *arg)
{
	char c;

	(void)arg;
	prctl(PR_SET_NAME, "waiter");
	/* only once the locker holds the mutex */
	if (read(held[0], &c, 1) != 1)
		exit(1);
	wait_lock();
	return NULL;
}

__attribute__((noinline)) static void nap(void)
{
	double t = now();

	for (int i = 0; i < 20; i++)
		sleep_ms(50);
	truth("nap", now() - t);
}

__attribute__((noinline)) static void child_nap(void)
{
	double t = now();

	sleep_ms(100);
	truth("child_nap", now() - t);
}

__attribute__((noinline)) static void reap(pid_t child)
{
	double t = now();

	waitpid(child, NULL, 0);
	truth("reap", now() - t);
}

static void *spinner(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "spinner");
	spin(0.3);
	return NULL;
}

static int contend(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN) + 1;
	pthread_t *t = calloc((size_t)n, sizeof(*t));

	if (!t)
		return 1;
	for (long i = 0; i < n; i++)
		pthread_create(&t[i], NULL, spinner, NULL);
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}

__attribute__((noinline)) static void serve(long n)
{
	char c;

	for (long i = 0; i < n; i++)
		if (read(fds[0], &c, 1) != 1 || write(held[1], &c, 1) != 1)
			exit(1);
}

static void *server(void *arg)
{
	prctl(PR_SET_NAME, "server");
	serve(*(long *)arg);
	return NULL;
}

__attribute__((noinline)) static void ask(long n)
{
	char c = 'x';

	for (long i = 0; i < n; i++)
		if (write(fds[1], &c, 1) != 1 || read(held[0], &c, 1) != 1)
			exit(1);
}

static int pingpong(long n)
{
	pthread_t t;

	if (pipe(fds) || pipe(held))
		return 1;
	pthread_create(&t, NULL, server, &n);
	ask(n);
	pthread_join(t, NULL);
	return 0;
}

__attribute__((noinline)) static int await_grandchild(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? 0 : 1;
}

static int grandchild(void)
{
	int p[2], status;
	pid_t child;

	if (pipe(p))
		return 1;
	child = fork();
	if (child == 0) {
		usleep(100000);
		if (fork() == 0) {
			usleep(100000);
			_exit(write(p[1], "x", 1) == 1 ? 0 : 1);
		}
		_exit(0);
	}
	close(p[1]);
	if (await_grandchild(p[0]))
		return 1;
	return waitpid(child, &status, 0) == child ? 0 : 1;
}

int main(int argc, char **argv)
{
	pthread_t r, l, w;
	pid_t child;

	if (argc > 1 && strcmp(argv[1], "contend") == 0)
		return contend();
	if (argc > 2 && strcmp(argv[1], "pingpong") == 0)
		return pingpong(atol(argv[2]));
	if (argc > 1 && strcmp(argv[1], "grandchild") == 0)
		return grandchild();
	if (pipe(fds) || pipe(held))
		return 1;
	pthread_create(&r, NULL, reader, NULL);
	spin(0.3);
	if (write(fds[1], "x", 1) != 1)
		return 1;
	pthread_join(r, NULL);

	pthread_create(&l, NULL, locker, NULL);
	pthread_create(&w, NULL, waiter, NULL);
	pthread_join(l, NULL);
	pthread_join(w, NULL);

	nap();

	fflush(stderr);
	child = fork();
	if (child == 0) {
		child_nap();
		_exit(0);
	}
	reap(child);
	return 0;
}
