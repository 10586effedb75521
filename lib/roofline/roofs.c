/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "roofline/roofs.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "stream/lpstream.h"

/* The sweep: working sets from 4 KiB, each step sqrt(2) larger, each point the median of a few short runs. */
#define SWEEP_FIRST 4096.0
#define SWEEP_RUNS 5
#define SWEEP_RUN_SECONDS 0.003
#define RUN_SECONDS 0.01
/* the DRAM test's working set, all threads together: this many times L3, and at least DRAM_MIN */
#define DRAM_TIMES_L3 4
#define DRAM_MIN (256ull << 20)

const char *roofs__level_name(int level)
{
	static const char *const names[ROOF_NMEM] = { "L1", "L2", "L3", "DRAM" };

	return level >= 0 && level < ROOF_NMEM ? names[level] : "?";
}

static const char *human(uint64_t bytes, char *buf, size_t size)
{
	if (bytes >= (1ull << 30) && bytes % (1ull << 30) == 0)
		snprintf(buf, size, "%llu GiB", (unsigned long long)(bytes >> 30));
	else if (bytes >= (1ull << 20))
		snprintf(buf, size, bytes % (1ull << 20) ? "%.1f MiB" : "%.0f MiB", bytes / 1048576.0);
	else if (bytes >= 1024)
		snprintf(buf, size, bytes % 1024 ? "%.1f KiB" : "%.0f KiB", bytes / 1024.0);
	else
		snprintf(buf, size, "%llu B", (unsigned long long)bytes);
	return buf;
}

static void progress(const struct roofs_opts *o, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	if (!o->progress)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	o->progress(o->ctx, buf);
}

static bool wanted(const struct roofs_opts *o, enum carm_isa isa)
{
	if (!o->nisas)
		return true;
	for (size_t i = 0; i < o->nisas; i++)
		if (o->isas[i] == isa)
			return true;
	return false;
}

static int sweep(const struct roofs_opts *o, enum carm_isa isa, uint64_t upto, struct cache_sweep *s,
		 struct lp_error *err)
{
	struct roof_bench_opts b = { .threads = 1, .runs = SWEEP_RUNS, .run_seconds = SWEEP_RUN_SECONDS };
	char h[32];

	progress(o, "sweeping working sets of 4 KiB to %s (%s) to find where each cache level ends",
		 human(upto, h, sizeof(h)), carm_isa__name(isa));
	s->n = 0;
	for (double size = SWEEP_FIRST; size <= (double)upto * 1.01 && s->n < CACHE_SWEEP_MAX; size *= M_SQRT2) {
		struct roof_rate r;
		int ret = roof_bench__memory(&b, isa, o->precision, o->loads, o->stores, (size_t)size, &r);

		if (ret < 0)
			return lp_error__set(err, ret, "cannot run the %s memory kernel: %s", carm_isa__name(isa),
					     strerror(-ret));
		s->size[s->n] = (uint64_t)size;
		s->bw[s->n++] = r.per_second;
	}
	return 0;
}

/* What sysfs says, else CPUID; a warning where both say and they differ. */
/* What sysfs says of each level, else CPUID; also: CPUID's, for matching knees. */
static void claim(const struct roofs_opts *o, struct roofs *r, uint64_t claimed[CARM_LEVELS],
		  uint64_t also[CARM_LEVELS], unsigned shared[CARM_LEVELS])
{
	for (int l = 0; l < CARM_LEVELS; l++) {
		char a[32], b[32];

		claimed[l] = r->sysfs[l].size ? r->sysfs[l].size : r->cpuid[l].size;
		also[l] = r->cpuid[l].size;
		shared[l] = r->sysfs[l].shared_by ? r->sysfs[l].shared_by : r->cpuid[l].shared_by;
		if (r->sysfs[l].size && r->cpuid[l].size && r->sysfs[l].size != r->cpuid[l].size)
			lp_error__warn(o->warn, o->ctx, NULL, 0, "L%d: sysfs says %s, CPUID says %s", l + 1,
				human(r->sysfs[l].size, a, sizeof(a)), human(r->cpuid[l].size, b, sizeof(b)));
	}
}

static void judge(const struct roofs_opts *o, const struct roofs *r)
{
	for (int l = 0; l < CARM_LEVELS; l++) {
		const struct cache_level *c = &r->levels[l];
		char a[32], b[32];

		if (c->verdict == CACHE_DISAGREES)
			lp_error__warn(o->warn, o->ctx, NULL, 0,
				"L%d: the machine says %s but bandwidth falls at %s: tests are sized from %s", l + 1,
				human(c->claimed, a, sizeof(a)), human(c->measured, b, sizeof(b)), b);
		else if (c->verdict == CACHE_UNCONFIRMED)
			lp_error__warn(o->warn, o->ctx, NULL, 0,
				"L%d: the machine says %s but bandwidth does not fall there: tests are sized from it unconfirmed",
				l + 1, human(c->claimed, a, sizeof(a)));
		else if (c->verdict == CACHE_MEASURED_ONLY)
			lp_error__warn(o->warn, o->ctx, NULL, 0, "L%d: the machine does not say its size; bandwidth falls at %s",
				l + 1, human(c->measured, a, sizeof(a)));
	}
}

/* Each level's test: half of what one thread has of it, and at least twice the level below. */
static void size_tests(const struct roofs_opts *o, struct roofs *r, const unsigned shared[CARM_LEVELS])
{
	uint64_t below = 0, l3 = 0;

	for (int l = 0; l < CARM_LEVELS; l++) {
		uint64_t size = r->levels[l].size, mine;
		/* without word from the machine: L1 and L2 are each core's, L3 everyone's */
		unsigned sharing = shared[l] ? shared[l] : l < 2 ? 1 : o->threads;

		if (sharing > o->threads)
			sharing = o->threads;
		if (!size) {
			r->test_size[l] = o->size[l];
			continue;
		}
		mine = size / sharing;
		r->test_size[l] = o->size[l] ? o->size[l] : mine / 2 > 2 * below ? mine / 2 : 2 * below;
		below = mine;
		if (l == 2)
			l3 = size;
	}
	if (o->size[ROOF_DRAM]) {
		r->test_size[ROOF_DRAM] = o->size[ROOF_DRAM];
	} else {
		uint64_t all = DRAM_TIMES_L3 * l3 > DRAM_MIN ? DRAM_TIMES_L3 * l3 : DRAM_MIN;

		r->test_size[ROOF_DRAM] = all / o->threads;
	}
}

int roofs__measure(const struct roofs_opts *o, struct roofs *r, struct lp_error *err)
{
	struct roof_bench_opts b = { .threads = o->threads, .interleaved = o->interleaved, .runs = o->runs,
				     .run_seconds = RUN_SECONDS };
	uint64_t claimed[CARM_LEVELS], also[CARM_LEVELS], knees[CACHE_SWEEP_MAX], upto = 0;
	double drops[CACHE_SWEEP_MAX];
	unsigned shared[CARM_LEVELS];
	enum carm_isa widest = CARM_NISA;
	bool need_sweep = false;
	size_t nknees = 0;
	int ret;

	memset(r, 0, sizeof(*r));
	lp_error__clear(err);
	if (o->threads == 0 || o->threads > roof_bench__cpus())
		return lp_error__set(err, -ERANGE, "%u threads, but this process may run on %u CPUs", o->threads,
				     roof_bench__cpus());
	if (!carm__mem_ratio_known(o->loads, o->stores))
		return lp_error__set(err, -EINVAL, "no kernel for %u loads to %u stores", o->loads, o->stores);
	for (int i = 0; i < CARM_NISA; i++)
		if (wanted(o, i) && carm_isa__supported(i))
			widest = i;
	if (widest == CARM_NISA)
		return lp_error__set(err, -ENOTSUP, "this CPU has none of the ISAs asked for");
	if (carm_cache__sysfs(o->sysfs_root, r->sysfs) < 0 && o->sysfs_root[0])
		return lp_error__set(err, -ENOENT, "no caches in '%s/sys/devices/system/cpu/cpu0/cache'", o->sysfs_root);
	carm_cache__cpuid(r->cpuid);
	claim(o, r, claimed, also, shared);
	for (int l = 0; l < CARM_LEVELS; l++) {
		if (claimed[l] > upto)
			upto = claimed[l];
		need_sweep |= !o->size[l];
	}
	/* past the largest level the machine claims, but within what a test may allocate */
	upto = upto ? 4 * upto : 64ull << 20;
	upto = upto < (64ull << 20) ? 64ull << 20 : upto > (512ull << 20) ? 512ull << 20 : upto;
	if (need_sweep) {
		if ((ret = sweep(o, widest, upto, &r->sweep, err)) < 0)
			return ret;
		size_t levels = 0;

		nknees = cache_sweep__knees(&r->sweep, knees, drops, CACHE_SWEEP_MAX);
		for (int l = 0; l < CARM_LEVELS; l++)
			levels += claimed[l] != 0;
		/* no more knees than levels the machine has (all three when it says none) */
		nknees = cache_sweep__keep_strongest(knees, drops, nknees, levels ? levels : CARM_LEVELS);
	}
	cache_levels__resolve(claimed, also, knees, nknees, r->levels);
	if (need_sweep)
		judge(o, r);
	size_tests(o, r, shared);
	if ((ret = roof_bench__clock(&b, &r->hz)) < 0)
		return lp_error__set(err, ret, "cannot time the clock: %s", strerror(-ret));
	for (int i = 0; i < CARM_NISA; i++) {
		struct roofs_isa *m;

		if (!wanted(o, i))
			continue;
		if (!carm_isa__supported(i)) {
			lp_error__warn(o->warn, o->ctx, NULL, 0, "this CPU has no %s: no roofs for it", carm_isa__name(i));
			continue;
		}
		m = &r->isa[r->nisa++];
		m->isa = i;
		for (int l = 0; l < ROOF_NMEM; l++) {
			char h[32];

			if (!r->test_size[l])
				continue;
			progress(o, "%s %s: %s, %s per thread", carm_isa__name(i), roofs__level_name(l),
				 l == ROOF_DRAM ? "memory" : "cache", human(r->test_size[l], h, sizeof(h)));
			ret = roof_bench__memory(&b, i, o->precision, o->loads, o->stores, r->test_size[l], &m->mem[l]);
			if (ret < 0)
				return lp_error__set(err, ret, "cannot measure %s with %s: %s", roofs__level_name(l),
						     carm_isa__name(i), strerror(-ret));
			m->has_mem[l] = true;
		}
		for (int op = 0; op < CARM_NOP; op++) {
			if (op == CARM_FMA && !carm_isa__has_fma(i))
				continue;
			progress(o, "%s %s %s", carm_isa__name(i), carm_precision__name(o->precision), carm_op__name(op));
			if ((ret = roof_bench__fp(&b, i, o->precision, op, &m->fp[op])) < 0)
				return lp_error__set(err, ret, "cannot measure %s %s: %s", carm_isa__name(i),
						     carm_op__name(op), strerror(-ret));
			m->has_fp[op] = true;
		}
	}
	return 0;
}

static const char *verdict_name(enum cache_verdict v)
{
	static const char *const names[] = { "confirmed", "disagrees", "unconfirmed", "measured-only", "unknown" };

	return names[v];
}

int roofs__write_records(const struct roofs_opts *o, const struct roofs *r, FILE *out)
{
	struct lp_writer w;
	char ldst[32];
	int ret;

	lp_writer__init(&w, out);
	snprintf(ldst, sizeof(ldst), "%u:%u", o->loads, o->stores);
	if ((ret = lp_writer__version(&w)) < 0)
		goto cleanup;
	for (int l = 0; l < CARM_LEVELS; l++) {
		char name[16], sysfs[32], cpuid[32], measured[32], verdict[32];
		const char *v[] = { name, sysfs, cpuid, measured, verdict };

		snprintf(name, sizeof(name), "L%d", l + 1);
		snprintf(sysfs, sizeof(sysfs), "sysfs=%llu", (unsigned long long)r->sysfs[l].size);
		snprintf(cpuid, sizeof(cpuid), "cpuid=%llu", (unsigned long long)r->cpuid[l].size);
		snprintf(measured, sizeof(measured), "measured=%llu", (unsigned long long)r->levels[l].measured);
		snprintf(verdict, sizeof(verdict), "%s", verdict_name(r->levels[l].verdict));
		if ((ret = lp_writer__meta(&w, "cache", v, 5)) < 0)
			goto cleanup;
	}
	/* the curve the knees came from, for whoever doubts them */
	for (size_t i = 0; i < r->sweep.n; i++) {
		char size[32], bw[32];
		const char *v[] = { size, bw };

		snprintf(size, sizeof(size), "%llu", (unsigned long long)r->sweep.size[i]);
		snprintf(bw, sizeof(bw), "%.0f", r->sweep.bw[i]);
		if ((ret = lp_writer__meta(&w, "sweep", v, 2)) < 0)
			goto cleanup;
	}
	for (size_t i = 0; i < r->nisa; i++) {
		const struct roofs_isa *m = &r->isa[i];
		const char *isa = carm_isa__name(m->isa), *prec = carm_precision__name(o->precision);

		for (int l = 0; l < ROOF_NMEM; l++) {
			char ipc[32];

			if (!m->has_mem[l])
				continue;
			snprintf(ipc, sizeof(ipc), "%.4f", m->mem[l].instructions_per_second / r->hz);
			if ((ret = lp_writer__roof(&w, roofs__level_name(l), LP_ROOF_MEMORY, m->mem[l].per_second)) < 0 ||
			    (ret = lp_writer__attr_str(&w, "isa", isa)) < 0 ||
			    (ret = lp_writer__attr_str(&w, "precision", prec)) < 0 ||
			    (ret = lp_writer__attr_u64(&w, "threads", o->threads)) < 0 ||
			    (ret = lp_writer__attr_u64(&w, "size", r->test_size[l])) < 0 ||
			    (ret = lp_writer__attr_str(&w, "ldst", ldst)) < 0 ||
			    (ret = lp_writer__attr_str(&w, "ipc", ipc)) < 0 || (ret = lp_writer__end(&w)) < 0)
				goto cleanup;
		}
		for (int op = 0; op < CARM_NOP; op++) {
			char name[64], ipc[32];

			if (!m->has_fp[op])
				continue;
			snprintf(name, sizeof(name), "FP-%s-%s-%s", isa, prec, carm_op__name(op));
			snprintf(ipc, sizeof(ipc), "%.4f", m->fp[op].instructions_per_second / r->hz);
			if ((ret = lp_writer__roof(&w, name, LP_ROOF_COMPUTE, m->fp[op].per_second)) < 0 ||
			    (ret = lp_writer__attr_str(&w, "isa", isa)) < 0 ||
			    (ret = lp_writer__attr_str(&w, "precision", prec)) < 0 ||
			    (ret = lp_writer__attr_u64(&w, "threads", o->threads)) < 0 ||
			    (ret = lp_writer__attr_str(&w, "op", carm_op__name(op))) < 0 ||
			    (ret = lp_writer__attr_str(&w, "ipc", ipc)) < 0 || (ret = lp_writer__end(&w)) < 0)
				goto cleanup;
		}
	}
	if ((ret = lp_writer__trailer(&w)) < 0)
		goto cleanup;
	ret = fflush(out) == 0 && !ferror(out) ? 0 : -EIO;
cleanup:
	lp_writer__release(&w);
	return ret;
}
