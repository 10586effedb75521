/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "record/perfevent.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/arch.h"

/* Bytes of user stack copied with each sample of a custom event. */
enum { CUSTOM_SNAPSHOT = 512, FORK_SNAPSHOT = 2048 };

/* Data pages of each CPU's ring of lifecycle records (and spawn stacks). */
enum { LIFE_PAGES = 128 };

struct ring {
	int fd;			/* the event whose buffer this is */
	void *base;
	size_t size;		/* data area */
	int event;		/* PERF_SESSION_CLOCK, PERF_SESSION_LIFE or a custom event's index */
	uint64_t lost;		/* records the kernel had no room for */
};

/* A custom event's id (as its samples carry it) and index. */
struct custom_id {
	uint64_t id;
	int index;
};

struct event_rings {
	struct perf_opts o;
	int ncpus;
	/* per CPU that could be opened: task-clock samples, task records, then each custom event's */
	struct ring *rings;
	int nrings;
	struct custom_id *custom_ids;
	size_t ncustom_ids;
	int *fds;		/* every event opened */
	size_t nfds, fds_cap;
	uint64_t *fork_ids;
	size_t nfork_ids;
	size_t page;
	/* the kernel refused PERF_FORMAT_LOST (before 6.0): custom events' losses are their LOST records alone */
	bool no_lost_format;
	char *tmp;		/* a record that wraps around the end of a ring */
	size_t tmp_cap;
	int extra_fd;		/* polled too, or -1 */
	/* what event_rings__read polls: every ring with a buffer, extra_fd, the region rings */
	struct pollfd *pfd;
	size_t pfd_cap;
	/* region probes: a ring per CPU (made by the first), and each event's id */
	struct ring *region_rings;
	struct custom_id *region_ids;
	size_t nregion_ids;
	int uprobe_type;	/* the uprobe PMU's, 0 until known */
	bool life_on_cpus;	/* perf_opts__life_on_cpus, unless not allowed */
};

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
			       unsigned long flags)
{
	return (int)syscall(__NR_perf_event_open, attr, pid, cpu, group, flags);
}

long event_rings__sysctl(const char *name)
{
	char path[128], buf[32];
	FILE *f;
	long v = -1;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 10);
	fclose(f);
	return v;
}

int event_rings__counts_cycles(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1, .exclude_kernel = 1, .exclude_hv = 1,
	};
	int fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

unsigned event_rings__pages_for(unsigned stack_snapshot)
{
	unsigned pages = 256;

	while ((uint64_t)pages * 4096 < 64 * ((uint64_t)stack_snapshot + 512))
		pages *= 2;
	return pages;
}

static void add_snapshot(const struct perf_opts *o, struct perf_event_attr *a)
{
	if (!o->stack_snapshot || !(o->capture & CAPTURE_USER))
		return;
	a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->sample_regs_user = LP_SAMPLE_REGS;
	a->sample_stack_user = o->stack_snapshot;
}

/* What both events share: inherited, started at exec, CLOCK_MONOTONIC times, the chosen stacks. */
static void common_attr(const struct perf_opts *o, struct perf_event_attr *a, uint64_t sample_type)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sample_type = sample_type;
	a->disabled = 1;
	a->enable_on_exec = o->enable_on_exec;
	a->inherit = !o->system_wide;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->exclude_callchain_kernel = !(o->capture & CAPTURE_KERNEL);
	a->exclude_callchain_user = !(o->capture & CAPTURE_USER);
	add_snapshot(o, a);
}

/* Wakes the reader when a ring of pages is a quarter full, or every wakeup_events samples. */
static void wakeup_attr(const struct perf_opts *o, struct perf_event_attr *a, unsigned pages)
{
	if (o->wakeup_events) {
		a->wakeup_events = o->wakeup_events;
	} else {
		a->watermark = 1;
		a->wakeup_watermark = (uint32_t)(pages * 4096 / 4);
	}
}

static void clock_attr(const struct perf_opts *o, struct perf_event_attr *a)
{
	common_attr(o, a, LP_SAMPLE_TYPE | (o->read_values ? PERF_SAMPLE_READ : 0));
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_TASK_CLOCK;
	/*
	 * The user stack is walked from the copy, not by the kernel: its walk
	 * reads user memory a frame at a time, which costs several times what
	 * one contiguous copy does (most under a hypervisor).
	 */
	if (a->sample_stack_user && !o->kernel_fp)
		a->exclude_callchain_user = 1;
	if (o->system_wide) {
		/* a CPU's time, whoever runs; its idle time is no one's */
		a->config = PERF_COUNT_SW_CPU_CLOCK;
		a->exclude_idle = 1;
	} else {
		/* each thread's task-clock total as it exits (PERF_RECORD_READ): its exact CPU time */
		a->inherit_stat = 1;
	}
	if (o->freq) {
		a->freq = 1;
		a->sample_freq = o->freq;
	} else {
		a->sample_period = o->period;
	}
	wakeup_attr(o, a, perf_opts__clock_pages(o));
}

/*
 * Events on a CPU for every task are not inherited, and enable_on_exec is
 * for events bound to the task that execs: those following a command or
 * processes count from their opening (the command waits to exec until then).
 */
static void on_cpus_attr(const struct perf_opts *o, bool on_cpus, struct perf_event_attr *a)
{
	if (!on_cpus)
		return;
	a->inherit = 0;
	a->enable_on_exec = 0;
	if (!o->system_wide)
		a->disabled = 0;
}

/*
 * The records that follow tasks and mappings, in rings of their own: samples
 * that overflow theirs must not take spawns, execs and exits with them.
 */
static void life_attr(const struct perf_opts *o, bool on_cpus, struct perf_event_attr *a)
{
	common_attr(o, a, LP_SAMPLE_TYPE);
	on_cpus_attr(o, on_cpus, a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	/*
	 * Each record wakes the recorder: a file mapped (a library loaded with
	 * dlopen) has its code regions' probes attached a poll's round trip
	 * later, not when a quarter of the ring has filled. These records are
	 * few beside the samples.
	 */
	if (o->wakeup_events) {
		a->wakeup_events = o->wakeup_events;
	} else {
		a->watermark = 1;
		a->wakeup_watermark = 1;
	}
}

bool perf_custom__no_period(const struct perf_custom *c)
{
	return c->period > 1 && (c->type == PERF_TYPE_SOFTWARE || c->type == PERF_TYPE_TRACEPOINT);
}

static void custom_attr(const struct perf_opts *o, const struct perf_custom *c, struct perf_event_attr *a)
{
	common_attr(o, a, (LP_SAMPLE_TYPE & ~(perf_custom__no_period(c) ? PERF_SAMPLE_PERIOD : 0)) |
		    (c->tracepoint ? PERF_SAMPLE_RAW : 0));
	a->type = c->type;
	a->config = c->config;
	a->config1 = c->config1;
	a->config2 = c->config2;
	a->sample_period = c->period;
	/*
	 * Events that fire in bursts (syscalls, faults) at the leaf of a libc
	 * wrapper: the snapshot is for CFI to find the wrapper's caller, which
	 * a small one does, as off the CPU, at a fraction of the copying.
	 */
	if (a->sample_stack_user > CUSTOM_SNAPSHOT)
		a->sample_stack_user = CUSTOM_SNAPSHOT;
	/* read() says whether it was multiplexed */
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	wakeup_attr(o, a, o->mmap_pages * PERF_CUSTOM_RING_FACTOR);
}

static void fork_attr(const struct perf_opts *o, bool on_cpus, struct perf_event_attr *a)
{
	common_attr(o, a, LP_SAMPLE_TYPE | PERF_SAMPLE_RAW);
	on_cpus_attr(o, on_cpus, a);
	a->type = PERF_TYPE_TRACEPOINT;
	a->config = (uint64_t)o->fork_tracepoint;
	a->sample_period = 1;
	/*
	 * Spawns come in bursts into the rings of task records, and the kernel
	 * walks their frame pointers: the copy is for CFI at clone's callers.
	 */
	if (a->sample_stack_user > FORK_SNAPSHOT)
		a->sample_stack_user = FORK_SNAPSHOT;
}

static int keep_fd(struct event_rings *s, int fd)
{
	if (s->nfds == s->fds_cap) {
		size_t cap = s->fds_cap ? s->fds_cap * 2 : 16;
		int *v = realloc(s->fds, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->fds = v;
		s->fds_cap = cap;
	}
	s->fds[s->nfds++] = fd;
	return 0;
}

/*
 * Opens one event of pid on cpu into ring (mapping the ring when it has none
 * yet: the first task). -errno, ENODEV for an offline CPU.
 */
static int open_into(struct event_rings *s, struct perf_event_attr *attr, pid_t pid, int cpu, struct ring *r,
		     unsigned pages, struct lp_error *err, enum lp_error_kind kind, const char *what)
{
	int fd = sys_perf_event_open(attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC), ret;

	if (fd < 0) {
		ret = errno;
		if (ret == ENODEV || ret == ENXIO)
			return -ENODEV;
		lp_error__set_kind(err, kind, 0, "perf_event_open of %s", what);
		return -ret;
	}
	if ((ret = keep_fd(s, fd)) < 0) {
		close(fd);
		return ret;
	}
	if (!r->base) {
		r->size = pages * s->page;
		r->base = mmap(NULL, r->size + s->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (r->base == MAP_FAILED) {
			ret = errno;
			r->base = NULL;
			lp_error__set(err, 0, "mmap of the ring buffer of %s (see -m)", what);
			return -ret;
		}
		r->fd = fd;
	} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0) {
		ret = errno;
		lp_error__set(err, 0, "redirecting a thread's %s", what);
		return -ret;
	}
	return fd;
}

static int open_task(struct event_rings *s, pid_t pid, bool first, struct lp_error *err)
{
	struct perf_event_attr attr;
	/* events on the CPUs: the first task's opening serves every task followed */
	bool on_cpus = s->life_on_cpus;
	pid_t life_pid = on_cpus ? -1 : pid;
	int opened = 0;

	if (on_cpus && !first)
		return 0;
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		struct ring *samples = &s->rings[cpu], *life = &s->rings[s->ncpus + cpu];
		int fd;

		/* a CPU that was offline when the first task's events were opened has no rings */
		if (!first && !life->base)
			continue;
		if (s->o.cpu_mask && (cpu >= 1024 || !(s->o.cpu_mask[cpu / 64] >> (cpu % 64) & 1)))
			continue;
		if (perf_opts__samples(&s->o)) {
			clock_attr(&s->o, &attr);
			fd = open_into(s, &attr, pid, cpu, samples, perf_opts__clock_pages(&s->o), err, LP_ERROR_OTHER, "task-clock");
			if (fd == -EINVAL && s->o.read_values && first && cpu == 0) {
				/* older kernels refuse PERF_SAMPLE_READ with inherit */
				s->o.read_values = false;
				clock_attr(&s->o, &attr);
				fd = open_into(s, &attr, pid, cpu, samples, perf_opts__clock_pages(&s->o), err, LP_ERROR_OTHER, "task-clock");
			}
			if (fd == -ENODEV)
				continue;
			if (fd < 0)
				return fd;
		}
		life_attr(&s->o, on_cpus, &attr);
		fd = open_into(s, &attr, life_pid, cpu, life, LIFE_PAGES, err, LP_ERROR_OTHER, "task and mapping records");
		if ((fd == -EACCES || fd == -EPERM) && on_cpus && !s->o.system_wide && opened == 0) {
			/* events on a CPU for every task need CAP_PERFMON (or perf_event_paranoid <= 0) */
			lp_error__clear(err);
			s->life_on_cpus = false;
			return open_task(s, pid, first, err);
		}
		if (fd == -ENODEV)
			continue;
		if (fd < 0)
			return fd;
		for (size_t k = 0; k < s->o.ncustoms; k++) {
			const struct perf_custom *c = &s->o.customs[k];
			struct custom_id *v;
			uint64_t id;

			char what[192];

			custom_attr(&s->o, c, &attr);
			snprintf(what, sizeof(what), "event '%s'", c->name);
			/*
			 * read() says how many samples the kernel dropped: a ring
			 * full at the end of a burst has its LOST record written only
			 * at the next sample, and none comes once the command ended
			 */
			if (!s->no_lost_format)
				attr.read_format |= PERF_FORMAT_LOST;
			fd = open_into(s, &attr, pid, cpu, &s->rings[(2 + k) * (size_t)s->ncpus + (size_t)cpu],
				       s->o.mmap_pages * PERF_CUSTOM_RING_FACTOR, err, LP_ERROR_EVENT, what);
			if (fd == -EINVAL && !s->no_lost_format) {
				s->no_lost_format = true;
				attr.read_format &= ~(uint64_t)PERF_FORMAT_LOST;
				fd = open_into(s, &attr, pid, cpu, &s->rings[(2 + k) * (size_t)s->ncpus + (size_t)cpu],
					       s->o.mmap_pages * PERF_CUSTOM_RING_FACTOR, err, LP_ERROR_EVENT, what);
			}
			if (fd < 0)
				return fd;
			if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0) {
				lp_error__set(err, 0, "the id of event '%s'", c->name);
				return -errno;
			}
			v = realloc(s->custom_ids, (s->ncustom_ids + 1) * sizeof(*v));
			if (!v)
				return -ENOMEM;
			s->custom_ids = v;
			s->custom_ids[s->ncustom_ids++] = (struct custom_id){ id, (int)k };
		}
		if (s->o.fork_tracepoint >= 0) {
			uint64_t id;
			uint64_t *ids;
			int tfd;

			fork_attr(&s->o, on_cpus, &attr);
			tfd = sys_perf_event_open(&attr, life_pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
			if (tfd >= 0) {
				if (keep_fd(s, tfd) < 0 || ioctl(tfd, PERF_EVENT_IOC_SET_OUTPUT, life->fd) < 0 ||
				    ioctl(tfd, PERF_EVENT_IOC_ID, &id) < 0) {
					lp_error__set(err, 0, "the fork tracepoint");
					return -errno;
				}
				ids = realloc(s->fork_ids, (s->nfork_ids + 1) * sizeof(*ids));
				if (!ids)
					return -ENOMEM;
				s->fork_ids = ids;
				s->fork_ids[s->nfork_ids++] = id;
			}
		}
		opened++;
	}
	if (opened == 0) {
		lp_error__set(err, 0, "perf_event_open on any CPU");
		return -ENODEV;
	}
	return 0;
}

struct event_rings *event_rings__open(pid_t pid, const struct perf_opts *o, struct lp_error *err)
{
	struct event_rings *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return NULL;
	s->o = *o;
	/* a system-wide counter's value is the CPU's, not a thread's */
	if (!perf_opts__samples(o) || o->system_wide)
		s->o.read_values = false;
	s->extra_fd = -1;
	s->life_on_cpus = perf_opts__life_on_cpus(o);
	s->page = (size_t)sysconf(_SC_PAGESIZE);
	s->ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	s->nrings = (int)(2 + o->ncustoms) * s->ncpus;
	s->rings = calloc((size_t)s->nrings, sizeof(*s->rings));
	if (!s->rings) {
		free(s);
		return NULL;
	}
	for (int i = 0; i < s->nrings; i++) {
		s->rings[i].fd = -1;
		s->rings[i].event = i < s->ncpus ? PERF_SESSION_CLOCK : i < 2 * s->ncpus ? PERF_SESSION_LIFE :
			i / s->ncpus - 2;
	}
	ret = open_task(s, pid, true, err);
	if (ret < 0) {
		event_rings__free(s);
		errno = -ret;
		return NULL;
	}
	return s;
}

/* The uprobe PMU's type (sysfs), or -errno. */
static int uprobe_type(struct event_rings *s)
{
	char buf[32];
	FILE *f;
	long v = -1;

	if (s->uprobe_type > 0)
		return s->uprobe_type;
	if (!(f = fopen("/sys/bus/event_source/devices/uprobe/type", "re")))
		return -errno;
	if (fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 10);
	fclose(f);
	if (v <= 0 || v > INT32_MAX)
		return -ENOENT;
	return s->uprobe_type = (int)v;
}

int event_rings__add_uprobe(struct event_rings *s, const char *path, uint64_t offset, int index,
			     bool with_regs, struct lp_error *err)
{
	struct perf_event_attr a;
	int type = uprobe_type(s), opened = 0, ret;

	if (type < 0) {
		lp_error__set(err, 0, "the kernel's uprobe PMU (/sys/bus/event_source/devices/uprobe)");
		return type;
	}
	if (!s->region_rings) {
		if (!(s->region_rings = calloc((size_t)s->ncpus, sizeof(*s->region_rings))))
			return -ENOMEM;
		for (int cpu = 0; cpu < s->ncpus; cpu++) {
			s->region_rings[cpu].fd = -1;
			s->region_rings[cpu].event = PERF_SESSION_REGIONS;
		}
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = (uint32_t)type;
	a.config1 = (uint64_t)(uintptr_t)path;
	a.config2 = offset;
	a.sample_period = 1;
	a.sample_type = REGION_SAMPLE_TYPE;
	if (with_regs) {
		a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a.sample_regs_user = REGION_REGS;
		a.sample_stack_user = REGION_STACK;
	}
	/* a region entered at every step of a loop fills rings fast: woken at a quarter, drained */
	a.watermark = 1;
	a.wakeup_watermark = REGION_PAGES * 4096 / 4;
	a.sample_id_all = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.exclude_kernel = 1;
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		struct custom_id *v;
		uint64_t id;
		int fd;

		if (s->o.cpu_mask && (cpu >= 1024 || !(s->o.cpu_mask[cpu / 64] >> (cpu % 64) & 1)))
			continue;
		fd = open_into(s, &a, -1, cpu, &s->region_rings[cpu], REGION_PAGES, err, LP_ERROR_OTHER, "a region probe");
		if (fd == -ENODEV)
			continue;
		if (fd < 0)
			return fd;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0) {
			ret = -errno;
			lp_error__set(err, 0, "the id of a region probe");
			return ret;
		}
		if (!(v = realloc(s->region_ids, (s->nregion_ids + 1) * sizeof(*v))))
			return -ENOMEM;
		s->region_ids = v;
		s->region_ids[s->nregion_ids++] = (struct custom_id){ id, index };
		opened++;
	}
	if (!opened) {
		lp_error__set(err, 0, "a region probe on any CPU");
		return -ENODEV;
	}
	return 0;
}

int event_rings__region_of(const struct event_rings *s, uint64_t id)
{
	for (size_t i = 0; s && i < s->nregion_ids; i++)
		if (s->region_ids[i].id == id)
			return s->region_ids[i].index;
	return -1;
}

int event_rings__add_task(struct event_rings *s, pid_t pid, struct lp_error *err)
{
	return open_task(s, pid, false, err);
}

void event_rings__close_events(struct event_rings *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nrings; i++)
		if (s->rings[i].base) {
			munmap(s->rings[i].base, s->rings[i].size + s->page);
			s->rings[i].base = NULL;
		}
	for (int i = 0; s->region_rings && i < s->ncpus; i++)
		if (s->region_rings[i].base) {
			munmap(s->region_rings[i].base, s->region_rings[i].size + s->page);
			s->region_rings[i].base = NULL;
		}
	for (size_t i = 0; i < s->nfds; i++)
		close(s->fds[i]);
	s->nfds = 0;
}

void event_rings__free(struct event_rings *s)
{
	if (!s)
		return;
	event_rings__close_events(s);
	free(s->region_rings);
	free(s->region_ids);
	free(s->pfd);
	free(s->fds);
	free(s->rings);
	free(s->fork_ids);
	free(s->custom_ids);
	free(s->tmp);
	free(s);
}

static int ioctl_all(struct event_rings *s, unsigned long request)
{
	for (size_t i = 0; i < s->nfds; i++)
		if (ioctl(s->fds[i], request, 0) < 0)
			return -errno;
	return 0;
}

int event_rings__enable(struct event_rings *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_ENABLE);
}

int event_rings__disable(struct event_rings *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_DISABLE);
}

void event_rings__poll_also(struct event_rings *s, int fd)
{
	s->extra_fd = fd;
}

struct perf_layout event_rings__layout(const struct event_rings *s)
{
	return (struct perf_layout){
		.read_value = s->o.read_values,
		.regs_and_stack = s->o.stack_snapshot && (s->o.capture & CAPTURE_USER),
	};
}

int event_rings__custom_of(const struct event_rings *s, uint64_t id)
{
	for (size_t i = 0; s && i < s->ncustom_ids; i++)
		if (s->custom_ids[i].id == id)
			return s->custom_ids[i].index;
	return -1;
}

int event_rings__clock_total(const struct event_rings *s, uint64_t *total)
{
	uint64_t sum = 0, v;
	int n = 0;

	if (!perf_opts__samples(&s->o))
		return -ENOENT;
	/* the first task's task-clock events own the sample rings */
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		if (s->rings[cpu].fd < 0)
			continue;
		if (read(s->rings[cpu].fd, &v, sizeof(v)) != sizeof(v))
			return -errno;
		sum += v;
		n++;
	}
	if (!n)
		return -ENOENT;
	*total = sum;
	return 0;
}

int event_rings__custom_times(const struct event_rings *s, size_t k, uint64_t *value, uint64_t *enabled,
			       uint64_t *running, uint64_t *lost, uint64_t *enabled_sum)
{
	uint64_t v[4] = { 0 };
	size_t size = s->no_lost_format ? 3 * sizeof(v[0]) : sizeof(v);
	int n = 0;

	*value = *enabled = *running = *lost = *enabled_sum = 0;
	if (k >= s->o.ncustoms)
		return -EINVAL;
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		const struct ring *r = &s->rings[(2 + k) * (size_t)s->ncpus + (size_t)cpu];

		if (r->fd < 0)
			continue;
		if (read(r->fd, v, size) != (ssize_t)size)
			return -errno;
		/*
		 * A task's event on one CPU is enabled while the task runs
		 * anywhere and runs while it runs there: the CPUs' running
		 * times add up to one enabled time unless it was multiplexed.
		 */
		*value += v[0];
		if (v[1] > *enabled)
			*enabled = v[1];
		*enabled_sum += v[1];
		*running += v[2];
		*lost += v[3];
		n++;
	}
	return n ? 0 : -ENOENT;
}

uint64_t event_rings__lost(const struct event_rings *s, int event)
{
	uint64_t n = 0;

	for (int i = 0; s && i < s->nrings; i++)
		if (s->rings[i].event == event)
			n += s->rings[i].lost;
	for (int i = 0; s && event == PERF_SESSION_REGIONS && s->region_rings && i < s->ncpus; i++)
		n += s->region_rings[i].lost;
	return n;
}

bool event_rings__is_fork_id(const struct event_rings *s, uint64_t id)
{
	for (size_t i = 0; s && i < s->nfork_ids; i++)
		if (s->fork_ids[i] == id)
			return true;
	return false;
}

static int drain(struct event_rings *s, struct ring *r, perf_record_fn fn, void *ctx)
{
	struct perf_event_mmap_page *pg = r->base;
	char *data = (char *)r->base + s->page;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	int n = 0, ret = 0;

	while (tail < head) {
		size_t at = (size_t)(tail % r->size);
		struct perf_event_header *h = (struct perf_event_header *)(data + at);
		size_t size = h->size;

		if (size < sizeof(*h) || size > r->size) {
			ret = -EPROTO;
			break;
		}
		if (at + size > r->size) {
			size_t first = r->size - at;

			if (size > s->tmp_cap) {
				char *t = realloc(s->tmp, size);

				if (!t) {
					ret = -ENOMEM;
					break;
				}
				s->tmp = t;
				s->tmp_cap = size;
			}
			memcpy(s->tmp, data + at, first);
			memcpy(s->tmp + first, data, size - first);
			h = (struct perf_event_header *)s->tmp;
		}
		if (h->type == PERF_RECORD_LOST)
			r->lost += perf_lost__count(h);
		ret = fn(ctx, h);
		if (ret < 0)
			break;
		tail += size;
		n++;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return ret < 0 ? ret : n;
}

/* Adds fd to what the next poll waits on; the set has room (poll_set__fit). */
static void poll_set__add(struct event_rings *s, size_t *n, int fd)
{
	s->pfd[*n] = (struct pollfd){ .fd = fd, .events = POLLIN };
	(*n)++;
}

/*
 * Room for every descriptor a read may poll: two rings per CPU and one
 * more per -e event, so a big machine or many events needs hundreds.
 */
static int poll_set__fit(struct event_rings *s)
{
	size_t need = (size_t)s->nrings + 1 + (s->region_rings ? (size_t)s->ncpus : 0);
	struct pollfd *p;

	if (need <= s->pfd_cap)
		return 0;
	if (!(p = realloc(s->pfd, need * sizeof(*p))))
		return -ENOMEM;
	s->pfd = p;
	s->pfd_cap = need;
	return 0;
}

int event_rings__read(struct event_rings *s, int timeout_ms, perf_record_fn fn, void *ctx,
		       bool *hangup)
{
	struct pollfd *pfd;
	size_t n = 0, m, hung = 0;
	int total = 0, ret;

	if ((ret = poll_set__fit(s)) < 0)
		return ret;
	pfd = s->pfd;
	for (int i = 0; i < s->nrings; i++)
		if (s->rings[i].base)
			poll_set__add(s, &n, s->rings[i].fd);
	/* then the other descriptors waited on, which say nothing of the tasks' end */
	m = n;
	if (s->extra_fd >= 0)
		poll_set__add(s, &m, s->extra_fd);
	for (int i = 0; s->region_rings && i < s->ncpus; i++)
		if (s->region_rings[i].base)
			poll_set__add(s, &m, s->region_rings[i].fd);
	if (timeout_ms != 0 && poll(pfd, (nfds_t)m, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	for (size_t i = 0; i < n; i++)
		if (pfd[i].revents & (POLLHUP | POLLERR))
			hung++;
	*hangup = n > 0 && hung == n;
	for (int i = 0; i < s->nrings; i++) {
		if (!s->rings[i].base)
			continue;
		if ((ret = drain(s, &s->rings[i], fn, ctx)) < 0)
			return ret;
		total += ret;
	}
	/* (their rings never hang up: a system-wide event outlives the tasks) */
	for (int i = 0; s->region_rings && i < s->ncpus; i++) {
		if (!s->region_rings[i].base)
			continue;
		if ((ret = drain(s, &s->region_rings[i], fn, ctx)) < 0)
			return ret;
		total += ret;
	}
	return total;
}
