/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "plugin-regions.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/sdt.h"

struct probe {
	uint64_t addr;
	uint32_t name;		/* in names; UINT32_MAX: the function form's */
	bool begin;
};

enum { MAX_DEPTH = 32, MAX_CONTEXTS = 4096 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct probe *probes;
static int nprobes;
static char **names;
static uint32_t nnames;
static char *contexts[MAX_CONTEXTS] = { "" };	/* "a;b" */
static uint32_t ncontexts = 1;

/* each thread's open regions, outermost first (names' ids) */
static __thread uint32_t open_regions[MAX_DEPTH];
static __thread int depth;
static __thread uint32_t context;

static uint32_t name_id(const char *name, size_t len)
{
	char **v;

	for (uint32_t i = 0; i < nnames; i++)
		if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
			return i;
	if (!(v = realloc(names, (nnames + 1) * sizeof(*v))) || !(v[nnames] = strndup(name, len))) {
		if (v)
			names = v;
		return UINT32_MAX;
	}
	names = v;
	return nnames++;
}

struct scan {
	uint64_t start, end, pgoff;
};

static int found(void *ctx, const struct sdt_probe *p)
{
	const struct scan *m = ctx;
	size_t len = strlen(p->name);
	struct probe *v, pr;

	if (strcmp(p->provider, "lp") != 0 || p->offset < m->pgoff || p->offset - m->pgoff >= m->end - m->start)
		return 0;
	pr.addr = m->start + (p->offset - m->pgoff);
	if (strcmp(p->name, "region_begin") == 0 || strcmp(p->name, "region_end") == 0) {
		pr.name = UINT32_MAX;
		pr.begin = p->name[7] == 'b';
	} else if (len > 7 && strcmp(p->name + len - 7, "__begin") == 0) {
		pr.name = name_id(p->name, len - 7);
		pr.begin = true;
	} else if (len > 5 && strcmp(p->name + len - 5, "__end") == 0) {
		pr.name = name_id(p->name, len - 5);
		pr.begin = false;
	} else {
		return 0;
	}
	for (int i = 0; i < nprobes; i++)
		if (probes[i].addr == pr.addr)
			return 0;
	if (!(v = realloc(probes, (size_t)(nprobes + 1) * sizeof(*v))))
		return 0;
	probes = v;
	probes[nprobes] = pr;
	__atomic_store_n(&nprobes, nprobes + 1, __ATOMIC_RELEASE);
	return 0;
}

void regions__scan(const char *path, uint64_t start, uint64_t end, uint64_t pgoff)
{
	struct scan m = { start, end, pgoff };

	pthread_mutex_lock(&lock);
	sdt__each(path, found, &m);
	pthread_mutex_unlock(&lock);
}

int regions__probe_at(uint64_t addr)
{
	int ret = -1;

	/* most programs have none: every instruction translated asks */
	if (!__atomic_load_n(&nprobes, __ATOMIC_ACQUIRE))
		return -1;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < nprobes && ret < 0; i++)
		if (probes[i].addr == addr)
			ret = i;
	pthread_mutex_unlock(&lock);
	return ret;
}

bool regions__unnamed(int probe)
{
	return probes[probe].name == UINT32_MAX;
}

/* The context of the open regions, made when new (lock held) */
static uint32_t context_of(void)
{
	char text[MAX_DEPTH * 64 + 1] = "";
	size_t at = 0;

	for (int i = 0; i < depth; i++)
		at += (size_t)snprintf(text + at, sizeof(text) - at, "%s%s", i ? ";" : "", names[open_regions[i]]);
	for (uint32_t c = 1; c < ncontexts; c++)
		if (strcmp(contexts[c], text) == 0)
			return c;
	if (ncontexts == MAX_CONTEXTS || !(contexts[ncontexts] = strdup(text)))
		return 0;
	return ncontexts++;
}

uint32_t regions__pass(int probe)
{
	const struct probe *p = &probes[probe];

	if (p->name == UINT32_MAX)
		return context;
	pthread_mutex_lock(&lock);
	if (p->begin) {
		if (depth < MAX_DEPTH)
			open_regions[depth++] = p->name;
	} else {
		/* the innermost open region of that name ends, and those opened inside it */
		for (int i = depth - 1; i >= 0; i--)
			if (open_regions[i] == p->name) {
				depth = i;
				break;
			}
	}
	context = depth ? context_of() : 0;
	pthread_mutex_unlock(&lock);
	return context;
}

uint32_t regions__current(void)
{
	return context;
}

const char *regions__context(uint32_t ctx)
{
	return ctx < ncontexts ? contexts[ctx] : "";
}

uint32_t regions__ncontexts(void)
{
	return ncontexts;
}
