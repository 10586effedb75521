/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "roofline/points.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "roofline/flopevents.h"
#include "base/lines.h"
#include "stream/lpregions.h"
#include "stream/lpstream.h"
#include "base/numparse.h"
#include "base/stackmap.h"
#include "base/strbuf.h"

/* The ISAs of K records' FLOP keys (ISA-PRECISION=N), for a point's isa= */
static const char *const isas[] = { "scalar", "sse", "neon", "avx2", "avx512" };
enum { NISAS = sizeof(isas) / sizeof(isas[0]) };

/* What a region's samples add up to. */
struct region {
	uint64_t ns;			/* cpu samples' weight */
	double flops, loads, stores;
	double width_bytes, width_ops;	/* FP operations of known width: their bytes and count */
	/* exact counts of an emulated run (K records), which win over the PMU's where both are */
	bool emulated;
	uint64_t emu_flops, emu_loaded, emu_stored, emu_insns;
	uint64_t emu_isa_flops[NISAS];
};

/* One input's custom events: KEY -> its role. */
struct event_role {
	char *key;
	const struct flop_event *role;
};

struct points {
	struct points_opts o;
	struct stackmap *names;		/* region -> id (its index in regions) */
	struct region *regions;
	size_t cap;
	struct event_role *events;
	size_t nevents;
	struct strbuf roofs;		/* R records as read */
	struct strbuf counters;		/* the keys of the events used, comma-separated */
	struct strbuf name;
	bool any_events;
	bool any_emulated;
	struct lp_regions *open;	/* --by region: each thread's open code regions */
};

struct points *points__new(const struct points_opts *o)
{
	struct points *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->o = *o;
	if (!(p->names = stackmap__new())) {
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

static void forget_events(struct points *p)
{
	for (size_t i = 0; i < p->nevents; i++)
		free(p->events[i].key);
	free(p->events);
	p->events = NULL;
	p->nevents = 0;
}

void points__free(struct points *p)
{
	if (!p)
		return;
	stackmap__free(p->names);
	free(p->regions);
	forget_events(p);
	strbuf__release(&p->roofs);
	strbuf__release(&p->counters);
	strbuf__release(&p->name);
	lp_regions__free(p->open);
	free(p);
}

static int learn_event(struct points *p, const struct lp_event_def *d)
{
	struct strbuf key = STRBUF_INIT, event = STRBUF_INIT;
	const struct flop_event *role;
	struct event_role *v;
	int ret = lp_span__unescape_to(&key, d->key) ?: lp_span__unescape_to(&event, d->perf_event) ?:
		  strbuf__addc(&key, 0) ?: strbuf__addc(&event, 0);

	if (ret < 0)
		goto cleanup;
	role = flop_event__find(event.s);
	if (!role)
		goto cleanup;
	v = realloc(p->events, (p->nevents + 1) * sizeof(*v));
	if (!v) {
		ret = -ENOMEM;
		goto cleanup;
	}
	p->events = v;
	v[p->nevents].key = key.s;
	v[p->nevents++].role = role;
	key = (struct strbuf)STRBUF_INIT;
	/* the counters a point came from, each named once */
	if (!strstr(p->counters.s ? p->counters.s : "", event.s))
		ret = strbuf__addf(&p->counters, "%s%s", p->counters.len ? "," : "", event.s);
	p->any_events = true;
cleanup:
	strbuf__release(&key);
	strbuf__release(&event);
	return ret;
}

static const struct flop_event *role_of(const struct points *p, struct lp_span event)
{
	for (size_t i = 0; i < p->nevents; i++)
		if (lp_span__eq(event, p->events[i].key, strlen(p->events[i].key)))
			return p->events[i].role;
	return NULL;
}

/* The region named p->name, made when new. */
static int region_named(struct points *p, struct region **out)
{
	struct stack_entry *e = stackmap__add(p->names, p->name.s, p->name.len, 0, 0);

	if (!e)
		return -errno;
	if (e->id >= p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		struct region *v = realloc(p->regions, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + p->cap, 0, (cap - p->cap) * sizeof(*v));
		p->regions = v;
		p->cap = cap;
	}
	*out = &p->regions[e->id];
	return 0;
}

/* The region of a sample: its leaf, or its first depth frames. */
static int region_of(struct points *p, struct lp_span stack, struct region **out)
{
	struct lp_list_iter it;
	struct lp_span frame, last = { "", 0 };
	unsigned n = 0;

	strbuf__reset(&p->name);
	lp_list_iter__init(&it, stack);
	while (lp_list_iter__next(&it, &frame, NULL)) {
		last = frame;
		if (p->o.depth && n < p->o.depth) {
			if ((n++ && strbuf__addc(&p->name, ';') < 0) || strbuf__add(&p->name, frame.s, frame.len) < 0)
				return -ENOMEM;
		}
	}
	if (!p->o.depth && strbuf__add(&p->name, last.s, last.len) < 0)
		return -ENOMEM;
	if (!p->name.len && strbuf__add(&p->name, "[unknown]", 9) < 0)
		return -ENOMEM;
	return region_named(p, out);
}

static void count_in(struct region *r, const struct lp_sample *s, const struct flop_event *role);

/* Whether names[i] is one of names[0..i): a region open inside itself counts in it once */
static bool named_before(const struct lp_span *names, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (names[k].len == names[i].len && memcmp(names[k].s, names[i].s, names[i].len) == 0)
			return true;
	return false;
}

static int take_sample(struct points *p, const struct lp_sample *s)
{
	const struct flop_event *role = NULL;
	bool cpu = lp_span__eq(s->event, "cpu", 3);
	struct region *r = NULL;
	const struct lp_span *open;
	size_t n;
	int ret;

	if (!cpu && !(role = role_of(p, s->event)))
		return 0;
	if (!p->o.by_region) {
		if ((ret = region_of(p, s->stack, &r)) < 0)
			return ret;
		count_in(r, s, role);
		return 0;
	}
	/* in each code region open on its thread, once (a region may be open inside itself) */
	n = p->open ? lp_regions__open(p->open, s->tid, &open) : 0;
	for (size_t i = 0; i < n; i++) {
		if (named_before(open, i))
			continue;
		strbuf__reset(&p->name);
		if (strbuf__add(&p->name, open[i].s, open[i].len) < 0 || (ret = region_named(p, &r)) < 0)
			return -ENOMEM;
		count_in(r, s, role);
	}
	return 0;
}

static void count_in(struct region *r, const struct lp_sample *s, const struct flop_event *role)
{
	double w = (double)s->weight;

	if (!role) {
		r->ns += s->weight;
		return;
	}
	switch (role->role) {
	case FLOP_FLOPS:
		r->flops += w * role->flops;
		if (role->width) {
			r->width_bytes += w * role->width;
			r->width_ops += w;
		}
		break;
	case FLOP_WIDTH:
		r->width_bytes += w * role->width;
		r->width_ops += w;
		break;
	case FLOP_LOADS:
		r->loads += w;
		break;
	case FLOP_STORES:
		r->stores += w;
		break;
	case FLOP_LOADS_STORES:
		r->loads += w;
		r->stores += w;
		break;
	case FLOP_NONE:
		break;
	}
}


/* What the reader's callbacks need beside the points. */
struct points_read {
	struct points *p;
	struct lp_error *err;
};

static int read_region(void *ctx, struct lp_reader *r, const struct lp_region *c)
{
	struct points *p = ((struct points_read *)ctx)->p;

	(void)r;
	if (!p->o.by_region)
		return 0;
	if (!p->open && !(p->open = lp_regions__new()))
		return -ENOMEM;
	return lp_regions__add(p->open, c) < 0 ? -ENOMEM : 0;
}

static int read_event(void *ctx, struct lp_reader *r, const struct lp_event_def *d)
{
	(void)r;
	return learn_event(((struct points_read *)ctx)->p, d);
}

/* "avx2-dp=N": N FLOPs of an ISA */
static void count_isa(struct region *r, struct lp_span attr)
{
	const char *eq = memchr(attr.s, '=', attr.len), *dash;
	uint64_t v;

	if (!eq || !(dash = memchr(attr.s, '-', (size_t)(eq - attr.s))))
		return;
	if (numparse__u64(eq + 1, attr.len - (size_t)(eq + 1 - attr.s), &v) < 0)
		return;
	for (int i = 0; i < NISAS; i++)
		if ((size_t)(dash - attr.s) == strlen(isas[i]) && memcmp(attr.s, isas[i], strlen(isas[i])) == 0)
			r->emu_isa_flops[i] += v;
}

static void add_counts(struct region *r, const struct lp_counts *k);
static int counts_in_regions(struct points *p, const struct lp_counts *k);

static int read_counts(void *ctx, struct lp_reader *rd, const struct lp_counts *k)
{
	struct points_read *x = ctx;
	struct points *p = x->p;
	struct region *r;
	int ret;

	(void)rd;
	if (p->o.depth)
		return lp_error__set(x->err, -EINVAL, "emulated counts are per function: --depth needs the PMU's events");
	p->any_emulated = true;
	if (p->o.by_region)
		return counts_in_regions(p, k);
	strbuf__reset(&p->name);
	if (strbuf__add(&p->name, k->name.s, k->name.len) < 0 || (ret = region_named(p, &r)) < 0)
		return -ENOMEM;
	add_counts(r, k);
	return 0;
}

static void add_counts(struct region *r, const struct lp_counts *k)
{
	r->emulated = true;
	r->emu_flops += k->flops;
	r->emu_loaded += k->loaded;
	r->emu_stored += k->stored;
	r->emu_insns += k->insns;
	for (size_t i = 0; i < k->nattrs; i++)
		count_isa(r, k->attrs[i]);
}

/* --by region: in each code region open around the code (regions=a;b), once each */
static int counts_in_regions(struct points *p, const struct lp_counts *k)
{
	struct lp_span regions, open[64];
	struct lp_list_iter it;
	struct region *r;
	size_t n = 0;
	int ret;

	if (!lp_attrs__find(k->attrs, k->nattrs, "regions", &regions))
		return 0;
	lp_list_iter__init(&it, regions);
	while (n < 64 && lp_list_iter__next(&it, &open[n], NULL))
		n++;
	for (size_t i = 0; i < n; i++) {
		if (named_before(open, i))
			continue;
		strbuf__reset(&p->name);
		if (strbuf__add(&p->name, open[i].s, open[i].len) < 0 || (ret = region_named(p, &r)) < 0)
			return -ENOMEM;
		add_counts(r, k);
	}
	return 0;
}

/* the roofs pass on as they were read */
static int read_roof(void *ctx, struct lp_reader *r, const struct lp_roof *roof)
{
	struct points_read *x = ctx;
	size_t len;
	const char *line = lp_reader__line(r, &len);

	(void)roof;
	return strbuf__add(&x->p->roofs, line, len) ?: strbuf__addc(&x->p->roofs, '\n');
}

static int read_sample(void *ctx, struct lp_reader *r, const struct lp_sample *s)
{
	(void)r;
	return take_sample(((struct points_read *)ctx)->p, s);
}

int points__read(struct points *p, int fd, const char *name, struct lp_error *err)
{
	static const struct lp_reader_ops ops = { .sample = read_sample, .roof = read_roof, .event = read_event,
						  .region = read_region, .counts = read_counts };
	struct lp_reader_opts ro = { .name = name, .strict = p->o.strict, .warn = p->o.warn, .warn_ctx = p->o.ctx };
	struct points_read x = { .p = p, .err = err };
	struct lines *in = lines__new(fd);
	int ret;

	lp_error__clear(err);
	err->file = name;
	forget_events(p);
	if (!in)
		return lp_error__set(err, -ENOMEM, "out of memory");
	ret = lp_reader__read(&ro, in, &ops, &x, err);
	lines__free(in);
	return ret;
}

/* The bytes a region's load or store stands for: the width of its FP operations, else 8. */
static double access_width(const struct region *r)
{
	return r->width_ops > 0 ? r->width_bytes / r->width_ops : 8;
}

/* The ISA of most of a region's FLOPs */
static const char *main_isa(const struct region *r)
{
	int best = -1;

	for (int i = 0; i < NISAS; i++)
		if (r->emu_isa_flops[i] && (best < 0 || r->emu_isa_flops[i] > r->emu_isa_flops[best]))
			best = i;
	return best < 0 ? NULL : isas[best];
}

/* A point of exact counts: bytes as loaded and stored, whatever their width */
static int write_emulated(struct lp_writer *w, const struct stack_entry *name, const struct region *r)
{
	const char *isa = main_isa(r);

	/* a function the timed run never saw on the CPU, without FLOPs, is no point: the loader, libc's setup */
	if (r->emu_flops == 0 && (r->ns == 0 || r->emu_loaded + r->emu_stored == 0))
		return 0;
	return lp_writer__point(w, (struct lp_span){ name->key, name->len }, r->emu_flops,
				r->emu_loaded + r->emu_stored, r->ns / 1e9) ?:
	       lp_writer__attr_str(w, "bytes", "exact") ?: lp_writer__attr_u64(w, "loaded", r->emu_loaded) ?:
	       lp_writer__attr_u64(w, "stored", r->emu_stored) ?: lp_writer__attr_u64(w, "insns", r->emu_insns) ?:
	       (isa ? lp_writer__attr_str(w, "isa", isa) : 0) ?: lp_writer__attr_str(w, "counts", "emulated") ?:
	       lp_writer__end(w);
}

static const struct points *sort_ctx;

static int longest_first(const void *a, const void *b)
{
	const struct stack_entry *x = *(const struct stack_entry *const *)a, *y = *(const struct stack_entry *const *)b;
	uint64_t tx = sort_ctx->regions[x->id].ns, ty = sort_ctx->regions[y->id].ns;

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return stack_entry__cmp(x, y);
}

int points__write(struct points *p, FILE *out, struct lp_error *err)
{
	size_t n = stackmap__size(p->names);
	struct stack_entry **v;
	struct lp_writer w;
	int ret = 0;

	lp_error__clear(err);
	if (!p->any_events && !p->any_emulated)
		return lp_error__set(err, -ENODATA, "no FLOP or load/store events and no emulated counts in the input "
				     "(lp-roofline record writes them, with --emulate where the PMU has no counters)");
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return lp_error__set(err, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < n; i++)
		v[i] = stackmap__entry(p->names, i);
	sort_ctx = p;
	qsort(v, n, sizeof(*v), longest_first);
	/* every region is checked before any is written: an error leaves no partial stream behind */
	for (size_t i = 0; i < n; i++) {
		const struct region *r = &p->regions[v[i]->id];
		double ops = r->loads + r->stores, width = access_width(r);

		/* sums of weights times periods: a hostile or broken input can pass 2^64 */
		if (!(r->flops + 0.5 < 0x1p64 && ops * width + 0.5 < 0x1p64 && ops < 0x1p64)) {
			ret = lp_error__set(err, -EOVERFLOW, "'%.*s': its FLOPs or bytes do not fit 64 bits",
					    (int)v[i]->len, v[i]->key);
			free(v);
			return ret;
		}
	}
	lp_writer__init(&w, out);
	ret = lp_writer__version(&w);
	/* the roofs as they were read, one record a line */
	for (size_t at = 0, len; ret == 0 && at < p->roofs.len; at += len + 1) {
		len = (size_t)((char *)memchr(p->roofs.s + at, '\n', p->roofs.len - at) - (p->roofs.s + at));
		ret = lp_writer__raw(&w, p->roofs.s + at, len);
	}
	for (size_t i = 0; ret == 0 && i < n; i++) {
		const struct region *r = &p->regions[v[i]->id];
		double ops = r->loads + r->stores, width = access_width(r);
		char how[32];

		if (r->emulated) {
			ret = write_emulated(&w, v[i], r);
			continue;
		}
		if (r->flops == 0 && ops == 0)
			continue;
		/* the width of the FP operations stands for the width of the loads and stores */
		snprintf(how, sizeof(how), r->width_ops > 0 ? "width-mix-%.1f" : "width-8", width);
		ret = lp_writer__point(&w, (struct lp_span){ v[i]->key, v[i]->len }, (uint64_t)(r->flops + 0.5),
				       (uint64_t)(ops * width + 0.5), r->ns / 1e9) ?:
		      lp_writer__attr_str(&w, "bytes", how) ?: lp_writer__attr_u64(&w, "loads", (uint64_t)r->loads) ?:
		      lp_writer__attr_u64(&w, "stores", (uint64_t)r->stores) ?:
		      lp_writer__attr_str(&w, "counters", p->counters.s ? p->counters.s : "") ?:
		      lp_writer__attr_str(&w, "counts", "pmu") ?: lp_writer__end(&w);
	}
	if (ret == 0)
		ret = lp_writer__trailer(&w);
	free(v);
	lp_writer__release(&w);
	if (ret == 0 && (fflush(out) != 0 || ferror(out)))
		ret = -EIO;
	return ret < 0 ? lp_error__set(err, ret, "cannot write: %s", strerror(-ret)) : 0;
}
