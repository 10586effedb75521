/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "record/eventlist.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record/pfmload.h"

#include "record/tracefs.h"

struct walk {
	char *glob;		/* the pattern as a glob, or NULL: every event */
	int (*fn)(void *ctx, const struct event_info *e);
	void *ctx;
	int stop;
};

/* Whether the walk goes on and name is one it is after. */
static bool wanted(const struct walk *w, const char *name)
{
	return !w->stop && (!w->glob || fnmatch(w->glob, name, FNM_CASEFOLD) == 0);
}

static void report(struct walk *w, const char *name, enum event_kind kind, const char *unavailable)
{
	struct event_info e = { name, kind, unavailable };

	w->stop = w->fn(w->ctx, &e);
}

static void visit(struct walk *w, const char *name, enum event_kind kind)
{
	if (wanted(w, name))
		report(w, name, kind, NULL);
}

/* Why event e cannot be counted here, trying it on this thread; NULL when it can. */
static const char *try_open(const struct event_spec *e)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = e->type, .config = e->config, .config1 = e->config1,
		.config2 = e->config2, .disabled = 1, .exclude_kernel = 1, .exclude_hv = 1,
	};
	int fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return NULL;
	}
	switch (errno) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return "not supported here: no PMU counts it";
	case EACCES:
	case EPERM:
		return "not permitted (kernel.perf_event_paranoid, or run as root)";
	default:
		return strerror(errno);
	}
}

static void generic(void *ctx, const char *name, enum event_kind kind)
{
	struct walk *w = ctx;
	struct event_spec e;

	/* trying an event costs a perf_event_open: only those asked for */
	if (!wanted(w, name) || event_spec__parse(&e, name, NULL, NULL) < 0)
		return;
	report(w, name, kind, try_open(&e));
	event_spec__release(&e);
}

static bool is_dir_entry(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* pmu/alias/ for each alias in sysfs */
static void pmu_aliases(struct walk *w)
{
	const char *root = "/sys/bus/event_source/devices";
	DIR *pmus = opendir(root), *events;
	struct dirent *p, *a;
	char path[512], name[600];

	while (pmus && !w->stop && (p = readdir(pmus))) {
		if (!is_dir_entry(p))
			continue;
		snprintf(path, sizeof(path), "%s/%s/events", root, p->d_name);
		if (!(events = opendir(path)))
			continue;
		while (!w->stop && (a = readdir(events))) {
			/* .scale, .unit... describe an alias */
			if (!is_dir_entry(a) || strchr(a->d_name, '.'))
				continue;
			snprintf(name, sizeof(name), "%s/%s/", p->d_name, a->d_name);
			visit(w, name, EVENT_PMU);
		}
		closedir(events);
	}
	if (pmus)
		closedir(pmus);
}

static void tracepoints(struct walk *w)
{
	const char *dir = tracefs__dir();
	char path[512], name[600];
	DIR *systems, *events;
	struct dirent *s, *e;

	if (!dir || (snprintf(path, sizeof(path), "%s/events", dir), !(systems = opendir(path))))
		return;
	while (!w->stop && (s = readdir(systems))) {
		if (!is_dir_entry(s))
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", dir, s->d_name);
		if (!(events = opendir(path)))
			continue;
		while (!w->stop && (e = readdir(events))) {
			if (!is_dir_entry(e) || e->d_type != DT_DIR)
				continue;
			snprintf(name, sizeof(name), "%s:%s", s->d_name, e->d_name);
			visit(w, name, EVENT_TRACEPOINT);
		}
		closedir(events);
	}
	closedir(systems);
}

/* PMU::EVENT for each event of each PMU libpfm4 finds present */
static void pfm_events(struct walk *w)
{
	pfm_pmu_info_t pinfo;
	pfm_event_info_t info;
	char name[512];
	int p;

	if (pfmload__initialize() != PFM_SUCCESS)
		return;
	pfm_for_all_pmus(p) {
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfmload__get_pmu_info(p, &pinfo) != PFM_SUCCESS || !pinfo.is_present || pinfo.type == PFM_PMU_TYPE_OS_GENERIC)
			continue;
		for (int i = pinfo.first_event; i != -1 && !w->stop; i = pfmload__get_event_next(i)) {
			memset(&info, 0, sizeof(info));
			info.size = sizeof(info);
			if (pfmload__get_event_info(i, PFM_OS_PERF_EVENT, &info) != PFM_SUCCESS)
				continue;
			snprintf(name, sizeof(name), "%s::%s", pinfo.name, info.name);
			visit(w, name, EVENT_PFM);
		}
	}
}

int event_list__each(const char *pattern, int (*fn)(void *ctx, const struct event_info *e), void *ctx)
{
	struct walk w = { .fn = fn, .ctx = ctx };

	if (pattern && *pattern) {
		size_t n = strlen(pattern);

		w.glob = malloc(n + 3);
		if (!w.glob)
			return -ENOMEM;
		if (strpbrk(pattern, "*?["))
			memcpy(w.glob, pattern, n + 1);
		else
			snprintf(w.glob, n + 3, "*%s*", pattern);
	}
	event_spec__each_generic(generic, &w);
	pmu_aliases(&w);
	tracepoints(&w);
	pfm_events(&w);
	free(w.glob);
	return w.stop;
}

bool event_list__is_tracepoint_glob(const char *name)
{
	const char *colon = strchr(name, ':');

	return colon && colon != name && colon[1] && !strchr(colon + 1, ':') && !strchr(name, '/') &&
	       strpbrk(name, "*?[");
}

int event_list__tracepoints(const char *glob, int (*fn)(void *ctx, const char *name), void *ctx)
{
	const char *dir = tracefs__dir(), *colon = strchr(glob, ':');
	char path[512], name[600], sys_glob[256];
	DIR *systems, *events;
	struct dirent *s, *e;
	int found = 0, ret = 0;

	if (!colon || (size_t)(colon - glob) >= sizeof(sys_glob))
		return -EINVAL;
	if (!dir)
		return -errno;
	snprintf(sys_glob, sizeof(sys_glob), "%.*s", (int)(colon - glob), glob);
	snprintf(path, sizeof(path), "%s/events", dir);
	if (!(systems = opendir(path)))
		return -errno;
	while (ret == 0 && (s = readdir(systems))) {
		if (!is_dir_entry(s) || s->d_type != DT_DIR || fnmatch(sys_glob, s->d_name, 0) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", dir, s->d_name);
		if (!(events = opendir(path)))
			continue;
		while (ret == 0 && (e = readdir(events))) {
			if (!is_dir_entry(e) || e->d_type != DT_DIR || fnmatch(colon + 1, e->d_name, 0) != 0)
				continue;
			snprintf(name, sizeof(name), "%s:%s", s->d_name, e->d_name);
			found++;
			ret = fn(ctx, name);
		}
		closedir(events);
	}
	closedir(systems);
	return ret ? ret : found;
}
