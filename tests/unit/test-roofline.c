/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lp-roofline's arithmetic: the CARM Tool's numbers, the knees of a sweep, the vendor tables, R and Q records. */
#include <errno.h>
#include <string.h>

#include "roofline/cachelevels.h"
#include "roofline/carmcsv.h"
#include "roofline/flopevents.h"
#include "stream/lpstream.h"
#include "tap.h"

static void number_is(double v, const char *want, const char *name)
{
	char buf[64];

	is_str(carm_csv__number(v, buf, sizeof(buf)), want, name);
}

/* A refused record: its message holds what. */
static void refused(int ret, const struct lp_error *err, const char *what, const char *name)
{
	if (!ok(ret == -EINVAL && strstr(err->msg, what), name))
		printf("#   message: '%s'\n", err->msg);
}

static int parse_line(const char *line, struct lp_fields *f)
{
	return lp_fields__split(f, line, strlen(line));
}

int main(void)
{
	/* what Python's custom_round then str() print */
	number_is(191.78123456, "191.7812", "rounded to 4 decimals");
	number_is(120.0, "120.0", "a whole float keeps .0");
	number_is(0.000123456, "0.0001235", "below 1: 4 digits after the zeros");
	number_is(1e-05, "1e-05", "Python's exponent form below 1e-4");
	number_is(0.5, "0.5", "half");
	number_is(0, "0", "zero is the int 0");
	number_is(2.00005, "2.0", "ties as the binary value rounds: 2.00005 is below");
	number_is(1234567.891234, "1234567.8912", "big");

	/* a sweep with three plateaus and a one-point dip: two knees */
	struct cache_sweep s = { .n = 12 };
	const double bw[] = { 190, 192, 188, 191, 170, 95, 97, 60, 96, 94, 15, 14 };
	for (size_t i = 0; i < s.n; i++) {
		s.size[i] = 4096ull << i;
		s.bw[i] = bw[i];
	}
	uint64_t knees[8];
	double drops[8];
	size_t nk = cache_sweep__knees(&s, knees, drops, 8);
	ok(nk == 2 && knees[0] == 4096ull << 4 && knees[1] == 4096ull << 9, "knees after the L1 and L2 plateaus");
	ok(drops[0] < 0.55 && drops[1] < 0.2, "and how deep they fall");
	/* DRAM wobbling from 16 to 13 GB/s at the end: a third knee, the weakest, dropped when two levels are known */
	struct cache_sweep w = { .n = 14 };
	const double bw2[] = { 190, 192, 188, 191, 95, 97, 96, 94, 16, 16.2, 15.9, 12.5, 12.4, 12.6 };
	for (size_t i = 0; i < w.n; i++) {
		w.size[i] = 4096ull << i;
		w.bw[i] = bw2[i];
	}
	nk = cache_sweep__knees(&w, knees, drops, 8);
	ok(nk == 3, "three knees with the wobble");
	nk = cache_sweep__keep_strongest(knees, drops, nk, 2);
	ok(nk == 2 && knees[0] == 4096ull << 3 && knees[1] == 4096ull << 7, "the two deepest kept, in order");

	/* the VM that says 480 MiB of L3: the knee wins */
	struct cache_level lv[CARM_LEVELS];
	uint64_t claimed[CARM_LEVELS] = { 32 << 10, 512 << 10, 480ull << 20 }, k3[] = { 32 << 10, 512 << 10, 24 << 20 };
	cache_levels__resolve(claimed, NULL, k3, 3, lv);
	ok(lv[0].verdict == CACHE_CONFIRMED && lv[1].verdict == CACHE_CONFIRMED, "L1 and L2 confirmed");
	ok(lv[2].verdict == CACHE_DISAGREES && lv[2].size == 24 << 20, "L3 from its knee, not the 480 MiB said");
	uint64_t k2[] = { 32 << 10, 512 << 10 };
	cache_levels__resolve(claimed, NULL, k2, 2, lv);
	ok(lv[2].verdict == CACHE_UNCONFIRMED && lv[2].size == 480ull << 20, "no knee: what is said, unconfirmed");
	/* a knee as far from the L2 sysfs says as from its L3: CPUID's L3 settles it */
	uint64_t cpuid[CARM_LEVELS] = { 32 << 10, 512 << 10, 32ull << 20 }, k15[] = { 32 << 10, 15ull << 20 };
	cache_levels__resolve(claimed, NULL, k15, 2, lv);
	ok(lv[1].measured == 15ull << 20, "by sysfs alone a 15 MiB knee is nearer the 512 KiB L2 (it is)");
	cache_levels__resolve(claimed, cpuid, k15, 2, lv);
	ok(lv[1].verdict == CACHE_UNCONFIRMED && lv[2].measured == 15ull << 20 && lv[2].verdict == CACHE_DISAGREES,
	   "with CPUID's 32 MiB it is the L3's; L2 unconfirmed");
	uint64_t none[CARM_LEVELS] = { 0, 0, 0 };
	cache_levels__resolve(none, NULL, k3, 3, lv);
	ok(lv[0].verdict == CACHE_MEASURED_ONLY && lv[2].size == 24 << 20, "nothing said: the knees");

	/* vendor tables, as perf users write the names */
	const struct flop_event *e = flop_event__find("fp_arith_inst_retired.256b_packed_double");
	ok(e && e->role == FLOP_FLOPS && e->flops == 4 && e->width == 32, "Intel 256-bit double: 4 FLOPs of 32 bytes");
	e = flop_event__find("skx::FP_ARITH_INST_RETIRED:SCALAR_SINGLE");
	ok(e && e->flops == 1 && e->width == 4, "a PMU prefix and upper case");
	e = flop_event__find("amd64_fam19h_zen3::RETIRED_SSE_AVX_FLOPS:ANY");
	ok(e && e->role == FLOP_FLOPS && e->flops == 1, "Zen 3 counts FLOPs");
	ok(flop_event__find("ls_dispatch:ld_st_dispatch")->role == FLOP_LOADS_STORES, "a load-store op is both");
	ok(flop_event__find("cycles") == NULL, "not a FLOP event");
	ok(flop_vendor__events(FLOP_ZEN2_3)[0] && flop_vendor__events(FLOP_UNKNOWN)[0] == NULL, "event sets");

	/* R and Q records */
	struct lp_fields f = { 0 };
	struct lp_roof r;
	struct lp_point q;
	struct lp_error err;
	parse_line("R\tL1\tmemory\t77519603729\tB/s\tisa=avx2", &f);
	ok(lp_roof__parse(&f, &r, &err) == 0 && r.kind == LP_ROOF_MEMORY && r.value == 77519603729.0 && r.nattrs == 1,
	   "a memory roof");
	parse_line("R\tFP-avx2-dp-fma\tcompute\t4.1e10\tFLOP/s", &f);
	refused(lp_roof__parse(&f, &r, &err), &err, "VALUE '4.1e10'", "a VALUE with an exponent");
	parse_line("R\tL1\tmemory\t10\tFLOP/s", &f);
	refused(lp_roof__parse(&f, &r, &err), &err, "expected 'B/s'", "a memory roof in FLOP/s");
	parse_line("R\tL1\tcache\t10\tB/s", &f);
	refused(lp_roof__parse(&f, &r, &err), &err, "neither", "an unknown KIND");
	parse_line("R\tL1\tmemory\t0\tB/s", &f);
	refused(lp_roof__parse(&f, &r, &err), &err, "above 0", "a roof of 0");
	parse_line("Q\tmain;dot\t4000\t16000\t1.5\tbytes=width-8", &f);
	ok(lp_point__parse(&f, &q, &err) == 0 && q.flops == 4000 && q.bytes == 16000 && q.seconds == 1.5, "a point");
	parse_line("Q\tmain;;dot\t4000\t16000\t1.5", &f);
	refused(lp_point__parse(&f, &q, &err), &err, "empty name", "an empty frame in NAME");
	parse_line("Q\tdot\t-4\t16000\t1.5", &f);
	refused(lp_point__parse(&f, &q, &err), &err, "FLOPS", "negative FLOPS");
	parse_line("Q\tdot\t4\t16000", &f);
	refused(lp_point__parse(&f, &q, &err), &err, "at least 5", "a Q record too short");
	lp_fields__release(&f);
	return tap_done();
}
