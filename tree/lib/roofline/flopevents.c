/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "roofline/flopevents.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

static const struct flop_event table[] = {
	{ "fp_arith_inst_retired:scalar_double", FLOP_FLOPS, 1, 8 },
	{ "fp_arith_inst_retired:scalar_single", FLOP_FLOPS, 1, 4 },
	{ "fp_arith_inst_retired:128b_packed_double", FLOP_FLOPS, 2, 16 },
	{ "fp_arith_inst_retired:128b_packed_single", FLOP_FLOPS, 4, 16 },
	{ "fp_arith_inst_retired:256b_packed_double", FLOP_FLOPS, 4, 32 },
	{ "fp_arith_inst_retired:256b_packed_single", FLOP_FLOPS, 8, 32 },
	{ "fp_arith_inst_retired:512b_packed_double", FLOP_FLOPS, 8, 64 },
	{ "fp_arith_inst_retired:512b_packed_single", FLOP_FLOPS, 16, 64 },
	{ "mem_inst_retired:all_loads", FLOP_LOADS, 0, 0 },
	{ "mem_inst_retired:all_stores", FLOP_STORES, 0, 0 },
	/* Zen 1 counts FLOPs themselves, by precision */
	{ "retired_sse_avx_operations:dp_add_sub_flops", FLOP_FLOPS, 1, 0 },
	{ "retired_sse_avx_operations:dp_mult_flops", FLOP_FLOPS, 1, 0 },
	{ "retired_sse_avx_operations:dp_div_flops", FLOP_FLOPS, 1, 0 },
	{ "retired_sse_avx_operations:dp_mult_add_flops", FLOP_FLOPS, 1, 0 },
	{ "retired_sse_avx_operations:sp_add_sub_flops", FLOP_FLOPS, 1, 0 },
	{ "retired_sse_avx_operations:sp_mult_flops", FLOP_FLOPS, 1, 0 },
	{ "retired_sse_avx_operations:sp_div_flops", FLOP_FLOPS, 1, 0 },
	{ "retired_sse_avx_operations:sp_mult_add_flops", FLOP_FLOPS, 1, 0 },
	/* Zen 2 and later: FLOPs of both precisions together */
	{ "retired_sse_avx_flops:any", FLOP_FLOPS, 1, 0 },
	{ "retired_sse_avx_flops", FLOP_FLOPS, 1, 0 },
	{ "retired_fp_ops_by_width:scalar_uops_retired", FLOP_WIDTH, 0, 8 },
	{ "retired_fp_ops_by_width:pack128_uops_retired", FLOP_WIDTH, 0, 16 },
	{ "retired_fp_ops_by_width:pack256_uops_retired", FLOP_WIDTH, 0, 32 },
	{ "retired_fp_ops_by_width:pack512_uops_retired", FLOP_WIDTH, 0, 64 },
	{ "ls_dispatch:ld_dispatch", FLOP_LOADS, 0, 0 },
	{ "ls_dispatch:store_dispatch", FLOP_STORES, 0, 0 },
	{ "ls_dispatch:ld_st_dispatch", FLOP_LOADS_STORES, 0, 0 },
	/* Arm: operations, each taken as one FLOP */
	{ "fp_dp_spec", FLOP_FLOPS, 1, 8 },
	{ "fp_sp_spec", FLOP_FLOPS, 1, 4 },
	{ "fp_hp_spec", FLOP_FLOPS, 1, 2 },
	{ "ld_spec", FLOP_LOADS, 0, 0 },
	{ "st_spec", FLOP_STORES, 0, 0 },
};

const struct flop_event *flop_event__find(const char *name)
{
	char norm[128];
	const char *colons = strstr(name, "::");
	size_t n = 0;

	if (colons)
		name = colons + 2;
	for (; *name && n + 1 < sizeof(norm); name++)
		norm[n++] = *name == '.' ? ':' : (char)tolower((unsigned char)*name);
	norm[n] = 0;
	if (*name)
		return NULL;
	for (size_t i = 0; i < sizeof(table) / sizeof(*table); i++)
		if (strcmp(norm, table[i].name) == 0)
			return &table[i];
	return NULL;
}

enum flop_vendor flop_vendor__this(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d, family, model;
	char vendor[13];

	if (!__get_cpuid(0, &a, &b, &c, &d))
		return FLOP_UNKNOWN;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	__get_cpuid(1, &a, &b, &c, &d);
	family = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family == 0x6 || family == 0xf)
		model |= ((a >> 16) & 0xf) << 4;
	if (strcmp(vendor, "GenuineIntel") == 0)
		return FLOP_INTEL;
	if (strcmp(vendor, "AuthenticAMD") != 0 && strcmp(vendor, "HygonGenuine") != 0)
		return FLOP_UNKNOWN;
	if (family == 0x17)
		return model < 0x30 ? FLOP_ZEN1 : FLOP_ZEN2_3;
	if (family == 0x19)
		return (model >= 0x10 && model < 0x20) || (model >= 0x60 && model < 0x80) || (model >= 0xa0 && model < 0xb0)
			       ? FLOP_ZEN4_5 : FLOP_ZEN2_3;
	if (family >= 0x1a)
		return FLOP_ZEN4_5;
	return FLOP_UNKNOWN;
#elif defined(__aarch64__)
	return FLOP_ARM;
#else
	return FLOP_UNKNOWN;
#endif
}

const char *flop_vendor__name(enum flop_vendor v)
{
	static const char *const names[] = { "Intel", "AMD Zen 1", "AMD Zen 2/3", "AMD Zen 4/5", "Arm", "unknown" };

	return names[v];
}

const char *const *flop_vendor__events(enum flop_vendor v)
{
	static const char *const intel[] = {
		"fp_arith_inst_retired.scalar_double", "fp_arith_inst_retired.scalar_single",
		"fp_arith_inst_retired.128b_packed_double", "fp_arith_inst_retired.128b_packed_single",
		"fp_arith_inst_retired.256b_packed_double", "fp_arith_inst_retired.256b_packed_single",
		"fp_arith_inst_retired.512b_packed_double", "fp_arith_inst_retired.512b_packed_single",
		"mem_inst_retired.all_loads", "mem_inst_retired.all_stores", NULL,
	};
	static const char *const zen1[] = {
		"retired_sse_avx_operations:dp_add_sub_flops", "retired_sse_avx_operations:dp_mult_flops",
		"retired_sse_avx_operations:dp_div_flops", "retired_sse_avx_operations:dp_mult_add_flops",
		"retired_sse_avx_operations:sp_add_sub_flops", "retired_sse_avx_operations:sp_mult_flops",
		"retired_sse_avx_operations:sp_div_flops", "retired_sse_avx_operations:sp_mult_add_flops",
		"ls_dispatch:ld_dispatch", "ls_dispatch:store_dispatch", NULL,
	};
	static const char *const zen2_3[] = {
		"retired_sse_avx_flops:any", "ls_dispatch:ld_dispatch", "ls_dispatch:store_dispatch", NULL,
	};
	static const char *const zen4_5[] = {
		"retired_sse_avx_flops:any", "retired_fp_ops_by_width:scalar_uops_retired",
		"retired_fp_ops_by_width:pack128_uops_retired", "retired_fp_ops_by_width:pack256_uops_retired",
		"retired_fp_ops_by_width:pack512_uops_retired", "ls_dispatch:ld_dispatch", "ls_dispatch:store_dispatch",
		NULL,
	};
	static const char *const arm[] = { "fp_dp_spec", "fp_sp_spec", "ld_spec", "st_spec", NULL };
	static const char *const none[] = { NULL };

	switch (v) {
	case FLOP_INTEL:
		return intel;
	case FLOP_ZEN1:
		return zen1;
	case FLOP_ZEN2_3:
		return zen2_3;
	case FLOP_ZEN4_5:
		return zen4_5;
	case FLOP_ARM:
		return arm;
	default:
		return none;
	}
}
