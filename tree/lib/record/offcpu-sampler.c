/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "record/offcpu-sampler.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "offcpu.skel.h"
#include "record/tracefs.h"

/* Threads the raw_tp fallback keeps slots for (each holds a record, ~3.6 KB). */
enum { RAW_TP_THREADS = 8192 };

/* the programs at the start of interrupt handlers (offcpu.bpf.c's IRQ_EDGE), attached after their ends */
enum { IRQ_ENTRIES = 3 };

struct offcpu {
	struct offcpu_bpf *skel;
	struct bpf_link *irq_entries[IRQ_ENTRIES];
	struct ring_buffer *rb;
	const char *attachment;
	offcpu_event_fn fn;
	void *ctx;
	int err;
};

/* libbpf's first complaint (the cause; later ones are consequences), to say why loading failed: lib/ never prints. */
static char libbpf_said[512];

static int remember_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[512];
	size_t n;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strcspn(line, "\n");
	line[n] = 0;
	/* the kernels this runs on (5.15+) charge BPF memory to cgroups: RLIMIT_MEMLOCK is not the cause */
	if (n && !libbpf_said[0] && !strstr(line, "RLIMIT_MEMLOCK"))
		snprintf(libbpf_said, sizeof(libbpf_said), "%s", line);
	return 0;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct offcpu *oc = ctx;
	int ret;

	if (size < sizeof(struct offcpu_event))
		return 0;
	ret = oc->fn(oc->ctx, data, size);
	if (ret < 0) {
		oc->err = ret;
		return ret;
	}
	return 0;
}

/*
 * Whether the kernel has tracepoint system:name, as tracefs says (parsing
 * vmlinux's BTF for it cost 70 ms of every start); without tracefs, taken
 * as not.
 */
static bool has_tracepoint(const char *system, const char *name)
{
	const char *dir = tracefs__dir();

	return dir && tracefs__event_id(dir, system, name) >= 0;
}

static bool is_irq_entry(const char *section)
{
	size_t n = strlen(section);

	return n > 6 && strcmp(section + n - 6, "_entry") == 0;
}

static void detach_irq_entries(struct offcpu *oc)
{
	for (int i = 0; i < IRQ_ENTRIES; i++) {
		bpf_link__destroy(oc->irq_entries[i]);
		oc->irq_entries[i] = NULL;
	}
}

/*
 * The handlers' starts, once their ends are attached: a start counted
 * without its end would leave its CPU "in an interrupt" for good, and every
 * wake-up there taken for an interrupt's (one attached while a handler ran).
 */
static int attach_irq_entries(struct offcpu *oc, struct offcpu_bpf *skel)
{
	struct bpf_program *p;
	int n = 0, ret;

	bpf_object__for_each_program(p, skel->obj) {
		if (!bpf_program__autoload(p) || !is_irq_entry(bpf_program__section_name(p)))
			continue;
		if (n == IRQ_ENTRIES || !(oc->irq_entries[n] = bpf_program__attach(p))) {
			ret = n == IRQ_ENTRIES ? -E2BIG : -errno;
			detach_irq_entries(oc);
			return ret;
		}
		n++;
	}
	return 0;
}

/* Opens, configures, loads and attaches one variant; 0 or -errno with err saying what failed. */
static int load(struct offcpu *oc, const struct offcpu_opts *o, bool raw_tp, struct lp_error *err)
{
	struct offcpu_bpf *skel;
	struct bpf_program *p;
	int ret;

	libbpf_said[0] = 0;
	skel = offcpu_bpf__open();
	if (!skel) {
		lp_error__set(err, 0, "opening the BPF object");
		return -errno;
	}
	skel->rodata->period_ns = o->freq > 0 ? (uint64_t)(1000000000 / o->freq) : 0;
	skel->rodata->capture = (o->capture & CAPTURE_USER ? OFFCPU_USER : 0) |
				(o->capture & CAPTURE_KERNEL ? OFFCPU_KERNEL : 0);
	skel->rodata->wakeup_every = o->wakeup_every;
	skel->rodata->snapshot_bytes = o->snapshot > OFFCPU_SNAPSHOT ? OFFCPU_SNAPSHOT : o->snapshot & ~7u;
	skel->rodata->trace_all = o->all;
	skel->rodata->self_tgid = (uint32_t)getpid();
	if (o->cpu_mask) {
		skel->rodata->some_cpus = true;
		memcpy((void *)skel->rodata->cpu_mask, o->cpu_mask, sizeof(skel->rodata->cpu_mask));
	}
	/* where threads return to user mode after leaving the CPU (kernels with rseq, before 6.19's rework) */
	skel->rodata->rseq_hook = !raw_tp && skel->rodata->capture == OFFCPU_USER && has_tracepoint("rseq", "rseq_update");
	bpf_object__for_each_program(p, skel->obj) {
		const char *kind = raw_tp ? "raw_tp/" : "tp_btf/";

		const char *section = bpf_program__section_name(p);

		/*
		 * sys_exit and rseq_update take the user stacks the switch left for
		 * later: only where that is done, and sys_exit only for calls that
		 * rseq_update does not see return (it runs at every call's exit)
		 */
		if ((strcmp(section, "tp_btf/sys_exit") == 0 &&
		     (skel->rodata->capture != OFFCPU_USER || skel->rodata->rseq_hook)) ||
		    (strcmp(section, "tp_btf/rseq_update") == 0 && !skel->rodata->rseq_hook)) {
			bpf_program__set_autoload(p, false);
			continue;
		}
		bpf_program__set_autoload(p, strncmp(section, kind, strlen(kind)) == 0);
		if (is_irq_entry(section))
			bpf_program__set_autoattach(p, false);
	}
	if (raw_tp)
		bpf_map__set_max_entries(skel->maps.tid_slots, RAW_TP_THREADS);
	ret = offcpu_bpf__load(skel);
	if (ret) {
		lp_error__set(err, 0, "loading the BPF program");
		goto fail;
	}
	ret = offcpu_bpf__attach(skel);
	if (ret) {
		lp_error__set(err, 0, "attaching to sched_switch");
		goto fail;
	}
	if ((ret = attach_irq_entries(oc, skel)) < 0) {
		lp_error__set(err, 0, "attaching to the interrupt handlers' tracepoints");
		goto fail;
	}
	oc->skel = skel;
	oc->attachment = raw_tp ? "raw_tp" : "tp_btf";
	return 0;
fail:
	ret = ret < 0 ? ret : -EINVAL;
	offcpu_bpf__destroy(skel);
	return ret;
}

struct offcpu *offcpu__open(const struct offcpu_opts *o, struct lp_error *err)
{
	struct offcpu *oc;
	int ret;

	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		lp_error__set(err, 0, "the kernel has no BTF (/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF)");
		errno = ENOTSUP;
		return NULL;
	}
	oc = calloc(1, sizeof(*oc));
	if (!oc)
		return NULL;
	libbpf_set_print(remember_libbpf);
	ret = o->raw_tp ? -ENOTSUP : load(oc, o, false, err);
	if (ret < 0 && ret != -EPERM && ret != -EACCES)
		ret = load(oc, o, true, err);
	if (ret < 0) {
		if (libbpf_said[0]) {
			char what[sizeof(err->msg)];

			snprintf(what, sizeof(what), "%s", err->msg);
			lp_error__set(err, 0, "%s (%s)", what, libbpf_said);
		}
		free(oc);
		errno = -ret;
		return NULL;
	}
	oc->rb = ring_buffer__new(bpf_map__fd(oc->skel->maps.events), on_record, oc, NULL);
	if (!oc->rb) {
		ret = -errno;
		lp_error__set(err, 0, "opening the BPF ring buffer");
		offcpu__free(oc);
		errno = -ret;
		return NULL;
	}
	return oc;
}

void offcpu__close(struct offcpu *oc)
{
	if (!oc)
		return;
	detach_irq_entries(oc);
	ring_buffer__free(oc->rb);
	oc->rb = NULL;
	offcpu_bpf__destroy(oc->skel);
	oc->skel = NULL;
}

void offcpu__free(struct offcpu *oc)
{
	offcpu__close(oc);
	free(oc);
}

int offcpu__follow(struct offcpu *oc, pid_t pid, bool started)
{
	__u32 key = (__u32)pid;
	__u8 active = started;

	if (bpf_map__update_elem(oc->skel->maps.traced, &key, sizeof(key), &active, sizeof(active), BPF_ANY))
		return -errno;
	return 0;
}

void offcpu__start(struct offcpu *oc, uint64_t grid_start)
{
	__atomic_store_n(&oc->skel->bss->grid_start, grid_start, __ATOMIC_RELEASE);
}

int offcpu__fd(const struct offcpu *oc)
{
	return ring_buffer__epoll_fd(oc->rb);
}

int offcpu__read(struct offcpu *oc, offcpu_event_fn fn, void *ctx)
{
	int n;

	oc->fn = fn;
	oc->ctx = ctx;
	oc->err = 0;
	n = ring_buffer__consume(oc->rb);
	if (oc->err)
		return oc->err;
	return n;
}

uint64_t offcpu__drops(const struct offcpu *oc)
{
	struct offcpu_drops d;

	offcpu__drop_causes(oc, &d);
	return d.full + d.missed + d.slot;
}

void offcpu__drop_causes(const struct offcpu *oc, struct offcpu_drops *d)
{
	d->full = __atomic_load_n(&oc->skel->bss->drops_full, __ATOMIC_RELAXED);
	d->missed = __atomic_load_n(&oc->skel->bss->drops_missed, __ATOMIC_RELAXED);
	d->slot = __atomic_load_n(&oc->skel->bss->drops_slot, __ATOMIC_RELAXED);
}

const char *offcpu__attachment(const struct offcpu *oc)
{
	return oc->attachment;
}
