/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "roofline/fpclass.h"

#include <stdbool.h>
#include <string.h>

/* the mnemonic into m (lower case), and where the operands start */
static const char *mnemonic(const char *s, char *m, size_t size)
{
	size_t n = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	while (*s && *s != ' ' && *s != '\t') {
		char c = *s++;

		if (n + 1 < size)
			m[n++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
	}
	m[n] = 0;
	return s;
}

static bool one_of(const char *s, size_t len, const char *const *set)
{
	for (; *set; set++)
		if (strlen(*set) == len && memcmp(s, *set, len) == 0)
			return true;
	return false;
}

static bool ends_with(const char *s, size_t len, const char *tail)
{
	size_t n = strlen(tail);

	return len >= n && memcmp(s + len - n, tail, n) == 0;
}

/*
 * A fused multiply-add's stem, VEX's (f[n]m{add,sub,addsub,subadd} and the
 * operand order 132, 213 or 231) or FMA4's (no order).
 */
static bool x86_fused(const char *s, size_t len)
{
	static const char *const stems[] = { "fmadd", "fmsub", "fnmadd", "fnmsub", "fmaddsub", "fmsubadd", NULL };

	if (len >= 3 && (memcmp(s + len - 3, "132", 3) == 0 || memcmp(s + len - 3, "213", 3) == 0 ||
			 memcmp(s + len - 3, "231", 3) == 0))
		len -= 3;
	return one_of(s, len, stems);
}

static int x86_classify(const char *d, struct fp_op *op)
{
	static const char *const sse[] = { "add", "sub", "mul", "div", "sqrt", "min", "max", "addsub", "hadd",
					   "hsub", "rcp", "rsqrt", "rcp14", "rsqrt14", NULL };
	/* x87, with AT&T's operand-size suffixes */
	static const char *const x87[] = { "fadd", "faddp", "fiadd", "fsub", "fsubp", "fisub", "fsubr", "fsubrp",
					   "fisubr", "fmul", "fmulp", "fimul", "fdiv", "fdivp", "fidiv", "fdivr",
					   "fdivrp", "fidivr", "fsqrt", NULL };
	char m[32];
	const char *operands = mnemonic(d, m, sizeof(m)), *s = m;
	size_t len = strlen(m);
	bool packed, dp;

	if (one_of(m, len, x87) || (len > 1 && strchr("slt", m[len - 1]) && one_of(m, len - 1, x87))) {
		*op = (struct fp_op){ 1, FP_SCALAR, FP_DP };
		return 1;
	}
	if (len < 4)
		return 0;
	if (ends_with(m, len, "ps") || ends_with(m, len, "ss"))
		dp = false;
	else if (ends_with(m, len, "pd") || ends_with(m, len, "sd"))
		dp = true;
	else
		return 0;
	packed = m[len - 2] == 'p';
	len -= 2;
	if (*s == 'v') {
		s++;
		len--;
	}
	if (x86_fused(s, len))
		op->flops = 2;
	else if (one_of(s, len, sse))
		op->flops = 1;
	else
		return 0;
	op->precision = dp ? FP_DP : FP_SP;
	op->width = !packed			 ? FP_SCALAR :
		    strstr(operands, "%zmm") ? FP_V512 :
		    strstr(operands, "%ymm") ? FP_V256 :
					       FP_V128;
	if (packed)
		op->flops *= (op->width == FP_V512 ? 512 : op->width == FP_V256 ? 256 : 128) / (dp ? 64 : 32);
	return 1;
}

/*
 * Lanes and precision of an arm64 destination: "v0.4s" (4 single), "v1.2d",
 * "d0" (scalar double), "s3"; 0 for half precision and what is not FP.
 */
static unsigned arm64_lanes(const char *reg, struct fp_op *op)
{
	while (*reg == ' ' || *reg == '\t')
		reg++;
	if (*reg == 'v') {
		unsigned lanes = 0;

		reg++;
		while (*reg >= '0' && *reg <= '9')
			reg++;
		if (*reg++ != '.')
			return 0;
		while (*reg >= '0' && *reg <= '9')
			lanes = lanes * 10 + (unsigned)(*reg++ - '0');
		/* 64- and 128-bit vectors: 2s, 4s, 1d, 2d */
		if (!(*reg == 's' && (lanes == 2 || lanes == 4)) && !(*reg == 'd' && (lanes == 1 || lanes == 2)))
			return 0;
		op->precision = *reg == 'd' ? FP_DP : FP_SP;
		op->width = FP_V128;
		return lanes;
	}
	if ((*reg == 'd' || *reg == 's') && reg[1] >= '0' && reg[1] <= '9') {
		op->precision = *reg == 'd' ? FP_DP : FP_SP;
		op->width = FP_SCALAR;
		return 1;
	}
	return 0;
}

static int arm64_classify(const char *d, struct fp_op *op)
{
	static const char *const two[] = { "fmla", "fmls", "fmadd", "fmsub", "fnmadd", "fnmsub", "frecps", "frsqrts",
					   NULL };
	static const char *const one[] = { "fadd", "fsub", "fmul", "fdiv", "fsqrt", "fmin", "fmax", "fminnm",
					   "fmaxnm", "fabd", "fmulx", "fnmul", "faddp", "fmaxp", "fminp", "fmaxnmp",
					   "fminnmp", "frecpe", "frsqrte", NULL };
	char m[32];
	const char *operands = mnemonic(d, m, sizeof(m)), *reg = operands;
	size_t len = strlen(m);
	unsigned per_lane, lanes;

	if (one_of(m, len, two))
		per_lane = 2;
	else if (one_of(m, len, one))
		per_lane = 1;
	else
		return 0;
	while (*reg == ' ' || *reg == '\t')
		reg++;
	if (*reg == 'z' && reg[1] >= '0' && reg[1] <= '9')
		return -1;	/* SVE: as many lanes as the vector length and the predicate give */
	lanes = arm64_lanes(reg, op);
	if (!lanes)
		return 0;
	op->flops = per_lane * lanes;
	return 1;
}

int fpclass__classify(enum fp_arch arch, const char *disassembly, struct fp_op *op)
{
	if (!disassembly)
		return 0;
	return arch == FP_ARM64 ? arm64_classify(disassembly, op) : x86_classify(disassembly, op);
}

const char *fp_width__isa(enum fp_width w, enum fp_arch arch)
{
	switch (w) {
	case FP_SCALAR:
		return "scalar";
	case FP_V128:
		return arch == FP_ARM64 ? "neon" : "sse";
	case FP_V256:
		return "avx2";
	case FP_V512:
		return "avx512";
	default:
		return "?";
	}
}

const char *fp_precision__name(enum fp_precision p)
{
	return p == FP_SP ? "sp" : "dp";
}
