/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "record/syscheck.h"

#include <errno.h>
#include <linux/capability.h>
#include <numa.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record/offcpu-sampler.h"
#include "record/perfevent.h"
#include "record/privilege.h"
#include "record/tracefs.h"

const char *check_status__name(enum check_status s)
{
	return s == CHECK_OK ? "ok" : s == CHECK_WARNING ? "warning" : "problem";
}

static void set(struct check *c, enum check_status s, const char *remedy, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void set(struct check *c, enum check_status s, const char *remedy, const char *fmt, ...)
{
	va_list ap;

	c->status = s;
	va_start(ap, fmt);
	vsnprintf(c->text, sizeof(c->text), fmt, ap);
	va_end(ap);
	snprintf(c->remedy, sizeof(c->remedy), "%s", remedy ? remedy : "");
}

static void paranoid(struct check *c)
{
	long p = event_rings__sysctl("perf_event_paranoid");

	c->name = "perf_event_paranoid";
	if (p < 0)
		set(c, CHECK_PROBLEM, "mount /proc; a kernel without perf events (CONFIG_PERF_EVENTS) cannot be profiled",
		    "cannot read /proc/sys/kernel/perf_event_paranoid");
	else if (privilege__may_profile(p))
		set(c, CHECK_OK, NULL, "%ld: %s", p, p <= 1 ? "anyone may sample their own processes" :
		    geteuid() == 0 ? "root may sample" : "CAP_PERFMON lets this process sample");
	else
		set(c, CHECK_PROBLEM, "run as root, give lp-record CAP_PERFMON and CAP_BPF (setcap "
		    "cap_perfmon,cap_bpf+ep lp-record), or: sysctl kernel.perf_event_paranoid=1",
		    "%ld: unprivileged users cannot sample the CPU or the kernel", p);
}

static void sample_rate(struct check *c, unsigned long freq)
{
	long max = event_rings__sysctl("perf_event_max_sample_rate");
	char remedy[128];

	c->name = "perf_event_max_sample_rate";
	snprintf(remedy, sizeof(remedy), "sysctl kernel.perf_event_max_sample_rate=%lu", freq);
	if (max >= 0 && freq && (unsigned long)max < freq)
		set(c, CHECK_WARNING, remedy, "%ld Hz: -F %lu would be lowered to it", max, freq);
	else
		set(c, CHECK_OK, NULL, "%ld Hz", max);
}

static void max_stack(struct check *c)
{
	long n = event_rings__sysctl("perf_event_max_stack");

	c->name = "perf_event_max_stack";
	if (n >= 0 && n < 127)
		set(c, CHECK_WARNING, "sysctl kernel.perf_event_max_stack=127",
		    "%ld frames: deeper stacks are cut (#lp.truncated)", n);
	else
		set(c, CHECK_OK, NULL, "%ld frames", n);
}

static void kptr(struct check *c)
{
	long k = event_rings__sysctl("kptr_restrict");

	c->name = "kptr_restrict";
	if (k >= 2 || (k == 1 && !privilege__has(CAP_SYSLOG)))
		set(c, CHECK_WARNING, k >= 2 ? "sysctl kernel.kptr_restrict=0" :
		    "run as root (CAP_SYSLOG), or: sysctl kernel.kptr_restrict=0",
		    "%ld: kernel frames show as [kernel.kallsyms], unnamed", k);
	else
		set(c, CHECK_OK, NULL, "%ld: kernel symbols are readable", k);
}

static void btf(struct check *c)
{
	c->name = "BTF";
	if (access("/sys/kernel/btf/vmlinux", R_OK) == 0)
		set(c, CHECK_OK, NULL, "/sys/kernel/btf/vmlinux is there");
	else
		set(c, CHECK_PROBLEM, "a kernel built with CONFIG_DEBUG_INFO_BTF=y (most distributions' are)",
		    "no /sys/kernel/btf/vmlinux: no off-CPU sampling");
}

static void bpf(struct check *c)
{
	struct offcpu_opts o = { .freq = 1000, .capture = CAPTURE_USER, .snapshot = OFFCPU_SNAPSHOT };
	struct lp_error err = { 0 };
	struct offcpu *oc = offcpu__open(&o, &err);

	c->name = "off-CPU program";
	if (oc) {
		set(c, CHECK_OK, NULL, "loads and attaches (eBPF on %s)", offcpu__attachment(oc));
		offcpu__free(oc);
	} else {
		set(c, CHECK_PROBLEM, errno == EPERM || errno == EACCES ?
		    "run as root, or give lp-record CAP_BPF and CAP_PERFMON" : "see the message",
		    "%s: %s", err.msg, strerror(errno));
	}
}

static void tracefs(struct check *c)
{
	const char *dir = tracefs__dir();

	c->name = "tracefs";
	if (dir)
		set(c, CHECK_OK, NULL, "%s: spawn stacks and tracepoints", dir);
	else
		set(c, CHECK_WARNING, "mount -t tracefs nodev /sys/kernel/tracing (as root)",
		    "not mounted and cannot be: no spawning stacks, no tracepoint events");
}

static void pmu(struct check *c)
{
	int ret = event_rings__counts_cycles();

	c->name = "hardware PMU";
	if (ret == 0)
		set(c, CHECK_OK, NULL, "cycles can be counted: hardware events work");
	else
		set(c, CHECK_WARNING, "a machine (or a VM with PMU passthrough) that has one; software events "
		    "and tracepoints work without", "none counts cycles here (%s): no hardware events (-e cycles)",
		    strerror(-ret));
}

void syscheck__numa(struct check *c, long balancing, int nodes, int spanned)
{
	c->name = "NUMA balancing";
	if (balancing > 0 && nodes > 1 && spanned > 1)
		set(c, CHECK_WARNING, "sysctl kernel.numa_balancing=0, or bind the command to one node: "
		    "numactl --cpunodebind=0 --membind=0 COMMAND",
		    "on, and the command may run on %d of %d nodes: the kernel moves its pages, and its "
		    "page faults and migrations show up in the profile", spanned, nodes);
	else if (balancing > 0 && nodes > 1)
		set(c, CHECK_OK, NULL, "on, but the command runs on one node of %d", nodes);
	else
		set(c, CHECK_OK, NULL, "%s", nodes > 1 ? "off" : "one node");
}

/* How many NUMA nodes this process's CPUs or memory may span (libnuma); 1 when unknown. */
static int nodes_spanned(int *nodes)
{
	cpu_set_t cpus;
	unsigned long seen[16] = { 0 };
	int n = 0;

	*nodes = 1;
	if (numa_available() < 0 || sched_getaffinity(0, sizeof(cpus), &cpus) != 0)
		return 1;
	*nodes = numa_num_configured_nodes();
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		int node;

		if (!CPU_ISSET(cpu, &cpus) || (node = numa_node_of_cpu(cpu)) < 0 || node >= 16 * 64)
			continue;
		if (!(seen[node / 64] >> (node % 64) & 1)) {
			seen[node / 64] |= 1UL << (node % 64);
			n++;
		}
	}
	/* memory it may be given on other nodes counts too */
	struct bitmask *mem = numa_get_membind();
	int m = 0;

	if (mem) {
		for (unsigned node = 0; node < mem->size && (int)node < *nodes; node++)
			m += numa_bitmask_isbitset(mem, node) ? 1 : 0;
		numa_bitmask_free(mem);
	}
	if (m > n)
		n = m;
	return n ? n : 1;
}

void syscheck__run(unsigned long freq, bool probe, void (*fn)(void *ctx, const struct check *c), void *ctx)
{
	struct check c;
	int nodes, spanned = nodes_spanned(&nodes);

	paranoid(&c), fn(ctx, &c);
	sample_rate(&c, freq), fn(ctx, &c);
	max_stack(&c), fn(ctx, &c);
	kptr(&c), fn(ctx, &c);
	tracefs(&c), fn(ctx, &c);
	if (probe)
		pmu(&c), fn(ctx, &c);
	btf(&c), fn(ctx, &c);
	if (probe)
		bpf(&c), fn(ctx, &c);
	syscheck__numa(&c, event_rings__sysctl("numa_balancing"), nodes, spanned);
	fn(ctx, &c);
}
