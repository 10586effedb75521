/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The FP arithmetic of one instruction, from its disassembly as QEMU's TCG
 * plugins give it (x86-64 in AT&T syntax, arm64 in Arm's): how many FLOPs
 * it does, at which vector width and precision. What Intel's
 * FP_ARITH_INST_RETIRED counts: add, sub, mul, div, sqrt, min, max, the
 * reciprocal estimates, horizontal and alternating add/sub, one FLOP a lane,
 * a fused multiply-add two; compares, conversions, moves and logic none.
 * x87 arithmetic counts as double precision. Self-contained (libc only):
 * lp-count, the QEMU plugin, is built from it too.
 */
#ifndef LP_FPCLASS_H
#define LP_FPCLASS_H

enum fp_width { FP_SCALAR, FP_V128, FP_V256, FP_V512, FP_NWIDTHS };
enum fp_precision { FP_SP, FP_DP, FP_NPRECISIONS };

struct fp_op {
	unsigned flops;
	enum fp_width width;
	enum fp_precision precision;
};

enum fp_arch { FP_X86_64, FP_ARM64 };

/*
 * 1 with *op for an FP arithmetic instruction, 0 for any other, -1 for one
 * whose FLOPs depend on what only running it tells (SVE's vector length and
 * predicates): counted as none, and said.
 */
int fpclass__classify(enum fp_arch arch, const char *disassembly, struct fp_op *op);

/* "scalar", "sse" / "neon", "avx2", "avx512": the roofs' ISA names (lp-roofline roofs) */
const char *fp_width__isa(enum fp_width w, enum fp_arch arch);
const char *fp_precision__name(enum fp_precision p);

#endif
