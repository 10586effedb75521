/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "carm.h"

#include <errno.h>
#include <string.h>

static const char *const isa_names[CARM_NISA] = { "scalar", "sse", "avx2", "avx512", "neon" };

const char *carm_isa__name(enum carm_isa isa)
{
	return isa < CARM_NISA ? isa_names[isa] : "?";
}

int carm_isa__parse(const char *name, enum carm_isa *isa)
{
	for (int i = 0; i < CARM_NISA; i++)
		if (strcmp(name, isa_names[i]) == 0) {
			*isa = i;
			return 0;
		}
	return -EINVAL;
}

const char *carm_precision__name(enum carm_precision p)
{
	return p == CARM_DP ? "dp" : "sp";
}

const char *carm_op__name(enum carm_op op)
{
	static const char *const names[CARM_NOP] = { "add", "mul", "fma" };

	return op < CARM_NOP ? names[op] : "?";
}

#if defined(__x86_64__)
bool carm_isa__supported(enum carm_isa isa)
{
	__builtin_cpu_init();
	switch (isa) {
	case CARM_SCALAR:
	case CARM_SSE:
		return __builtin_cpu_supports("sse3");
	case CARM_AVX2:
		return __builtin_cpu_supports("avx2");
	case CARM_AVX512:
		return __builtin_cpu_supports("avx512f");
	default:
		return false;
	}
}

bool carm_isa__has_fma(enum carm_isa isa)
{
	/* scalar and 128-bit FMA are VEX-encoded: they need AVX as well */
	return carm_isa__supported(isa) && __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx");
}
#elif defined(__aarch64__)
#include <sys/auxv.h>

/* Linux's HWCAP bits for arm64 (asm/hwcap.h) */
enum { LP_HWCAP_FP = 1 << 0, LP_HWCAP_ASIMD = 1 << 1 };

/* FMLA and FMADD come with FP and Advanced SIMD, which every AArch64 Linux CPU has */
bool carm_isa__supported(enum carm_isa isa)
{
	unsigned long hwcap = getauxval(AT_HWCAP);

	return (isa == CARM_SCALAR && (hwcap & LP_HWCAP_FP)) || (isa == CARM_NEON && (hwcap & LP_HWCAP_ASIMD));
}

bool carm_isa__has_fma(enum carm_isa isa)
{
	return carm_isa__supported(isa);
}
#else
bool carm_isa__supported(enum carm_isa isa)
{
	(void)isa;
	return false;
}

bool carm_isa__has_fma(enum carm_isa isa)
{
	(void)isa;
	return false;
}
#endif

unsigned carm_isa__width(enum carm_isa isa, enum carm_precision p)
{
	static const unsigned widths[CARM_NISA] = { 8, 16, 32, 64, 16 };

	if (isa == CARM_SCALAR)
		return p == CARM_DP ? 8 : 4;
	return isa < CARM_NISA ? widths[isa] : 0;
}
