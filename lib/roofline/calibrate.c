/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "roofline/calibrate.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "carm/carm.h"
#include "roofline/flopevents.h"
#include "record/perfevent.h"

#define TOLERANCE 0.01
#define FP_ITERATIONS (1u << 20)
#define MEM_BYTES (32u << 10)
#define MEM_PASSES 256u

struct counts {
	uint64_t value, enabled, running;
};

/* The kernels the counters are checked on: the widest this CPU has. */
struct known {
	enum carm_isa isa;
	carm_fp_fn *fp;
	uint64_t flops, fp_instructions;
	carm_mem_fn *mem;
	void *buf;
	uint64_t loads, stores;
};

static int count(const struct event_spec *s, const struct known *k, bool memory, struct counts *out,
		 struct lp_error *err)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = s->type, .config = s->config, .config1 = s->config1, .config2 = s->config2,
		.disabled = 1, .exclude_kernel = 1, .exclude_hv = 1,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
	};
	int fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	uint64_t v[3];
	char doubt[256];

	if (fd < 0) {
		int e = errno;

		if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == EINVAL)
			return lp_error__set_kind(err, LP_ERROR_NO_COUNTER, -ENODEV, "cannot count '%s': %s: this machine has no hardware counter "
					     "for it (virtual machines often have none: perf stat says 'not supported')",
					     s->name, strerror(e));
		return lp_error__set(err, -e, "cannot count '%s': %s", s->name, strerror(e));
	}
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	if (memory)
		k->mem(k->buf, MEM_BYTES, MEM_PASSES);
	else
		k->fp(FP_ITERATIONS);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, v, sizeof(v)) != (ssize_t)sizeof(v)) {
		close(fd);
		return lp_error__set(err, -EIO, "cannot read the count of '%s'", s->name);
	}
	close(fd);
	event_counts__doubt(s->name, v[0], v[1], v[2], doubt, sizeof(doubt));
	if (doubt[0])
		return lp_error__set(err, -ERANGE, "%s", doubt);
	*out = (struct counts){ v[0], v[1], v[2] };
	return 0;
}

static int pick_kernels(struct known *k)
{
	uint64_t per_iteration;

	for (int isa = CARM_NISA - 1; isa >= 0; isa--) {
		bool fma = carm_isa__has_fma(isa);

		if (!carm_isa__supported(isa))
			continue;
		k->isa = isa;
		k->fp = carm__fp_kernel(isa, CARM_DP, fma ? CARM_FMA : CARM_ADD, &per_iteration);
		k->mem = carm__mem_kernel(isa, CARM_DP, 2, 1);
		if (!k->fp || !k->mem)
			return -ENOTSUP;
		k->flops = per_iteration * FP_ITERATIONS;
		k->fp_instructions = (uint64_t)CARM_FP_CHAINS * FP_ITERATIONS;
		k->loads = (uint64_t)MEM_PASSES * MEM_BYTES / carm_isa__width(isa, CARM_DP) * 2 / 3;
		k->stores = (uint64_t)MEM_PASSES * MEM_BYTES / carm_isa__width(isa, CARM_DP) / 3;
		k->buf = aligned_alloc(64, MEM_BYTES);
		if (!k->buf)
			return -ENOMEM;
		memset(k->buf, 1, MEM_BYTES);
		return 0;
	}
	return -ENOTSUP;
}

static int judge(const char *what, double got, double want, double *ratio, struct lp_error *err)
{
	*ratio = want > 0 ? got / want : 0;
	if (fabs(*ratio - 1) > TOLERANCE)
		return lp_error__set(err, -ERANGE, "the %s counters counted %.0f where the calibration kernel did "
				     "exactly %.0f (%+.1f%%): they are not to be trusted here", what, got, want,
				     100 * (*ratio - 1));
	return 0;
}

/* Whether this machine counts cycles in hardware: if not, none of its counters are there. */
static int have_counters(const char *first, struct lp_error *err)
{
	int ret = event_rings__counts_cycles();

	if (ret == -ENOENT || ret == -EOPNOTSUPP || ret == -ENODEV)
		return lp_error__set_kind(err, LP_ERROR_NO_COUNTER, -ENODEV, "cannot count '%s': even cycles cannot be counted (%s): this machine "
				     "has no hardware counter for it (virtual machines often have none: perf stat says "
				     "'not supported')", first, strerror(-ret));
	/* refused for another reason (permissions): the events' own opening says why */
	return 0;
}

int flop_counters__calibrate(const char *const *events, size_t n, const struct event_env *env, struct calibration *c,
			     struct lp_error *err)
{
	struct known k = { 0 };
	double flops = 0, widths = 0, loads = 0, stores = 0;
	bool has_flops = false, has_widths = false, has_loads = false, has_stores = false;
	int ret;

	memset(c, 0, sizeof(*c));
	if ((ret = pick_kernels(&k)) < 0) {
		ret = lp_error__set(err, ret, "no calibration kernel runs on this CPU");
		goto cleanup;
	}
	carm__flush_denormals();
	/* no PMU at all is the common case (VMs): said before an event libpfm4 does not know is */
	if (n && (ret = have_counters(events[0], err)) < 0)
		goto cleanup;
	for (size_t i = 0; i < n; i++) {
		const struct flop_event *role = flop_event__find(events[i]);
		struct event_spec s;
		struct counts fp, mem;

		if (!role) {
			ret = lp_error__set(err, -EINVAL, "'%s' is not a FLOP or load/store event lp-roofline knows", events[i]);
			goto cleanup;
		}
		if ((ret = event_spec__parse(&s, events[i], env, err)) < 0)
			goto cleanup;
		ret = count(&s, &k, false, &fp, err);
		if (ret == 0)
			ret = count(&s, &k, true, &mem, err);
		event_spec__release(&s);
		if (ret < 0)
			goto cleanup;
		switch (role->role) {
		case FLOP_FLOPS:
			flops += (double)fp.value * role->flops;
			has_flops = true;
			break;
		case FLOP_WIDTH:
			widths += (double)fp.value;
			has_widths = true;
			break;
		case FLOP_LOADS:
			loads += (double)mem.value;
			has_loads = true;
			break;
		case FLOP_STORES:
			stores += (double)mem.value;
			has_stores = true;
			break;
		default:
			break;
		}
	}
	ret = 0;
	if (has_flops)
		ret = judge("FLOP", flops, (double)k.flops, &c->flops, err);
	if (ret == 0 && has_widths)
		ret = judge("FP width", widths, (double)k.fp_instructions, &c->widths, err);
	if (ret == 0 && has_loads)
		ret = judge("load", loads, (double)k.loads, &c->loads, err);
	if (ret == 0 && has_stores)
		ret = judge("store", stores, (double)k.stores, &c->stores, err);
cleanup:
	free(k.buf);
	return ret;
}
