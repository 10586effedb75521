/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The roofline micro-benchmarks: FP and memory kernels in inline asm, one
 * per ISA, precision and operation, so that the instructions each run
 * executes are known exactly; and what the machine says of its caches.
 * Types and limits here; running and timing them is lib/roofline.
 */
#ifndef LP_CARM_H
#define LP_CARM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* x86-64: scalar, SSE, AVX2, AVX-512; arm64: scalar, NEON (the CARM Tool's names) */
enum carm_isa { CARM_SCALAR, CARM_SSE, CARM_AVX2, CARM_AVX512, CARM_NEON, CARM_NISA };
enum carm_precision { CARM_DP, CARM_SP };
enum carm_op { CARM_ADD, CARM_MUL, CARM_FMA, CARM_NOP };

/* "scalar", "sse", "avx2", "avx512", "neon" (the CARM Tool's names); "dp", "sp"; "add", "mul", "fma". */
const char *carm_isa__name(enum carm_isa isa);
int carm_isa__parse(const char *name, enum carm_isa *isa);
const char *carm_precision__name(enum carm_precision p);
const char *carm_op__name(enum carm_op op);

/* Whether this CPU runs the ISA's kernels (fma: whether it has FMA for that ISA). */
bool carm_isa__supported(enum carm_isa isa);
bool carm_isa__has_fma(enum carm_isa isa);

/* Bytes one memory instruction moves: 8 or 4 for scalar, 16, 32, 64. */
unsigned carm_isa__width(enum carm_isa isa, enum carm_precision p);

/* ---- FP kernels ---- */

/*
 * Runs iterations of CARM_FP_CHAINS independent chains of one FP instruction
 * (no loads or stores): iterations * CARM_FP_CHAINS instructions (iterations >= 1).
 */
typedef void carm_fp_fn(uint64_t iterations);

enum { CARM_FP_CHAINS = 12 };

/* The kernel, or NULL when this build has none for it; *flops_per_iteration set. */
carm_fp_fn *carm__fp_kernel(enum carm_isa isa, enum carm_precision p, enum carm_op op, uint64_t *flops_per_iteration);

/* ---- memory kernels ---- */

/*
 * Passes over buf passes times, each pass bytes long (a multiple of
 * carm__mem_chunk), in groups of loads then stores of aligned vectors
 * (movapd-style, buf 64-byte aligned): every byte of buf is loaded or stored
 * once per pass.
 */
typedef void carm_mem_fn(void *buf, size_t bytes, uint64_t passes);

/* The loads:stores ratios with a kernel: 1:0, 0:1, 1:1, 2:1, 3:1, 4:1, 1:2. */
bool carm__mem_ratio_known(unsigned loads, unsigned stores);
/* The kernel, or NULL when this build has none for the ISA or the ratio. */
carm_mem_fn *carm__mem_kernel(enum carm_isa isa, enum carm_precision p, unsigned loads, unsigned stores);

/* The bytes of one unrolled loop iteration: a pass is a multiple of it. */
size_t carm__mem_chunk(enum carm_isa isa, enum carm_precision p, unsigned loads, unsigned stores);

/* ---- the clock ---- */

/* Iterations of 8 dependent integer adds, one cycle each: 8 * iterations cycles (iterations >= 1). */
void carm__clock_chain(uint64_t iterations);

/* FTZ and DAZ on in this thread, so no denormal slows a kernel. */
void carm__flush_denormals(void);

/* ---- caches ---- */

enum { CARM_LEVELS = 3 };

/* One data or unified cache level as the machine describes it. */
struct carm_cache {
	uint64_t size;		/* bytes, 0 when not said */
	unsigned shared_by;	/* logical CPUs sharing one instance (sysfs), 0 when not said */
};

/*
 * Levels 1..3 from sysfs's cpu0/cache (root "" or a copy of /sys for tests):
 * data and unified caches only (the CARM Tool took L1's instruction cache).
 * 0, or -errno when the directory cannot be read.
 */
int carm_cache__sysfs(const char *root, struct carm_cache levels[CARM_LEVELS]);

/* The same from CPUID (Intel leaf 4, AMD 0x8000001d); -ENOTSUP elsewhere. */
int carm_cache__cpuid(struct carm_cache levels[CARM_LEVELS]);

#endif
