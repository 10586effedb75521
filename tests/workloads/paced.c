/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Events that come slowly, for the ring tests: exactly N getppid(2) calls,
 * US microseconds apart, so a ring the recorder does not wait on fills long
 * before a poll's timeout while one it waits on is read in time.
 *
 *   paced [N [US]]   (default 400 calls, 1000 us apart)
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 400, us = argc > 2 ? atol(argv[2]) : 1000;
	struct timespec gap = { us / 1000000, us % 1000000 * 1000 };

	for (long i = 0; i < n; i++) {
		getppid();
		nanosleep(&gap, NULL);
	}
	return 0;
}
