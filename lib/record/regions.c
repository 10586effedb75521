/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Code regions' probes: found in each mapped file, attached, and their samples read. */
#include "record/regions.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/arch.h"
#include "record/perfevent.h"
#include "symbols/sdt.h"

struct region_probe {
	char *name;		/* the region's (macro form), or NULL: in the argument */
	bool begin;
	struct sdt_arg arg;	/* function form: where the name's address is */
};

struct seen_file {
	uint64_t dev, ino;
	char *path;
};

struct region_probes {
	struct region_probe *v;
	size_t n, cap;
	struct seen_file *files;
	size_t nfiles;
};

struct region_probes *region_probes__new(void)
{
	return calloc(1, sizeof(struct region_probes));
}

void region_probes__free(struct region_probes *rp)
{
	if (!rp)
		return;
	for (size_t i = 0; i < rp->n; i++)
		free(rp->v[i].name);
	for (size_t i = 0; i < rp->nfiles; i++)
		free(rp->files[i].path);
	free(rp->v);
	free(rp->files);
	free(rp);
}

size_t region_probes__count(const struct region_probes *rp)
{
	return rp ? rp->n : 0;
}

/* Whether the file was scanned already; else it is now noted as scanned. -ENOMEM. */
static int seen(struct region_probes *rp, const char *path, uint64_t dev, uint64_t ino)
{
	struct seen_file *v;

	for (size_t i = 0; i < rp->nfiles; i++)
		if ((ino && rp->files[i].dev == dev && rp->files[i].ino == ino) ||
		    (!ino && strcmp(rp->files[i].path, path) == 0))
			return 1;
	if (!(v = realloc(rp->files, (rp->nfiles + 1) * sizeof(*v))))
		return -ENOMEM;
	rp->files = v;
	if (!(v[rp->nfiles].path = strdup(path)))
		return -ENOMEM;
	v[rp->nfiles].dev = dev;
	v[rp->nfiles].ino = ino;
	rp->nfiles++;
	return 0;
}

struct scan {
	struct region_probes *rp;
	struct event_rings *s;
	const char *path;
	struct lp_error *err;
	int attached;
};

static bool ends_with(const char *s, const char *tail, size_t *stem)
{
	size_t n = strlen(s), t = strlen(tail);

	if (n <= t || strcmp(s + n - t, tail) != 0)
		return false;
	*stem = n - t;
	return true;
}

static int add_probe(void *ctx, const struct sdt_probe *p)
{
	struct scan *sc = ctx;
	struct region_probes *rp = sc->rp;
	struct region_probe q = { 0 };
	size_t stem;
	int ret;

	if (strcmp(p->provider, "lp") != 0)
		return 0;
	if (strcmp(p->name, "region_begin") == 0 || strcmp(p->name, "region_end") == 0) {
		q.begin = p->name[7] == 'b';
		/* an argument lp cannot read is no region of ours */
		if (sdt_arg__parse(p->args, 0, &q.arg) < 0 || q.arg.kind == SDT_ARG_CONST)
			return 0;
	} else if (ends_with(p->name, "__begin", &stem) || ends_with(p->name, "__end", &stem)) {
		q.begin = p->name[stem + 2] == 'b';
		if (!(q.name = strndup(p->name, stem)))
			return -ENOMEM;
	} else {
		return 0;
	}
	if (rp->n == rp->cap) {
		size_t cap = rp->cap ? rp->cap * 2 : 16;
		struct region_probe *v = realloc(rp->v, cap * sizeof(*v));

		if (!v) {
			free(q.name);
			return -ENOMEM;
		}
		rp->v = v;
		rp->cap = cap;
	}
	/* a mark's name is its probe's; the function form's is on the stack, at its argument */
	if ((ret = event_rings__add_uprobe(sc->s, sc->path, p->offset, (int)rp->n, !q.name, sc->err)) < 0) {
		free(q.name);
		return ret;
	}
	rp->v[rp->n++] = q;
	sc->attached++;
	return 0;
}

int region_probes__scan(struct region_probes *rp, struct event_rings *s, const char *path, uint64_t dev,
			uint64_t ino, struct lp_error *err)
{
	struct scan sc = { rp, s, path, err, 0 };
	int ret;

	if ((ret = seen(rp, path, dev, ino)) != 0)
		return ret < 0 ? ret : 0;
	ret = sdt__each(path, add_probe, &sc);
	/* what is not ELF, or is gone, has no probes to attach */
	if (ret == -ENOEXEC || ret == -ENOENT || ret == -EACCES)
		return sc.attached;
	if (ret < 0 && !err->msg[0])
		lp_error__set(err, 0, "the probes of '%s'", path);
	return ret < 0 ? ret : sc.attached;
}

/* ---- samples: REGION_SAMPLE_TYPE's layout ---- */

static uint64_t u64_at(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The value of register reg (a perf number) among the sample's: they come in bit order. */
static bool reg_value(const uint8_t *regs, int reg, uint64_t *v)
{
	int k = 0;

	if (reg < 0 || reg > 63 || !(REGION_REGS >> reg & 1))
		return false;
	for (int i = 0; i < reg; i++)
		k += (int)(REGION_REGS >> i & 1);
	*v = u64_at(regs + 8 * k);
	return true;
}

/* The name a function form's probe points at: on the copied stack, ending within it. */
static int arg_name(const struct region_probe *p, const uint8_t *regs, uint64_t sp, const uint8_t *stack,
		    uint64_t stack_size, char *buf, size_t size)
{
	uint64_t v, at;
	const uint8_t *end;
	size_t len;

	if (!reg_value(regs, p->arg.reg, &v))
		return -ENOENT;
	if (p->arg.kind == SDT_ARG_MEM) {
		at = v + (uint64_t)p->arg.value;
		if (at < sp || at + 8 > sp + stack_size)
			return -ENOENT;
		v = u64_at(stack + (at - sp));
	}
	if (v < sp || v >= sp + stack_size)
		return -ENOENT;
	if (!(end = memchr(stack + (v - sp), 0, stack_size - (v - sp))))
		return -ENOENT;
	len = (size_t)(end - (stack + (v - sp)));
	if (len == 0)
		return -ENOENT;
	if (len >= size)
		len = size - 1;
	memcpy(buf, stack + (v - sp), len);
	buf[len] = 0;
	return 0;
}

int region_probes__read(const struct region_probes *rp, int index, const struct perf_event_header *h, char *buf,
			size_t size, struct region_hit *hit)
{
	const uint8_t *p = (const uint8_t *)(h + 1), *end = (const uint8_t *)h + h->size, *regs = NULL,
		      *stack = NULL;
	const struct region_probe *probe;
	uint64_t abi, stack_size = 0, sp;
	size_t nregs = (size_t)__builtin_popcountll(REGION_REGS);

	if (!rp || index < 0 || (size_t)index >= rp->n)
		return -EINVAL;
	probe = &rp->v[index];
	/* id, ip, pid/tid, time, cpu, period, then (the function form's) the registers and the stack */
	if (end - p < 6 * 8)
		return -EINVAL;
	hit->ip = u64_at(p + 8);
	hit->pid = (pid_t)(uint32_t)u64_at(p + 16);
	hit->tid = (pid_t)(u64_at(p + 16) >> 32);
	hit->time = u64_at(p + 24);
	hit->begin = probe->begin;
	p += 6 * 8;
	if (probe->name) {
		hit->name = probe->name;
		return 0;
	}
	if (end - p < 8)
		return -EINVAL;
	abi = u64_at(p);
	p += 8;
	if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
		if ((size_t)(end - p) < nregs * 8)
			return -EINVAL;
		regs = p;
		p += nregs * 8;
	}
	if (end - p >= 8) {
		stack_size = u64_at(p);
		p += 8;
		if ((uint64_t)(end - p) < stack_size)
			return -EINVAL;
		stack = p;
		/* the part the kernel wrote (the dynamic size after the copy) */
		if (stack_size && (uint64_t)(end - p) >= stack_size + 8 && u64_at(p + stack_size) < stack_size)
			stack_size = u64_at(p + stack_size);
	}
	if (!regs || !stack || !reg_value(regs, LP_REGION_SP_REG, &sp))
		return -ENOENT;
	hit->name = buf;
	return arg_name(probe, regs, sp, stack, stack_size, buf, size);
}
