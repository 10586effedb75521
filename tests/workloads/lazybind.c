/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Time in the dynamic loader's lazy binding: run with LD_BIND_NOT=1, every
 * call of a library function goes through its PLT entry to glibc's
 * _dl_runtime_resolve, which realigns the stack and keeps its frame's
 * address in rbx (its CFI says so), then to _dl_fixup's symbol lookup. A
 * sample there unwinds to main only through rbx: main;resolve_often;
 * _dl_runtime_resolve_xsavec;_dl_fixup;...
 *
 *   LD_BIND_NOT=1 lazybind [SECONDS]   (default 1)
 */
#include <stdlib.h>
#include <time.h>

static volatile long sink;
static const char *volatile number = "42";

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* atol is called through the PLT: not a builtin gcc folds, nor a vDSO call */
static void __attribute__((noinline)) resolve_often(double seconds)
{
	double until = now() + seconds;

	while (now() < until)
		for (int i = 0; i < 1000; i++)
			sink += atol(number);
}

int main(int argc, char **argv)
{
	resolve_often(argc > 1 ? atof(argv[1]) : 1.0);
	return 0;
}
