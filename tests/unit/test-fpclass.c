/* SPDX-License-Identifier: GPL-2.0-or-later */
/* FP arithmetic from disassembly, as QEMU 7.2's disassemblers print it (x86-64 AT&T, arm64). */
#include <stdio.h>

#include "roofline/fpclass.h"
#include "tap.h"

struct want {
	enum fp_arch arch;
	const char *text;
	int ret;
	unsigned flops;
	enum fp_width width;
	enum fp_precision precision;
};

static const struct want cases[] = {
	/* x86-64: scalar, packed by register width, FMA twice a lane, VEX or not */
	{ FP_X86_64, "addsd %xmm1, %xmm0", 1, 1, FP_SCALAR, FP_DP },
	{ FP_X86_64, "vmulss (%rax), %xmm1, %xmm0", 1, 1, FP_SCALAR, FP_SP },
	{ FP_X86_64, "mulpd (%rsi, %rax), %xmm1", 1, 2, FP_V128, FP_DP },
	{ FP_X86_64, "addps %xmm2, %xmm3", 1, 4, FP_V128, FP_SP },
	{ FP_X86_64, "vaddpd %ymm2, %ymm1, %ymm0", 1, 4, FP_V256, FP_DP },
	{ FP_X86_64, "vfmadd213pd (%rcx, %rax), %ymm0, %ymm1", 1, 8, FP_V256, FP_DP },
	{ FP_X86_64, "vfmadd231ps %ymm2, %ymm1, %ymm0", 1, 16, FP_V256, FP_SP },
	{ FP_X86_64, "vfnmsub132sd %xmm2, %xmm1, %xmm0", 1, 2, FP_SCALAR, FP_DP },
	{ FP_X86_64, "vfmaddsub231pd %xmm2, %xmm1, %xmm0", 1, 4, FP_V128, FP_DP },
	{ FP_X86_64, "vaddpd %zmm2, %zmm1, %zmm0", 1, 8, FP_V512, FP_DP },
	{ FP_X86_64, "sqrtsd %xmm1, %xmm0", 1, 1, FP_SCALAR, FP_DP },
	{ FP_X86_64, "vdivps %ymm1, %ymm2, %ymm3", 1, 8, FP_V256, FP_SP },
	{ FP_X86_64, "minpd %xmm1, %xmm0", 1, 2, FP_V128, FP_DP },
	{ FP_X86_64, "haddps %xmm1, %xmm0", 1, 4, FP_V128, FP_SP },
	{ FP_X86_64, "rsqrtps %xmm1, %xmm0", 1, 4, FP_V128, FP_SP },
	/* x87, with AT&T's size suffix */
	{ FP_X86_64, "faddp %st(1)", 1, 1, FP_SCALAR, FP_DP },
	{ FP_X86_64, "fmull 8(%rsp)", 1, 1, FP_SCALAR, FP_DP },
	{ FP_X86_64, "fsqrt ", 1, 1, FP_SCALAR, FP_DP },
	/* not arithmetic: moves, logic, compares, conversions, integer look-alikes */
	{ FP_X86_64, "movsd (%rax), %xmm0", 0, 0, 0, 0 },
	{ FP_X86_64, "vmovapd %ymm1, (%rdx, %rax)", 0, 0, 0, 0 },
	{ FP_X86_64, "xorps %xmm0, %xmm0", 0, 0, 0, 0 },
	{ FP_X86_64, "cmpltpd %xmm1, %xmm0", 0, 0, 0, 0 },
	{ FP_X86_64, "cvtss2sd %xmm1, %xmm0", 0, 0, 0, 0 },
	{ FP_X86_64, "vpmaxsd %ymm1, %ymm2, %ymm3", 0, 0, 0, 0 },
	{ FP_X86_64, "pabsd %xmm1, %xmm0", 0, 0, 0, 0 },
	{ FP_X86_64, "paddd %xmm1, %xmm0", 0, 0, 0, 0 },
	{ FP_X86_64, "addq $0x20, %rax", 0, 0, 0, 0 },
	{ FP_X86_64, "vbroadcastsd (%rax), %ymm0", 0, 0, 0, 0 },
	{ FP_X86_64, "fld %st(0)", 0, 0, 0, 0 },
	{ FP_X86_64, "", 0, 0, 0, 0 },
	/* arm64: vector lanes from the arrangement, scalar from the register */
	{ FP_ARM64, "fmla v2.2d, v4.2d, v3.2d", 1, 4, FP_V128, FP_DP },
	{ FP_ARM64, "fmla v0.4s, v1.4s, v2.s[1]", 1, 8, FP_V128, FP_SP },
	{ FP_ARM64, "fdiv v1.2s, v1.2s, v2.2s", 1, 2, FP_V128, FP_SP },
	{ FP_ARM64, "fadd d0, d0, d2", 1, 1, FP_SCALAR, FP_DP },
	{ FP_ARM64, "fmadd s0, s1, s2, s3", 1, 2, FP_SCALAR, FP_SP },
	{ FP_ARM64, "faddp d0, v1.2d", 1, 1, FP_SCALAR, FP_DP },
	{ FP_ARM64, "fadd v0.8h, v1.8h, v2.8h", 0, 0, 0, 0 },
	{ FP_ARM64, "fadd v0.99s, v1.4s, v2.4s", 0, 0, 0, 0 },
	{ FP_ARM64, "fmov v1.4s, #1.00000000", 0, 0, 0, 0 },
	{ FP_ARM64, "fcvtzs w0, d0", 0, 0, 0, 0 },
	{ FP_ARM64, "ldr q2, [x3, x0]", 0, 0, 0, 0 },
	/* SVE: lanes known only when it runs */
	{ FP_ARM64, "fmla z0.d, p0/m, z1.d, z2.d", -1, 0, 0, 0 },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct want *w = &cases[i];
		struct fp_op op = { 0 };
		int ret = fpclass__classify(w->arch, w->text, &op);
		char name[160];

		snprintf(name, sizeof(name), "'%s': %d, %u FLOPs, %s %s", w->text, w->ret, w->flops,
			 fp_width__isa(w->width, w->arch), fp_precision__name(w->precision));
		if (ret != 1 || w->ret != 1) {
			ok(ret == w->ret, name);
			continue;
		}
		ok(op.flops == w->flops && op.width == w->width && op.precision == w->precision, name);
	}
	ok(fpclass__classify(FP_X86_64, NULL, NULL) == 0, "no disassembly: not FP");
	return tap_done();
}
