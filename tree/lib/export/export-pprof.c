/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pprof's profile.proto, gzipped (what `go tool pprof` and Grafana Pyroscope
 * read), encoded by protobuf-c from lib/export/pprof.proto. One sample type per
 * event; samples with the same stack, event, thread and recording are
 * summed, so memory grows with unique stacks, not with samples.
 *
 * A LOCS item gives a DSO and an offset in it, not the address the code had in
 * the process: each DSO becomes a mapping at a made-up address range of its
 * own (mapping i starts at i << 36, file offset 0), so a location's address
 * minus its mapping's start is the offset the stream gave. Functions are
 * known (has_functions): pprof does not try to symbolise again.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export/export-format.h"
#include "pprof.pb-c.h"
#include "base/stackmap.h"
#include "base/strbuf.h"
#include "base/xml.h"

#define MAPPING_SPAN (UINT64_C(1) << 36)
#define MEMO_BYTES ((size_t)256 << 20)

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

/* The head of a sample's key; the location ids (uint64_t, leaf first) follow. */
struct sample_key {
	uint32_t event, input;
	int64_t pid, tid;
	uint32_t comm;
	uint32_t pad;
};

/* A location's key: which mapping (0: none), where in it, which function. */
struct location_key {
	uint64_t mapping, offset, function;
};

struct pprof {
	struct stackmap *strings;	/* "TEXT\0" -> string index */
	struct stackmap *functions;	/* name and DSO string indexes -> function id - 1 */
	struct stackmap *mappings;	/* DSO string index -> mapping id - 1 */
	struct stackmap *locations;	/* struct location_key -> location id - 1 */
	struct stackmap *samples;	/* struct sample_key + location ids -> summed weight */
	struct strbuf text, key;
	struct export_memo *memo;	/* each stack's location ids */
	uint64_t first_time, last_time;
	bool any;
};

static void free_state(void *st)
{
	struct pprof *pp = st;

	stackmap__free(pp->strings);
	stackmap__free(pp->functions);
	stackmap__free(pp->mappings);
	stackmap__free(pp->locations);
	stackmap__free(pp->samples);
	export_memo__free(pp->memo);
	strbuf__release(&pp->text);
	strbuf__release(&pp->key);
	free(pp);
}

/* The index of a string, added if new; -errno. Index 0 is "", as pprof requires. */
static int64_t string_id(struct pprof *pp, const char *s, size_t len)
{
	struct stack_entry *e;
	int ret;

	strbuf__reset(&pp->text);
	/* proto3 strings must be UTF-8, and NUL would end the C string: both made safe */
	if ((ret = xml__utf8_sanitize(&pp->text, s, len)) < 0 || (ret = strbuf__addc(&pp->text, 0)) < 0)
		return ret;
	e = stackmap__add(pp->strings, pp->text.s, pp->text.len, 0, 0);
	return e ? (int64_t)e->id : -errno;
}

static void *begin(struct export_ctx *x)
{
	struct pprof *pp = calloc(1, sizeof(*pp));

	(void)x;
	if (!pp)
		return NULL;
	pp->strings = stackmap__new();
	pp->functions = stackmap__new();
	pp->mappings = stackmap__new();
	pp->locations = stackmap__new();
	pp->samples = stackmap__new();
	pp->memo = export_memo__new(MEMO_BYTES);
	if (!pp->strings || !pp->functions || !pp->mappings || !pp->locations || !pp->samples || !pp->memo ||
	    string_id(pp, "", 0) != 0) {
		free_state(pp);
		errno = ENOMEM;
		return NULL;
	}
	return pp;
}

static int64_t id_of(struct stackmap *m, const void *key, size_t len)
{
	struct stack_entry *e = stackmap__add(m, key, len, 0, 0);

	return e ? (int64_t)e->id + 1 : -errno;
}

static int64_t location_id(struct pprof *pp, const struct export_frame *f)
{
	int64_t name = string_id(pp, f->name.s, f->name.len), dso = 0, fn, mapping = 0;
	struct location_key k;

	if (name < 0)
		return name;
	if (f->dso.len && (dso = string_id(pp, f->dso.s, f->dso.len)) < 0)
		return dso;
	{
		int64_t fkey[2] = { name, dso };

		if ((fn = id_of(pp->functions, fkey, sizeof(fkey))) < 0)
			return fn;
	}
	if (dso && (mapping = id_of(pp->mappings, &dso, sizeof(dso))) < 0)
		return mapping;
	memset(&k, 0, sizeof(k));
	k.mapping = (uint64_t)mapping;
	k.offset = f->has_offset ? f->offset : 0;
	k.function = (uint64_t)fn;
	return id_of(pp->locations, &k, sizeof(k));
}

/* Appends the sample's location ids, leaf first, to pp->key: made once per stack. */
static int location_ids(struct pprof *pp, struct export_ctx *x, const struct lp_sample *s)
{
	struct export_stack stack;
	const void *data;
	size_t len, start = pp->key.len;
	int ret = export_memo__get(pp->memo, s, &data, &len);

	if (ret > 0)
		ret = strbuf__add(&pp->key, data, len);
	else if (ret == 0 && (ret = export_sample__stack(x, &stack)) == 0 &&
		 (ret = strbuf__grow(&pp->key, stack.n * sizeof(uint64_t))) == 0) {
		/*
		 * Ids are made root first, so that the first mapping is the first
		 * sample's program (pprof takes mapping 1 for the main binary), and
		 * stored leaf first, as pprof wants them.
		 */
		for (size_t i = 0; ret == 0 && i < stack.n; i++) {
			int64_t loc = location_id(pp, &stack.frames[i]);
			uint64_t id = (uint64_t)loc;

			if (loc < 0)
				ret = (int)loc;
			else
				memcpy(pp->key.s + start + (stack.n - 1 - i) * sizeof(id), &id, sizeof(id));
		}
		pp->key.len += stack.n * sizeof(uint64_t);
		if (ret == 0)
			ret = export_memo__put(pp->memo, pp->key.s + start, pp->key.len - start);
	}
	return ret < 0 && ret != -EINVAL ? lp_error__set(x->err, ret, "%s", strerror(-ret)) : ret;
}

static int sample(void *st, struct export_ctx *x, const struct export_sample *xs)
{
	struct pprof *pp = st;
	struct sample_key head;
	int64_t comm = string_id(pp, xs->comm.s, xs->comm.len);
	struct stack_entry *e;
	int ret;

	if (comm < 0)
		return lp_error__set(x->err, (int)comm, "%s", strerror((int)-comm));
	memset(&head, 0, sizeof(head));
	head.event = (uint32_t)xs->event;
	head.input = (uint32_t)(x->ninputs - 1);
	head.pid = xs->s->pid;
	head.tid = xs->s->tid;
	head.comm = (uint32_t)comm;
	strbuf__reset(&pp->key);
	if ((ret = strbuf__add(&pp->key, &head, sizeof(head))) < 0)
		return lp_error__set(x->err, ret, "out of memory");
	if ((ret = location_ids(pp, x, xs->s)) < 0)
		return ret;
	e = stackmap__add(pp->samples, pp->key.s, pp->key.len, 0, xs->s->weight);
	if (!e)
		return lp_error__set(x->err, -errno, "%s", errno == EOVERFLOW ? "weights add up past 2^64" :
				     "out of memory");
	if (e->count[0] > INT64_MAX)
		return lp_error__set(x->err, -EOVERFLOW, "weights add up past what pprof holds (2^63)");
	if (!pp->any || xs->s->time < pp->first_time)
		pp->first_time = xs->s->time;
	if (!pp->any || xs->s->time > pp->last_time)
		pp->last_time = xs->s->time;
	pp->any = true;
	return 0;
}

/* The first program exec'd is the main binary: its mapping goes first, where pprof looks for it. */
static int proc(void *st, struct export_ctx *x, const struct export_proc *xp)
{
	struct pprof *pp = st;
	int64_t dso;

	if (xp->p->what != LP_PROC_EXEC || stackmap__size(pp->mappings) > 0 || xp->path.len == 0)
		return 0;
	if ((dso = string_id(pp, xp->path.s, xp->path.len)) < 0 ||
	    (dso = id_of(pp->mappings, &dso, sizeof(dso))) < 0)
		return lp_error__set(x->err, (int)dso, "%s", strerror((int)-dso));
	return 0;
}

/* ---- the message ---- */

/* Everything the message points to, freed at once. */
struct arena {
	void **v;
	size_t n, cap;
};

static void *arena_calloc(struct arena *a, size_t n, size_t size)
{
	void *p;

	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		void **v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		a->v = v;
		a->cap = cap;
	}
	p = calloc(n ? n : 1, size);
	if (p)
		a->v[a->n++] = p;
	return p;
}

static void arena_free(struct arena *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
}

static const char *unit_name(const struct export_event *ev)
{
	return ev->in_ns ? "nanoseconds" : strcmp(ev->unit, "events") == 0 ? "count" : ev->unit;
}

static Label *label(struct arena *a, int64_t key, int64_t str, int64_t num)
{
	Label *l = arena_calloc(a, 1, sizeof(*l));

	if (l) {
		perftools__profiles__label__init(l);
		l->key = key;
		l->str = str;
		l->num = num;
	}
	return l;
}

static int string_of(struct pprof *pp, const char *s, int64_t *id)
{
	*id = string_id(pp, s, strlen(s));
	return *id < 0 ? (int)*id : 0;
}

/* Sample types (one per event with samples) and each event's column; -1 for events without. */
static int sample_types(struct pprof *pp, struct export_ctx *x, struct arena *a, Profile *p, int64_t **column)
{
	bool *used = arena_calloc(a, x->nevents, sizeof(*used));
	int ret;

	*column = arena_calloc(a, x->nevents, sizeof(**column));
	p->sample_type = arena_calloc(a, x->nevents, sizeof(*p->sample_type));
	if (!used || !*column || !p->sample_type)
		return -ENOMEM;
	for (uint32_t i = 0; i < stackmap__size(pp->samples); i++) {
		struct sample_key k;

		memcpy(&k, stackmap__entry(pp->samples, i)->key, sizeof(k));
		used[k.event] = true;
	}
	for (size_t i = 0; i < x->nevents; i++) {
		ValueType *vt;
		int64_t type, unit;

		(*column)[i] = -1;
		if (!used[i])
			continue;
		if ((ret = string_of(pp, x->events[i].key, &type)) < 0 ||
		    (ret = string_of(pp, unit_name(&x->events[i]), &unit)) < 0)
			return ret;
		if (!(vt = arena_calloc(a, 1, sizeof(*vt))))
			return -ENOMEM;
		perftools__profiles__value_type__init(vt);
		vt->type = type;
		vt->unit = unit;
		(*column)[i] = (int64_t)p->n_sample_type;
		p->sample_type[p->n_sample_type++] = vt;
		/* the profile's sampling is on-CPU time's, where it has that, as perf's converters set it */
		if (strcmp(x->events[i].key, "cpu") == 0) {
			p->default_sample_type = type;
			if (x->events[i].period) {
				p->period_type = vt;
				p->period = (int64_t)x->events[i].period;
			}
		}
	}
	return 0;
}

static int samples(struct pprof *pp, struct export_ctx *x, struct arena *a, Profile *p, const int64_t *column)
{
	size_t n = stackmap__size(pp->samples);
	int64_t k_pid, k_tid, k_comm, k_host, k_rank;
	int ret;

	if ((ret = string_of(pp, "pid", &k_pid)) < 0 || (ret = string_of(pp, "tid", &k_tid)) < 0 ||
	    (ret = string_of(pp, "comm", &k_comm)) < 0 || (ret = string_of(pp, "host", &k_host)) < 0 ||
	    (ret = string_of(pp, "rank", &k_rank)) < 0)
		return ret;
	p->sample = arena_calloc(a, n, sizeof(*p->sample));
	if (!p->sample)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const struct stack_entry *e = stackmap__entry(pp->samples, i);
		const struct export_input *in;
		struct sample_key k;
		Sample *s = arena_calloc(a, 1, sizeof(*s));
		int64_t host = 0, rank = 0;

		memcpy(&k, e->key, sizeof(k));
		in = &x->inputs[k.input];
		if ((in->host && (ret = string_of(pp, in->host, &host)) < 0) ||
		    (in->rank && (ret = string_of(pp, in->rank, &rank)) < 0))
			return ret;
		if (!s)
			return -ENOMEM;
		perftools__profiles__sample__init(s);
		s->n_location_id = (e->len - sizeof(k)) / sizeof(uint64_t);
		s->location_id = arena_calloc(a, s->n_location_id, sizeof(uint64_t));
		s->n_value = p->n_sample_type;
		s->value = arena_calloc(a, s->n_value, sizeof(int64_t));
		s->label = arena_calloc(a, 5, sizeof(*s->label));
		if (!s->location_id || !s->value || !s->label)
			return -ENOMEM;
		memcpy(s->location_id, e->key + sizeof(k), s->n_location_id * sizeof(uint64_t));
		s->value[column[k.event]] = (int64_t)e->count[0];
		s->label[s->n_label++] = label(a, k_pid, 0, k.pid);
		s->label[s->n_label++] = label(a, k_tid, 0, k.tid);
		s->label[s->n_label++] = label(a, k_comm, k.comm, 0);
		if (host)
			s->label[s->n_label++] = label(a, k_host, host, 0);
		if (rank)
			s->label[s->n_label++] = label(a, k_rank, rank, 0);
		for (size_t j = 0; j < s->n_label; j++)
			if (!s->label[j])
				return -ENOMEM;
		p->sample[p->n_sample++] = s;
	}
	return 0;
}

static int mappings_and_locations(struct pprof *pp, struct arena *a, Profile *p)
{
	size_t nm = stackmap__size(pp->mappings), nl = stackmap__size(pp->locations);
	size_t nf = stackmap__size(pp->functions);

	p->mapping = arena_calloc(a, nm, sizeof(*p->mapping));
	p->location = arena_calloc(a, nl, sizeof(*p->location));
	p->function = arena_calloc(a, nf, sizeof(*p->function));
	if (!p->mapping || !p->location || !p->function)
		return -ENOMEM;
	for (uint32_t i = 0; i < nm; i++) {
		Mapping *m = arena_calloc(a, 1, sizeof(*m));
		int64_t dso;

		if (!m)
			return -ENOMEM;
		memcpy(&dso, stackmap__entry(pp->mappings, i)->key, sizeof(dso));
		perftools__profiles__mapping__init(m);
		m->id = i + 1;
		m->memory_start = (i + 1) * MAPPING_SPAN;
		m->memory_limit = m->memory_start + MAPPING_SPAN;
		m->filename = dso;
		m->has_functions = true;
		p->mapping[p->n_mapping++] = m;
	}
	for (uint32_t i = 0; i < nf; i++) {
		Function *f = arena_calloc(a, 1, sizeof(*f));
		int64_t key[2];

		if (!f)
			return -ENOMEM;
		memcpy(key, stackmap__entry(pp->functions, i)->key, sizeof(key));
		perftools__profiles__function__init(f);
		f->id = i + 1;
		f->name = f->system_name = key[0];
		p->function[p->n_function++] = f;
	}
	for (uint32_t i = 0; i < nl; i++) {
		Location *l = arena_calloc(a, 1, sizeof(*l));
		Line *line = arena_calloc(a, 1, sizeof(*line));
		struct location_key k;

		if (!l || !line)
			return -ENOMEM;
		memcpy(&k, stackmap__entry(pp->locations, i)->key, sizeof(k));
		perftools__profiles__location__init(l);
		perftools__profiles__line__init(line);
		l->id = i + 1;
		l->mapping_id = k.mapping;
		l->address = k.mapping ? k.mapping * MAPPING_SPAN + k.offset : 0;
		line->function_id = k.function;
		l->line = arena_calloc(a, 1, sizeof(*l->line));
		if (!l->line)
			return -ENOMEM;
		l->line[0] = line;
		l->n_line = 1;
		p->location[p->n_location++] = l;
	}
	return 0;
}

/* protobuf-c packs into this: compressed as it comes, written to out. */
struct gz_buffer {
	ProtobufCBuffer base;
	z_stream z;
	FILE *out;
	int error;
	unsigned char chunk[1 << 16];
};

static int gz_pump(struct gz_buffer *g, int flush)
{
	do {
		size_t have;

		g->z.next_out = g->chunk;
		g->z.avail_out = sizeof(g->chunk);
		if (deflate(&g->z, flush) == Z_STREAM_ERROR)
			return -EIO;
		have = sizeof(g->chunk) - g->z.avail_out;
		if (have && fwrite(g->chunk, 1, have, g->out) != have)
			return -EIO;
	} while (g->z.avail_out == 0);
	return 0;
}

static void gz_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct gz_buffer *g = (struct gz_buffer *)b;

	while (!g->error && len) {
		uInt n = len > (1u << 30) ? 1u << 30 : (uInt)len;

		g->z.next_in = (Bytef *)data;
		g->z.avail_in = n;
		if (gz_pump(g, Z_NO_FLUSH) < 0)
			g->error = -EIO;
		data += n;
		len -= n;
	}
}

static int write_gzipped(const Profile *p, FILE *out)
{
	struct gz_buffer *g = calloc(1, sizeof(*g));
	int ret;

	if (!g)
		return -ENOMEM;
	g->base.append = gz_append;
	g->out = out;
	/* 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return -ENOMEM;
	}
	perftools__profiles__profile__pack_to_buffer(p, &g->base);
	ret = g->error;
	if (ret == 0) {
		g->z.next_in = NULL;
		g->z.avail_in = 0;
		ret = gz_pump(g, Z_FINISH);
	}
	deflateEnd(&g->z);
	free(g);
	if (ret == 0 && fflush(out) != 0)
		ret = -EIO;
	return ret;
}

static int finish(void *st, struct export_ctx *x)
{
	struct pprof *pp = st;
	struct arena a = { 0 };
	Profile p;
	int64_t *column = NULL, comment;
	int ret;

	perftools__profiles__profile__init(&p);
	ret = sample_types(pp, x, &a, &p, &column);
	if (ret == 0)
		ret = samples(pp, x, &a, &p, column);
	if (ret == 0)
		ret = mappings_and_locations(pp, &a, &p);
	if (ret == 0 && (ret = string_of(pp, "written by lp-export from lp streams", &comment)) == 0) {
		p.comment = arena_calloc(&a, 1, sizeof(*p.comment));
		if (!p.comment)
			ret = -ENOMEM;
		else
			p.comment[p.n_comment++] = comment;
	}
	/* the string table last: every string above is in it now */
	if (ret == 0) {
		size_t n = stackmap__size(pp->strings);

		p.string_table = arena_calloc(&a, n, sizeof(*p.string_table));
		if (!p.string_table)
			ret = -ENOMEM;
		for (uint32_t i = 0; ret == 0 && i < n; i++)
			p.string_table[p.n_string_table++] = stackmap__entry(pp->strings, i)->key;
	}
	if (ret == 0 && pp->any)
		p.duration_nanos = (int64_t)(pp->last_time - pp->first_time);
	if (ret == 0)
		ret = write_gzipped(&p, x->out);
	arena_free(&a);
	if (ret == -EIO)
		return export__write_failed(x);
	return ret < 0 ? lp_error__set(x->err, ret, "%s", strerror(-ret)) : 0;
}

const struct export_ops export__pprof_ops = {
	.begin = begin,
	.sample = sample,
	.proc = proc,
	.finish = finish,
	.free = free_state,
};
