// SPDX-License-Identifier: GPL-2.0-or-later
#include "stat/counters.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/numparse.h"

struct unit {
	int id;			/* tid or CPU */
	int process;		/* the thread's process (COUNTER_THREADS), else id */
	pid_t pid;		/* perf_event_open's */
	int cpu;
};

struct counters {
	struct counter_opts o;
	struct unit *units;
	size_t nunits;
	int *fds;		/* units x events, -1 where not open */
	struct counter_value *snap;	/* units x events: the last reading of each */
	bool *supported;	/* per event */
};

static int add_unit(struct counters *c, int id, int process, pid_t pid, int cpu)
{
	struct unit *u = realloc(c->units, (c->nunits + 1) * sizeof(*u));

	if (!u)
		return -ENOMEM;
	c->units = u;
	u[c->nunits++] = (struct unit){ .id = id, .process = process, .pid = pid, .cpu = cpu };
	return 0;
}

/* The threads of process pid now, as units (each inherited by what it spawns). */
static int add_threads(struct counters *c, pid_t pid, struct lp_error *err)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(dir = opendir(path)))
		return lp_error__set(err, errno == ENOENT ? -ESRCH : -errno, "no process %d", (int)pid);
	while (ret == 0 && (d = readdir(dir))) {
		uint64_t tid;

		if (numparse__u64(d->d_name, strlen(d->d_name), &tid) == 0)
			ret = add_unit(c, (int)tid, (int)pid, (pid_t)tid, -1);
	}
	closedir(dir);
	return ret;
}

/* The online CPUs (of mask, where given), from sysfs' list "0-3,5". */
static int add_cpus(struct counters *c, const uint64_t *mask)
{
	char buf[4096], *p;
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	int ret = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	for (p = strtok(buf, ",\n"); p && ret == 0; p = strtok(NULL, ",\n")) {
		unsigned lo, hi;
		int n = sscanf(p, "%u-%u", &lo, &hi);

		if (n < 1)
			return -EIO;
		if (n == 1)
			hi = lo;
		for (unsigned cpu = lo; cpu <= hi && ret == 0; cpu++)
			if (!mask || (cpu < 1024 && mask[cpu / 64] >> (cpu % 64) & 1))
				ret = add_unit(c, (int)cpu, (int)cpu, -1, (int)cpu);
	}
	return ret;
}

static void fill_attr(const struct counters *c, const struct counter_event *e, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = e->type;
	a->config = e->config;
	a->config1 = e->config1;
	a->config2 = e->config2;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a->disabled = 1;
	if (c->o.scope != COUNTER_CPUS)
		a->inherit = 1;
	if (c->o.scope == COUNTER_TASK && c->o.enable_on_exec)
		a->enable_on_exec = 1;
}

/* Errors of perf_event_open that say the machine has no such event (perf's <not supported>). */
static bool not_here(int e, uint32_t type)
{
	if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV)
		return true;
	/* hardware events a PMU refuses by their encoding */
	return e == EINVAL && type != PERF_TYPE_SOFTWARE && type != PERF_TYPE_TRACEPOINT;
}

static int refused(const struct counter_event *e, int errnum, struct lp_error *err)
{
	if (errnum == EACCES || errnum == EPERM) {
		FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
		int level = 2;

		if (f) {
			if (fscanf(f, "%d", &level) != 1)
				level = 2;
			fclose(f);
		}
		return lp_error__set_kind(err, LP_ERROR_EVENT, -errnum,
					  "not allowed to count '%s' (perf_event_paranoid is %d): run as root, "
					  "or lower it with 'sysctl kernel.perf_event_paranoid=-1'", e->name, level);
	}
	return lp_error__set_kind(err, LP_ERROR_EVENT, -errnum, "cannot count '%s': %s", e->name,
				  strerror(errnum));
}

static int open_event(struct counters *c, size_t k, struct lp_error *err)
{
	const struct counter_event *e = &c->o.events[k];
	struct perf_event_attr a;
	size_t opened = 0;

	fill_attr(c, e, &a);
	for (size_t u = 0; u < c->nunits; u++) {
		const struct unit *un = &c->units[u];
		int fd = (int)syscall(__NR_perf_event_open, &a, un->pid, un->cpu, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd >= 0) {
			c->fds[u * c->o.nevents + k] = fd;
			opened++;
			continue;
		}
		/* a thread gone since it was listed, a CPU gone offline: nothing there to count */
		if (errno == ESRCH || (errno == ENODEV && c->o.scope == COUNTER_CPUS && opened))
			continue;
		if (not_here(errno, e->type))
			return 0;
		return refused(e, errno, err);
	}
	if (opened == 0 && c->o.scope == COUNTER_THREADS)
		return lp_error__set(err, -ESRCH, "the processes to count have exited");
	c->supported[k] = opened > 0;
	return 0;
}

struct counters *counters__open(const struct counter_opts *o, struct lp_error *err)
{
	struct counters *c = calloc(1, sizeof(*c));
	int ret = 0;

	if (!c)
		return NULL;
	c->o = *o;
	if (o->scope == COUNTER_CPUS)
		ret = add_cpus(c, o->cpu_mask);
	else if (o->scope == COUNTER_TASK)
		ret = o->npids ? add_unit(c, o->pids[0], o->pids[0], o->pids[0], -1) : -EINVAL;
	else
		for (size_t i = 0; i < o->npids && ret == 0; i++)
			ret = add_threads(c, o->pids[i], err);
	if (ret == 0 && c->nunits == 0)
		ret = lp_error__set(err, -ENODEV, "no CPU to count on");
	if (ret == 0 && (!(c->fds = malloc(c->nunits * (o->nevents ? o->nevents : 1) * sizeof(int))) ||
			 !(c->snap = calloc(c->nunits * (o->nevents ? o->nevents : 1), sizeof(*c->snap))) ||
			 !(c->supported = calloc(o->nevents ? o->nevents : 1, sizeof(bool)))))
		ret = -ENOMEM;
	if (ret == 0)
		for (size_t i = 0; i < c->nunits * o->nevents; i++)
			c->fds[i] = -1;
	for (size_t k = 0; ret == 0 && k < o->nevents; k++)
		ret = open_event(c, k, err);
	if (ret < 0) {
		counters__free(c);
		errno = -ret;
		return NULL;
	}
	return c;
}

void counters__free(struct counters *c)
{
	if (!c)
		return;
	for (size_t i = 0; c->fds && i < c->nunits * c->o.nevents; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	free(c->fds);
	free(c->snap);
	free(c->supported);
	free(c->units);
	free(c);
}

/* Every event, even past one that fails (a thread's that exited): the first error. */
static int each_ioctl(struct counters *c, unsigned long request)
{
	int ret = 0;

	for (size_t i = 0; i < c->nunits * c->o.nevents; i++)
		if (c->fds[i] >= 0 && ioctl(c->fds[i], request, 0) < 0 && ret == 0)
			ret = -errno;
	return ret;
}

int counters__enable(struct counters *c)
{
	return each_ioctl(c, PERF_EVENT_IOC_ENABLE);
}

int counters__disable(struct counters *c)
{
	return each_ioctl(c, PERF_EVENT_IOC_DISABLE);
}

size_t counters__units(const struct counters *c)
{
	return c->nunits;
}

int counters__unit_id(const struct counters *c, size_t unit)
{
	return unit < c->nunits ? c->units[unit].id : -1;
}

int counters__unit_process(const struct counters *c, size_t unit)
{
	return unit < c->nunits ? c->units[unit].process : -1;
}

bool counters__supported(const struct counters *c, size_t k)
{
	return k < c->o.nevents && c->supported[k];
}

static int read_one(int fd, struct counter_value *v)
{
	uint64_t buf[3];
	ssize_t n;

	if (fd < 0)
		return 0;
	if ((n = read(fd, buf, sizeof(buf))) != (ssize_t)sizeof(buf))
		return n < 0 ? -errno : -EIO;
	*v = (struct counter_value){ .value = buf[0], .enabled = buf[1], .running = buf[2] };
	return 0;
}

int counters__snapshot(struct counters *c)
{
	int ret = 0;

	for (size_t i = 0; ret == 0 && i < c->nunits * c->o.nevents; i++)
		ret = read_one(c->fds[i], &c->snap[i]);
	return ret;
}

int counters__read(const struct counters *c, size_t k, size_t unit, struct counter_value *v)
{
	memset(v, 0, sizeof(*v));
	if (k >= c->o.nevents)
		return -EINVAL;
	for (size_t u = 0; u < c->nunits; u++)
		if (unit == SIZE_MAX || unit == u)
			counter_value__add(v, &c->snap[u * c->o.nevents + k]);
	return 0;
}

enum counter_state counter_value__judge(const struct counter_value *v, bool supported, double *scaled,
					bool *implausible)
{
	*scaled = 0;
	*implausible = false;
	if (!supported)
		return COUNTER_NOT_SUPPORTED;
	if (v->running == 0)
		return COUNTER_NOT_COUNTED;
	if (v->value >= 1ULL << 47) {
		*implausible = true;
		return COUNTER_NOT_COUNTED;
	}
	*scaled = (double)v->value;
	if (v->running < v->enabled)
		*scaled *= (double)v->enabled / (double)v->running;
	return COUNTER_COUNTED;
}

void counter_value__add(struct counter_value *a, const struct counter_value *b)
{
	a->value += b->value;
	a->enabled += b->enabled;
	a->running += b->running;
}

struct counter_value counter_value__delta(const struct counter_value *b, const struct counter_value *a)
{
	return (struct counter_value){
		.value = b->value - a->value, .enabled = b->enabled - a->enabled, .running = b->running - a->running,
	};
}
