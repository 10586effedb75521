/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Code regions of known CPU time, for the region tests (lp/region.h): each
 * region spins on its thread's CPU clock, so its share does not depend on
 * what else runs.
 *
 *   main thread   setup 100 ms, then solver 300 ms holding inner 100 ms
 *   thread "worker"  worker 150 ms, beside the solver
 *   libregions.so, loaded with dlopen: plugin 100 ms
 *   the function form: lp_region_begin("io") ... 50 ms
 *
 * "regions bad" also ends a region that never began (orphan) and leaves one
 * open as its second thread exits (unclosed). "regions late" prints "ready"
 * on stdout and begins once lp-record -p has attached its probes.
 */
#define _GNU_SOURCE	/* dl_iterate_phdr */
#define LP_REGION_FUNCTIONS
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "lp/region.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ms of this thread's CPU time */
static void spin(double ms)
{
	double end = cpu_now() + ms / 1e3;
	volatile unsigned long x = 0;

	while (cpu_now() < end)
		for (int i = 0; i < 1000; i++)
			x += (unsigned long)i;
}

static int bad;

struct text {
	const unsigned char *at;
	size_t len;
};

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct text *t = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD && info->dlpi_phdr[i].p_flags & PF_X) {
			t->at = (const unsigned char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
			t->len = info->dlpi_phdr[i].p_memsz;
		}
	return 1;	/* the program is the first object listed */
}

/*
 * Waits for lp-record -p: a probe attached is a breakpoint the kernel writes
 * into this program's code, which the program sees as its code changing. The
 * probes of a file are attached together, one CPU after another, within
 * milliseconds: the 100 ms after the first change cover the rest. A fixed
 * wait instead lost the first region whenever lp-record started slowly
 * (built with ASan).
 */
static void await_probes(void)
{
	struct text t = { 0 };
	unsigned char *before;

	dl_iterate_phdr(find_text, &t);
	if (!t.at || !(before = malloc(t.len))) {
		fprintf(stderr, "regions: cannot find the program's code\n");
		exit(1);
	}
	memcpy(before, t.at, t.len);
	printf("ready\n");
	fflush(stdout);
	for (int ms = 0; memcmp(before, t.at, t.len) == 0; ms++) {
		if (ms == 60000) {
			fprintf(stderr, "regions: no probe attached in a minute\n");
			exit(1);
		}
		usleep(1000);
	}
	free(before);
	usleep(100000);
}

static void *worker(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "worker");
	LP_REGION_BEGIN(worker);
	spin(150);
	LP_REGION_END(worker);
	if (bad) {
		LP_REGION_BEGIN(unclosed);
		spin(10);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static char lib[4096];	/* (not on the stack: a frame that big outgrows the copy a spawn takes) */
	void *h;
	void (*plugin)(void);
	pthread_t t;
	const char *slash = strrchr(argv[0], '/');

	bad = argc > 1 && strcmp(argv[1], "bad") == 0;
	if (argc > 1 && strcmp(argv[1], "late") == 0)
		await_probes();
	LP_REGION_BEGIN(setup);
	spin(100);
	LP_REGION_END(setup);
	if (bad)
		LP_REGION_END(orphan);
	pthread_create(&t, NULL, worker, NULL);
	LP_REGION_BEGIN(solver);
	spin(200);
	LP_REGION_BEGIN(inner);
	spin(100);
	LP_REGION_END(inner);
	LP_REGION_END(solver);
	pthread_join(t, NULL);
	/* the library beside the program */
	snprintf(lib, sizeof(lib), "%.*slibregions.so", slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
	if (!(h = dlopen(lib, RTLD_NOW)) || !(plugin = (void (*)(void))dlsym(h, "plugin"))) {
		fprintf(stderr, "regions: %s\n", dlerror());
		return 1;
	}
	/* lp-record attaches a library's probes once it sees it mapped */
	usleep(100000);
	plugin();
	lp_region_begin("io");
	spin(50);
	lp_region_end("io");
	return 0;
}
