/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Code regions for lp-record: mark the phases of a program, and every metric
 * of lp (flame graphs, timeline, report, roofline points) is also given per
 * phase.
 *
 *	#include <lp/region.h>
 *
 *	LP_REGION_BEGIN(solver);
 *	solve(grid);
 *	LP_REGION_END(solver);
 *
 * Each mark is a USDT probe (<sys/sdt.h>, Debian's systemtap-sdt-dev): a nop
 * in the code and an ELF note, so a program nobody profiles pays nothing, and
 * perf, bpftrace and BCC see the same probes ("lp:solver__begin",
 * "lp:solver__end"). NAME is an identifier. Regions nest, per thread.
 *
 * Where a macro cannot be used (Fortran through bind(C), other languages),
 * the functions lp_region_begin("name") and lp_region_end("name") do the same
 * (define LP_REGION_FUNCTIONS in one C file that includes this header, or
 * link lp's liblp-region): their probes, "lp:region_begin" and
 * "lp:region_end", pass the name in a buffer on the stack, where lp-record's
 * copy of the stack finds it. A name is cut to LP_REGION_NAME_MAX - 1 bytes.
 */
#ifndef LP_REGION_H
#define LP_REGION_H

#include <sys/sdt.h>

/* (-DLP_REGION_NONE compiles the marks out, to compare: bench/regions.sh) */
#ifdef LP_REGION_NONE
#define LP_REGION_BEGIN(name) ((void)0)
#define LP_REGION_END(name) ((void)0)
#else
#define LP_REGION_BEGIN(name) STAP_PROBE(lp, name##__begin)
#define LP_REGION_END(name) STAP_PROBE(lp, name##__end)
#endif

enum { LP_REGION_NAME_MAX = 64 };

#ifdef __cplusplus
extern "C" {
#endif

void lp_region_begin(const char *name);
void lp_region_end(const char *name);

#ifdef __cplusplus
}
#endif

#ifdef LP_REGION_FUNCTIONS
#include <string.h>

/* (not inlined: one probe for every caller, its argument the buffer on this frame) */
__attribute__((noinline)) void lp_region_begin(const char *name)
{
	char buf[LP_REGION_NAME_MAX];

	strncpy(buf, name, sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = 0;
	STAP_PROBE1(lp, region_begin, buf);
	__asm__ volatile("" : : "r"(buf) : "memory");
}

__attribute__((noinline)) void lp_region_end(const char *name)
{
	char buf[LP_REGION_NAME_MAX];

	strncpy(buf, name, sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = 0;
	STAP_PROBE1(lp, region_end, buf);
	__asm__ volatile("" : : "r"(buf) : "memory");
}
#endif

#endif
