/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Built without frame pointers (see the Makefile): functions whose frames
 * (~12 KB of locals) outgrow lp-record's user stack snapshot, as bzip2's
 * mainSort does. Unwinding cannot reach past them; what it must not do is
 * make callers up out of stack data.
 *
 *   bigframe [SECONDS]         (default 1)
 *   bigframe decoy [SECONDS]   the same, with %rbp pointing at a made-up
 *                              frame record {0, &decoy + 1} outside the
 *                              stack: frame-pointer walking finds a caller
 *                              "decoy" that is code, and no caller at all
 *   bigframe walkend [SECONDS] a function with a frame pointer and a frame as
 *                              big, called from one without a frame that
 *                              holds 0 in %rbp (as gcc's cc1: %rbp is any
 *                              register there): the kernel's frame-pointer
 *                              walk ends at the caller, which is not a root
 *   bigframe scratch [SECONDS] a small spinning function called from one
 *                              without a frame pointer whose frame is as big
 *                              and holds a made-up frame record {0, &decoy + 1}
 *                              that %rbp, its scratch register, points at:
 *                              CFI stops at the caller, and the kernel's
 *                              walk finds "decoy" where the stack was data;
 *                              then the same with a spinning function that
 *                              keeps a frame pointer (its record is right,
 *                              the next is the made-up one), called directly
 *                              and through one that leaves %rbp alone (as
 *                              clock_gettime calls the vdso); that caller
 *                              spins as long itself (CFI cannot take even its
 *                              own frame)
 *   bigframe stale [SECONDS]   spin_leaf called from holder, without a frame
 *                              pointer, whose %rbp points at a made-up
 *                              frame record {0, &decoy + 1} among its own
 *                              locals (make's code left one at a live
 *                              frame), called from stale_frame, whose 12 KB
 *                              frame CFI cannot pass: the walk's "decoy" is
 *                              inside the frames CFI unwound, no caller of
 *                              stale_frame
 *   bigframe nap [N]           N naps of 10 ms (20) in a function with 1.2 KB
 *                              of locals: off-CPU stacks need that much of a
 *                              snapshot to reach main
 *   bigframe deepnap [N]       the same with 7 KB of locals: more than 4 KB
 *                              under main, and less than a 16 KB copy over
 *                              the stack pointer holds (the stack ends first)
 *   bigframe deep [SECONDS]    a recursion of 200 small frames (16 KB in
 *                              all, within the default snapshot) that spins
 *                              at its bottom: far more callers without frame
 *                              pointers than CFI takes in one go (32)
 *   bigframe deepnaps [N]      N naps of 10 ms (20) at the bottom of the
 *                              same recursion 120 frames deep (10 KB: within
 *                              an off-CPU snapshot)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sorts its own 12 KB of counts, again and again: the frame is the data. */
__attribute__((noinline)) static unsigned sort_block(unsigned seed)
{
	unsigned counts[3072];

	for (size_t i = 0; i < 3072; i++)
		counts[i] = seed = seed * 1103515245u + 12345u;
	for (size_t i = 1; i < 3072; i++) {
		unsigned v = counts[i];
		size_t j = i;

		while (j > 0 && counts[j - 1] > v && i - j < 64) {
			counts[j] = counts[j - 1];
			j--;
		}
		counts[j] = v;
	}
	return counts[seed % 3072];
}

__attribute__((noinline)) static unsigned compress(double seconds)
{
	double start = now();
	unsigned x = 1;

	while (now() - start < seconds)
		x += sort_block(x);
	return x;
}

__attribute__((noinline)) void decoy(void)
{
	puts("decoy is never called");
}

#if defined(__x86_64__)
static const void *fake_record[2];

/* Spins with %rbp at fake_record, in a frame as big as sort_block's. */
__attribute__((noinline)) static unsigned spin_astray(unsigned seed)
{
	volatile unsigned counts[3072];
	unsigned long n = 20000000;

	/* in pages the kernel can copy into a sample: they were touched */
	for (size_t i = 0; i < 3072; i++)
		counts[i] = seed + i;
	__asm__ volatile("mov %1, %%rbp\n1:\tdec %0\n\tjnz 1b" : "+r"(n) : "r"(fake_record) : "rbp", "cc");
	return counts[seed % 3072] + (unsigned)n;
}

__attribute__((noinline)) static unsigned astray(double seconds)
{
	double start = now();
	unsigned x = 1;

	fake_record[0] = NULL;
	fake_record[1] = (const char *)decoy + 1;
	while (now() - start < seconds)
		x += spin_astray(x);
	return x;
}
#endif

#if defined(__x86_64__)
/* Keeps a frame pointer, in a program built without them. */
__attribute__((noinline, optimize("no-omit-frame-pointer"))) static unsigned framed_spin(unsigned seed)
{
	volatile unsigned counts[3072];

	for (size_t i = 0; i < 3072; i++)
		counts[i] = seed + i;
	for (unsigned long n = 0; n < 2000000; n++)
		counts[n % 3072] += (unsigned)n;
	return counts[seed % 3072];
}

__attribute__((noinline)) static unsigned walk_end(double seconds)
{
	double start = now();
	unsigned x = 1;

	while (now() - start < seconds) {
		/* %rbp as code without frame pointers uses it: not a frame record */
		__asm__ volatile("xor %%ebp, %%ebp" : : : "rbp");
		x += framed_spin(x);
	}
	return x;
}

__attribute__((noinline)) static unsigned spin_leaf(unsigned long n)
{
	while (n--)
		__asm__ volatile("");
	return (unsigned)n;
}

__attribute__((noipa)) static unsigned nothing(unsigned x)
{
	return x;
}

/*
 * spin_leaf keeping a frame pointer, as the vdso's clock_gettime does: its
 * own record is a right one (it calls nothing: gcc keeps no frame pointer in
 * a leaf, whatever the attribute says)
 */
__attribute__((noipa, optimize("no-omit-frame-pointer"))) static unsigned spin_leaf_fp(unsigned long n)
{
	while (n--)
		__asm__ volatile("");
	return nothing((unsigned)n) + 1;
}

/* Calls spin_leaf_fp leaving %rbp alone, as libc's clock_gettime calls the vdso's */
__attribute__((noipa)) static unsigned pass_through(unsigned long n)
{
	return spin_leaf_fp(n) + 1;
}

__attribute__((noinline)) static unsigned scratch_frame(double seconds)
{
	const void *volatile big[1536];	/* 12 KB: its top is past the snapshot */
	double start = now();
	unsigned x = 1;

	for (size_t i = 0; i < 1536; i++)
		big[i] = NULL;
	big[1535] = (const char *)decoy + 1;
	while (now() - start < seconds) {
		unsigned long n = 20000000;

		__asm__ volatile("mov %0, %%rbp" : : "r"(&big[1534]) : "rbp");
		x += spin_leaf(20000000);
		/* the record it saved %rbp in leads to the made-up one: a walk from it must stop there too */
		__asm__ volatile("mov %0, %%rbp" : : "r"(&big[1534]) : "rbp");
		x += spin_leaf_fp(20000000);
		/* the same through a function that leaves %rbp as it found it */
		__asm__ volatile("mov %0, %%rbp" : : "r"(&big[1534]) : "rbp");
		x += pass_through(20000000);
		/* %rbp at the made-up record while this function is the one sampled */
		__asm__ volatile("mov %1, %%rbp\n1:\tdec %0\n\tjnz 1b" : "+r"(n) : "r"(&big[1534]) : "rbp", "cc");
	}
	return x + (big[7] != NULL);
}

/* Calls spin_leaf with %rbp at a frame record among its locals: stale data, not its frame. */
__attribute__((noinline)) static unsigned holder(unsigned long n)
{
	const void *volatile record[2] = { NULL, (const char *)decoy + 1 };

	__asm__ volatile("mov %0, %%rbp" : : "r"(record) : "rbp");
	return spin_leaf(n) + (record[0] != NULL);
}

__attribute__((noinline, optimize("no-omit-frame-pointer"))) static unsigned stale_frame(double seconds)
{
	volatile unsigned big[3072];	/* 12 KB: its top is past the snapshot */
	double start = now();
	unsigned x = 1;

	for (size_t i = 0; i < 3072; i++)
		big[i] = (unsigned)i;
	while (now() - start < seconds)
		x += holder(20000000);
	return x + big[x % 3072];
}

static const void *no_record[2];
#endif

/*
 * NAME sleeps in a frame of WORDS unsigned ints (touched: the pages are
 * there to copy), with %rbp at no frame record, as code without frame
 * pointers leaves it. A macro: the frame's size is the array's, fixed.
 */
#if defined(__x86_64__)
#define CLEAR_RBP() __asm__ volatile("mov %0, %%rbp" : : "r"(no_record) : "rbp")
#else
#define CLEAR_RBP() ((void)0)
#endif
#define DOZE(name, words)                                       \
	__attribute__((noinline)) static unsigned name(unsigned seed) \
	{                                                       \
		volatile unsigned scratch[words];               \
		struct timespec ts = { 0, 10000000 };           \
                                                                \
		for (size_t i = 0; i < (words); i++)            \
			scratch[i] = seed + i;                  \
		CLEAR_RBP();                                    \
		nanosleep(&ts, NULL);                           \
		return scratch[seed % (words)];                 \
	}

DOZE(doze, 300)		/* 1.2 KB */
DOZE(doze_deep, 1800)	/* 7 KB */

/* The bottom of deep_down: naps 10 ms naps times where naps > 0, else spins for seconds. */
__attribute__((noipa)) static unsigned deep_spin(double seconds, long naps)
{
	struct timespec ts = { 0, 10000000 };
	double start = now();
	unsigned x = 1;

	for (long i = 0; i < naps; i++)
		nanosleep(&ts, NULL);
	while (naps <= 0 && now() - start < seconds)
		for (int i = 0; i < 100000; i++)
			x = x * 1103515245u + 12345u;
	return x;
}

/*
 * deep_down of level 0 calls deep_spin at level levels (levels + 1 frames of
 * it on the stack); a sample on the way down or up shows fewer.
 */
__attribute__((noinline, noclone)) static unsigned deep_down(int level, int levels, double seconds, long naps)
{
	volatile unsigned pad[4];

	pad[0] = (unsigned)level;
	if (level == levels)
		return deep_spin(seconds, naps) + pad[0];
	return deep_down(level + 1, levels, seconds, naps) + pad[0];
}

/* The modes that set %rbp with x86-64 assembly, and what each runs for SECONDS. */
static const char *const x86_modes[] = { "decoy", "walkend", "scratch", "stale" };
#if defined(__x86_64__)
static unsigned (*const x86_runs[])(double) = { astray, walk_end, scratch_frame, stale_frame };
#endif

int main(int argc, char **argv)
{
	if (argc > 1 && (strcmp(argv[1], "nap") == 0 || strcmp(argv[1], "deepnap") == 0)) {
		unsigned (*nap)(unsigned) = argv[1][0] == 'd' ? doze_deep : doze;
		unsigned x = 0;

		for (long i = 0, n = argc > 2 ? atol(argv[2]) : 20; i < n; i++)
			x += nap(x);
		printf("%u\n", x);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "deep") == 0) {
		printf("%u\n", deep_down(0, 200, argc > 2 ? atof(argv[2]) : 1, 0));
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "deepnaps") == 0) {
		printf("%u\n", deep_down(0, 120, 0, argc > 2 ? atol(argv[2]) : 20));
		return 0;
	}
	for (size_t i = 0; argc > 1 && i < sizeof(x86_modes) / sizeof(x86_modes[0]); i++) {
		if (strcmp(argv[1], x86_modes[i]) != 0)
			continue;
#if defined(__x86_64__)
		printf("%u\n", x86_runs[i](argc > 2 ? atof(argv[2]) : 1));
		return 0;
#else
		fprintf(stderr, "bigframe: %s is for x86-64\n", argv[1]);
		return 2;
#endif
	}
	printf("%u\n", compress(argc > 1 ? atof(argv[1]) : 1));
	return 0;
}
