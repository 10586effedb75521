/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 * a sampled profile per event, its unique stacks with summed weights (the
 * aggregate views), then an evented profile per thread and timed event (cpu,
 * offcpu) whose frames open and close where consecutive samples' stacks part
 * (the time-ordered view). A profile's events must be written together, but
 * samples of all threads come interleaved: each profile keeps its events in
 * memory until all profiles together hold SPILL_EVENTS, then every buffer goes
 * to one temporary file and is read back, profile by profile, at the end. So
 * memory grows with unique stacks and threads, not with samples.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-format.h"
#include "base/hash.h"
#include "base/htab.h"
#include "base/json.h"
#include "base/stackmap.h"
#include "base/strbuf.h"

enum {
	SPILL_EVENTS = 1 << 21,		/* 32 MB of events in memory at most */
	MEMO_BYTES = 256 << 20,
};

struct frame_event {
	uint64_t at;
	uint32_t frame;
	uint32_t open;
};

struct chunk {
	long offset;
	size_t n;
};

/* One thread's samples of one timed event, in time order. */
struct evprof {
	size_t input;
	int64_t pid, tid;
	size_t event;
	char *name;
	uint64_t start, last_end;
	uint32_t *open;		/* the frames open now, root first */
	size_t nopen, open_cap;
	struct frame_event *buf;
	size_t nbuf, buf_cap;
	struct chunk *chunks;	/* what went to the spill file, in order */
	size_t nchunks;
	bool any;
};

struct evprof_slot {
	struct htab_entry head;
	struct evprof *p;
};

struct speedscope {
	struct stackmap *frames;	/* "NAME\0DSO" -> frame index */
	struct stackmap **sampled;	/* per event: frame indexes (uint32_t) -> summed weight */
	size_t nsampled;
	struct evprof **profiles;	/* in order of first sample */
	size_t nprofiles;
	struct htab live;		/* the current input's profiles */
	size_t buffered;		/* events in all buffers */
	FILE *spill;
	struct strbuf key, out;
	struct export_memo *memo;	/* each stack's frame indexes */
	uint32_t *ids;
	size_t ids_cap;
};

static void *begin(struct export_ctx *x)
{
	struct speedscope *ss = calloc(1, sizeof(*ss));

	(void)x;
	if (!ss)
		return NULL;
	ss->live = HTAB_INIT(struct evprof_slot);
	ss->frames = stackmap__new();
	ss->memo = export_memo__new(MEMO_BYTES);
	if (!ss->frames || !ss->memo) {
		stackmap__free(ss->frames);
		export_memo__free(ss->memo);
		free(ss);
		errno = ENOMEM;
		return NULL;
	}
	return ss;
}

static void evprof_free(struct evprof *p)
{
	free(p->name);
	free(p->open);
	free(p->buf);
	free(p->chunks);
	free(p);
}

static void free_state(void *st)
{
	struct speedscope *ss = st;

	stackmap__free(ss->frames);
	export_memo__free(ss->memo);
	for (size_t i = 0; i < ss->nsampled; i++)
		stackmap__free(ss->sampled[i]);
	free(ss->sampled);
	for (size_t i = 0; i < ss->nprofiles; i++)
		evprof_free(ss->profiles[i]);
	free(ss->profiles);
	htab__release(&ss->live);
	if (ss->spill)
		fclose(ss->spill);
	strbuf__release(&ss->key);
	strbuf__release(&ss->out);
	free(ss->ids);
	free(ss);
}

/* The stack as frame indexes, root first, in ss->ids. */
static int grow_ids(struct speedscope *ss, size_t n)
{
	if (n > ss->ids_cap) {
		uint32_t *v = realloc(ss->ids, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ss->ids = v;
		ss->ids_cap = n;
	}
	return 0;
}

static int frame_ids(struct speedscope *ss, const struct export_stack *s)
{
	int ret = grow_ids(ss, s->n);

	if (ret < 0)
		return ret;
	for (size_t i = 0; i < s->n; i++) {
		const struct export_frame *f = &s->frames[i];
		struct stack_entry *e;

		strbuf__reset(&ss->key);
		if (strbuf__add(&ss->key, f->name.s, f->name.len) < 0 || strbuf__addc(&ss->key, 0) < 0 ||
		    strbuf__add(&ss->key, f->dso.s, f->dso.len) < 0)
			return -ENOMEM;
		e = stackmap__add(ss->frames, ss->key.s, ss->key.len, 0, 1);
		if (!e)
			return -errno;
		ss->ids[i] = e->id;
	}
	return 0;
}

/* The sample's frame indexes in ss->ids, n of them: made once per stack. */
static int stack_ids(struct speedscope *ss, struct export_ctx *x, const struct lp_sample *s, size_t *n)
{
	struct export_stack stack;
	const void *data;
	size_t len;
	int ret = export_memo__get(ss->memo, s, &data, &len);

	if (ret > 0) {
		*n = len / sizeof(uint32_t);
		if ((ret = grow_ids(ss, *n)) == 0 && len)
			memcpy(ss->ids, data, len);
	} else if (ret == 0 && (ret = export_sample__stack(x, &stack)) == 0) {
		*n = stack.n;
		ret = frame_ids(ss, &stack);
		if (ret == 0)
			ret = export_memo__put(ss->memo, ss->ids, stack.n * sizeof(uint32_t));
	}
	return ret < 0 && ret != -EINVAL ? lp_error__set(x->err, ret, "%s", strerror(-ret)) : ret;
}

static int add_sampled(struct speedscope *ss, size_t event, size_t n, uint64_t weight)
{
	if (event >= ss->nsampled) {
		struct stackmap **v = realloc(ss->sampled, (event + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + ss->nsampled, 0, (event + 1 - ss->nsampled) * sizeof(*v));
		ss->sampled = v;
		ss->nsampled = event + 1;
	}
	if (!ss->sampled[event] && !(ss->sampled[event] = stackmap__new()))
		return -ENOMEM;
	/* a sample without frames has the empty key, which still needs an address */
	return stackmap__add(ss->sampled[event], n ? (const char *)ss->ids : "", n * sizeof(uint32_t), 0, weight) ?
		0 : -errno;
}

static struct evprof *profile_of(struct speedscope *ss, struct export_ctx *x, const struct export_sample *xs)
{
	const struct export_input *in = &x->inputs[x->ninputs - 1];
	uint64_t h = hash_mix(hash_word(hash_word((uint64_t)xs->s->pid, (uint64_t)xs->s->tid), xs->event));
	struct evprof_slot *e;
	struct evprof *p, **v;
	struct strbuf name = STRBUF_INIT;

	if (htab__reserve(&ss->live) < 0)
		return NULL;
	for (size_t i = h; (e = htab__at(&ss->live, i))->head.used; i++)
		if (e->head.hash == h && e->p->pid == xs->s->pid && e->p->tid == xs->s->tid && e->p->event == xs->event)
			return e->p;
	v = realloc(ss->profiles, (ss->nprofiles + 1) * sizeof(*v));
	if (!v)
		return NULL;
	ss->profiles = v;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	if (strbuf__add(&name, xs->comm.s, xs->comm.len) < 0 ||
	    strbuf__addf(&name, " %" PRId64 "/%" PRId64 "%s", xs->s->pid, xs->s->tid,
			 x->events[xs->event].offcpu ? " off-CPU" : "") < 0 ||
	    (in->rank && strbuf__addf(&name, " rank=%s", in->rank) < 0) || strbuf__addc(&name, 0) < 0) {
		strbuf__release(&name);
		free(p);
		return NULL;
	}
	p->name = name.s;
	p->input = x->ninputs - 1;
	p->pid = xs->s->pid;
	p->tid = xs->s->tid;
	p->event = xs->event;
	ss->profiles[ss->nprofiles++] = p;
	e->p = p;
	htab__insert(&ss->live, e, h);
	return p;
}

static int spill(struct speedscope *ss)
{
	if (!ss->spill && !(ss->spill = tmpfile()))
		return -errno;
	for (size_t i = 0; i < ss->nprofiles; i++) {
		struct evprof *p = ss->profiles[i];
		struct chunk *v;

		if (!p->nbuf)
			continue;
		v = realloc(p->chunks, (p->nchunks + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->chunks = v;
		v[p->nchunks].offset = ftell(ss->spill);
		v[p->nchunks].n = p->nbuf;
		if (v[p->nchunks].offset < 0 || fwrite(p->buf, sizeof(*p->buf), p->nbuf, ss->spill) != p->nbuf)
			return -EIO;
		p->nchunks++;
		p->nbuf = 0;
	}
	ss->buffered = 0;
	return 0;
}

static int emit(struct speedscope *ss, struct evprof *p, uint64_t at, uint32_t frame, bool open)
{
	int ret;

	if (ss->buffered >= SPILL_EVENTS && (ret = spill(ss)) < 0)
		return ret;
	if (p->nbuf == p->buf_cap) {
		size_t cap = p->buf_cap ? p->buf_cap * 2 : 64;
		struct frame_event *v = realloc(p->buf, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->buf = v;
		p->buf_cap = cap;
	}
	p->buf[p->nbuf++] = (struct frame_event){ at, frame, open };
	ss->buffered++;
	return 0;
}

/* Closes the open frames above depth keep, innermost first. */
static int close_to(struct speedscope *ss, struct evprof *p, size_t keep, uint64_t at)
{
	int ret;

	while (p->nopen > keep)
		if ((ret = emit(ss, p, at, p->open[--p->nopen], false)) < 0)
			return ret;
	return 0;
}

/* The thread shows stack ids[0..n) over [start, end). */
static int show(struct speedscope *ss, struct evprof *p, size_t n, uint64_t start, uint64_t end, uint64_t slack)
{
	size_t common = 0;
	int ret;

	if (!p->any) {
		p->any = true;
		p->start = p->last_end = start;
	}
	/* a gap longer than a sample: the thread was away, everything closes where it left */
	if (start > p->last_end + slack) {
		if ((ret = close_to(ss, p, 0, p->last_end)) < 0)
			return ret;
	} else {
		start = p->last_end;
	}
	if (end < start)
		end = start;
	while (common < p->nopen && common < n && p->open[common] == ss->ids[common])
		common++;
	if ((ret = close_to(ss, p, common, start)) < 0)
		return ret;
	if (n > p->open_cap) {
		uint32_t *v = realloc(p->open, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->open = v;
		p->open_cap = n;
	}
	for (size_t i = common; i < n; i++) {
		if ((ret = emit(ss, p, start, ss->ids[i], true)) < 0)
			return ret;
		p->open[p->nopen++] = ss->ids[i];
	}
	p->last_end = end;
	return 0;
}

static int sample(void *st, struct export_ctx *x, const struct export_sample *xs)
{
	struct speedscope *ss = st;
	const struct export_event *ev = &x->events[xs->event];
	const struct lp_sample *s = xs->s;
	struct evprof *p;
	size_t n = 0;
	int ret;

	if ((ret = stack_ids(ss, x, s, &n)) < 0)
		return ret;
	if ((ret = add_sampled(ss, xs->event, n, s->weight)) < 0)
		return lp_error__set(x->err, ret, "%s", strerror(-ret));
	if (!ev->in_ns)
		return 0;	/* counts of events have no length in time */
	if (!(p = profile_of(ss, x, xs)))
		return lp_error__set(x->err, -ENOMEM, "out of memory");
	if (ev->offcpu)
		ret = show(ss, p, n, s->time, s->time + xs->dur, 0);
	else
		ret = show(ss, p, n, s->time > s->weight ? s->time - s->weight : 0, s->time, s->weight);
	return ret < 0 ? lp_error__set(x->err, ret, "%s", strerror(-ret)) : 0;
}

static int input_end(void *st, struct export_ctx *x)
{
	struct speedscope *ss = st;
	struct evprof_slot *e;
	int ret;

	for (size_t i = 0; (e = htab__next(&ss->live, &i));)
		if ((ret = close_to(ss, e->p, 0, e->p->last_end)) < 0)
			return lp_error__set(x->err, ret, "%s", strerror(-ret));
	htab__clear(&ss->live);
	return 0;
}

/* ---- writing ---- */

static const char *unit_name(const struct export_event *ev)
{
	if (ev->in_ns)
		return "nanoseconds";
	return strcmp(ev->unit, "bytes") == 0 ? "bytes" : "none";
}

/* Writes ss->out once it is big, or at the end. */
static int flush_out(struct speedscope *ss, FILE *out, bool force)
{
	if (!force && ss->out.len < (1 << 16))
		return 0;
	if (fwrite(ss->out.s, 1, ss->out.len, out) != ss->out.len)
		return -EIO;
	strbuf__reset(&ss->out);
	return 0;
}

static int write_events(struct speedscope *ss, FILE *out, const struct frame_event *v, size_t n, bool *first)
{
	int ret = 0;

	for (size_t i = 0; ret == 0 && i < n; i++) {
		ret = (*first ? 0 : strbuf__addc(&ss->out, ',')) ?:
			(v[i].open ? add_lit(&ss->out, "{\"type\":\"O\",\"frame\":") :
				     add_lit(&ss->out, "{\"type\":\"C\",\"frame\":")) ?:
			export__put_u64(&ss->out, v[i].frame) ?: add_lit(&ss->out, ",\"at\":") ?:
			export__put_u64(&ss->out, v[i].at) ?: strbuf__addc(&ss->out, '}');
		*first = false;
		if (ret == 0)
			ret = flush_out(ss, out, false);
	}
	return ret;
}

static int write_evented(struct speedscope *ss, FILE *out, const struct evprof *p, bool first_profile)
{
	struct frame_event *chunk = NULL;
	bool first = true;
	int ret = first_profile ? add_lit(&ss->out, "\n{\"type\":\"evented\",\"name\":") :
				  add_lit(&ss->out, ",\n{\"type\":\"evented\",\"name\":");

	if (ret == 0)
		ret = json__string(&ss->out, p->name, strlen(p->name));
	if (ret == 0)
		ret = strbuf__addf(&ss->out, ",\"unit\":\"nanoseconds\",\"startValue\":%" PRIu64
				   ",\"endValue\":%" PRIu64 ",\"events\":[", p->start, p->last_end);
	for (size_t c = 0; ret == 0 && c < p->nchunks; c++) {
		struct frame_event *v = realloc(chunk, p->chunks[c].n * sizeof(*v));

		if (!v) {
			ret = -ENOMEM;
			break;
		}
		chunk = v;
		if (fseek(ss->spill, p->chunks[c].offset, SEEK_SET) != 0 ||
		    fread(chunk, sizeof(*chunk), p->chunks[c].n, ss->spill) != p->chunks[c].n)
			ret = -EIO;
		else
			ret = write_events(ss, out, chunk, p->chunks[c].n, &first);
	}
	if (ret == 0)
		ret = write_events(ss, out, p->buf, p->nbuf, &first);
	if (ret == 0)
		ret = add_lit(&ss->out, "]}");
	free(chunk);
	return ret;
}

static int write_sampled(struct speedscope *ss, FILE *out, const struct export_event *ev,
			 const struct stackmap *m, bool first)
{
	size_t n = stackmap__size(m);
	uint64_t total = 0;
	int ret;

	for (uint32_t i = 0; i < n; i++)
		total += stackmap__entry(m, i)->count[0];
	ret = strbuf__addf(&ss->out, "%s{\"type\":\"sampled\",\"name\":", first ? "\n" : ",\n");
	if (ret == 0)
		ret = json__string(&ss->out, ev->title, strlen(ev->title));
	if (ret == 0)
		ret = strbuf__addf(&ss->out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\"samples\":[",
				   unit_name(ev), total);
	for (uint32_t i = 0; ret == 0 && i < n; i++) {
		const struct stack_entry *e = stackmap__entry(m, i);
		const uint32_t *ids = (const uint32_t *)e->key;

		ret = i ? add_lit(&ss->out, ",[") : add_lit(&ss->out, "[");
		for (size_t j = 0; ret == 0 && j < e->len / sizeof(uint32_t); j++) {
			uint32_t id;

			memcpy(&id, ids + j, sizeof(id));
			ret = (j ? strbuf__addc(&ss->out, ',') : 0) ?: export__put_u64(&ss->out, id);
		}
		if (ret == 0)
			ret = strbuf__addc(&ss->out, ']');
		if (ret == 0)
			ret = flush_out(ss, out, false);
	}
	if (ret == 0)
		ret = add_lit(&ss->out, "],\"weights\":[");
	for (uint32_t i = 0; ret == 0 && i < n; i++) {
		ret = (i ? strbuf__addc(&ss->out, ',') : 0) ?: export__put_u64(&ss->out, stackmap__entry(m, i)->count[0]);
		if (ret == 0)
			ret = flush_out(ss, out, false);
	}
	if (ret == 0)
		ret = add_lit(&ss->out, "]}");
	return ret;
}

static int write_frames(struct speedscope *ss, FILE *out)
{
	size_t n = stackmap__size(ss->frames);
	int ret = add_lit(&ss->out, "\n],\"shared\":{\"frames\":[");

	for (uint32_t i = 0; ret == 0 && i < n; i++) {
		const struct stack_entry *e = stackmap__entry(ss->frames, i);
		size_t namelen = strnlen(e->key, e->len);

		ret = i ? add_lit(&ss->out, ",\n{\"name\":") : add_lit(&ss->out, "\n{\"name\":");
		if (ret == 0)
			ret = json__string(&ss->out, e->key, namelen);
		if (ret == 0 && e->len > namelen + 1) {
			ret = add_lit(&ss->out, ",\"file\":");
			if (ret == 0)
				ret = json__string(&ss->out, e->key + namelen + 1, e->len - namelen - 1);
		}
		if (ret == 0)
			ret = strbuf__addc(&ss->out, '}');
		if (ret == 0)
			ret = flush_out(ss, out, false);
	}
	if (ret == 0)
		ret = add_lit(&ss->out, "]}}\n");
	return ret;
}

/* Threads by recording, process and thread id; on-CPU before off-CPU. */
static int cmp_profiles(const void *a, const void *b)
{
	const struct evprof *p = *(const struct evprof *const *)a, *q = *(const struct evprof *const *)b;

	if (p->input != q->input)
		return p->input < q->input ? -1 : 1;
	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	if (p->tid != q->tid)
		return p->tid < q->tid ? -1 : 1;
	return p->event < q->event ? -1 : p->event > q->event;
}

static int finish(void *st, struct export_ctx *x)
{
	struct speedscope *ss = st;
	bool first = true;
	int ret = input_end(st, x);

	if (ret < 0)
		return ret;
	ret = add_lit(&ss->out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
			  "\"exporter\":\"lp-export\",\"name\":");
	if (ret == 0) {
		const char *name = x->o->name ? x->o->name : x->ninputs ? x->inputs[0].name : "lp";

		ret = json__string(&ss->out, name, strlen(name));
	}
	if (ret == 0)
		ret = add_lit(&ss->out, ",\"activeProfileIndex\":0,\"profiles\":[");
	for (size_t i = 0; ret == 0 && i < ss->nsampled; i++) {
		if (!ss->sampled[i] || stackmap__size(ss->sampled[i]) == 0)
			continue;
		ret = write_sampled(ss, x->out, &x->events[i], ss->sampled[i], first);
		first = false;
	}
	if (ss->nprofiles)
		qsort(ss->profiles, ss->nprofiles, sizeof(*ss->profiles), cmp_profiles);
	for (size_t i = 0; ret == 0 && i < ss->nprofiles; i++) {
		ret = write_evented(ss, x->out, ss->profiles[i], first);
		first = false;
	}
	if (ret == 0)
		ret = write_frames(ss, x->out);
	if (ret == 0)
		ret = flush_out(ss, x->out, true);
	if (ret == 0 && fflush(x->out) != 0)
		ret = -EIO;
	if (ret == -EIO)
		return export__write_failed(x);
	return ret < 0 ? lp_error__set(x->err, ret, "%s", strerror(-ret)) : 0;
}

const struct export_ops export__speedscope_ops = {
	.in_time_order = true,
	.begin = begin,
	.sample = sample,
	.input_end = input_end,
	.finish = finish,
	.free = free_state,
};
