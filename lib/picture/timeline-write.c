/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The timeline written: one SVG, its threads' spans and stacks embedded as JSON for its script. */
#include "picture/timeline-int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "picture/embed.h"
#include "export/export-format.h"
#include "base/hash.h"
#include "base/htab.h"
#include "base/json.h"
#include "base/numparse.h"
#include "symbols/srcline.h"
#include "base/stackmap.h"
#include "base/strbuf.h"
#include "base/xml.h"

struct clock {
	bool aligned;		/* bands on CLOCK_REALTIME */
	int64_t *shift;		/* per band: add to a time, then subtract origin */
	uint64_t span;
};

static uint64_t rel(const struct clock *c, size_t band, uint64_t t)
{
	int64_t v = (int64_t)t + c->shift[band];

	return v < 0 ? 0 : (uint64_t)v;
}

/*
 * Streams from several hosts share CLOCK_REALTIME (#lp.realtime is its value
 * at #lp.start); without it on every band, each band starts at 0.
 */
static int set_clock(struct timeline *tl, struct clock *c)
{
	int64_t origin = INT64_MAX;
	bool any = false;

	c->shift = calloc(tl->nbands ? tl->nbands : 1, sizeof(*c->shift));
	if (!c->shift)
		return -ENOMEM;
	c->aligned = tl->nbands > 1;
	for (size_t b = 0; b < tl->nbands; b++)
		if (tl->bands[b].seen && !(tl->bands[b].has_start && tl->bands[b].has_realtime))
			c->aligned = false;
	for (size_t b = 0; b < tl->nbands; b++) {
		struct band *bd = &tl->bands[b];

		if (!bd->seen)
			continue;
		c->shift[b] = c->aligned ? (int64_t)(bd->realtime - bd->start) : -(int64_t)bd->first;
		if ((int64_t)bd->first + c->shift[b] < origin)
			origin = (int64_t)bd->first + c->shift[b];
		any = true;
	}
	if (!any)
		origin = 0;
	c->span = 0;
	for (size_t b = 0; b < tl->nbands; b++) {
		c->shift[b] -= origin;
		if (tl->bands[b].seen && rel(c, b, tl->bands[b].last) > c->span)
			c->span = rel(c, b, tl->bands[b].last);
	}
	return 0;
}

static int add_str(struct strbuf *j, const char *s)
{
	return s ? json__string(j, s, strlen(s)) : strbuf__add(j, "null", 4);
}

/* The spawning stack, leaf first, each frame with its file:line where debug information has it. */
static int spawn_json(struct export_ctx *x, struct srclines *src, const struct thread *t, struct strbuf *j)
{
	int ret = strbuf__addc(j, '[');

	for (size_t k = t->nspawn; ret == 0 && k-- > 0;) {
		const struct spawn_frame *f = &t->spawn[k];
		const char *name = t->spawn_text.s + f->name, *dso = t->spawn_text.s + f->dso;
		struct srcline line;
		const char *reason = NULL;
		int found = 0;

		if (k + 1 < t->nspawn)
			ret = strbuf__addc(j, ',');
		if (ret == 0 && src && f->has_offset && (found = srclines__frame(src, dso, f->dso_len, f->offset,
										 k + 1 == t->nspawn, &line, &reason)) < 0)
			ret = found;
		/* said once per file: the picture comes out, without these lines */
		if (reason)
			lp_error__warn(x->o->warn, x->o->ctx, NULL, 0, "'%.*s': %s: spawning stacks without file:line",
				(int)f->dso_len, dso, reason);
		if (ret == 0 && found > 0) {
			struct strbuf b = STRBUF_INIT;

			ret = strbuf__addf(&b, "%.*s %s:%d", (int)f->name_len, name, line.file, line.line);
			if (ret == 0)
				ret = json__string(j, b.s, b.len);
			strbuf__release(&b);
		} else if (ret == 0) {
			ret = json__string(j, name, f->name_len);
		}
	}
	return ret ? ret : strbuf__addc(j, ']');
}

static int thread_json(struct export_ctx *x, struct timeline *tl, const struct clock *c, struct srclines *src, size_t row,
		       const size_t *order, struct strbuf *j)
{
	const struct thread *t = &tl->threads[order[row]];
	uint64_t start = t->has_start ? t->start : t->first;
	int ret;

	ret = strbuf__addf(j, "%s{\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"d\":%" PRIu32 ",\"p\":%td,"
			   "\"start\":%" PRIu64 ",\"end\":",
			   row ? "," : "", t->pid, t->tid, t->depth,
			   t->parent >= 0 ? (ptrdiff_t)tl->threads[t->parent].row : (ptrdiff_t)-1, rel(c, t->band, start));
	if (ret == 0)
		ret = t->has_end ? strbuf__addf(j, "%" PRIu64, rel(c, t->band, t->end)) : strbuf__add(j, "null", 4);
	if (ret == 0)
		ret = strbuf__addf(j, ",\"withproc\":%s,\"last\":%" PRIu64 ",\"scpu\":%" PRIu64 ",\"soff\":%" PRIu64 ",\"non\":%zu,"
				   "\"noff\":%zu,\"nwake\":%zu,\"nreg\":%zu,\"cpu\":",
				   t->ended_with_process ? "true" : "false", rel(c, t->band, t->seen ? t->last : start), t->sampled_cpu, t->sampled_off, t->on.n,
				   t->off.n, t->wakes.n, t->regions.n);
	if (ret == 0)
		ret = t->has_cpu ? strbuf__addf(j, "%" PRIu64, t->cpu) : strbuf__add(j, "null", 4);
	if (ret == 0)
		ret = strbuf__add(j, ",\"comm\":", 8) ?: add_str(j, t->comm ? t->comm : "?");
	if (ret == 0)
		ret = strbuf__add(j, ",\"exe\":", 7) ?: add_str(j, t->exe);
	if (ret == 0)
		ret = strbuf__add(j, ",\"status\":", 10) ?: add_str(j, t->status);
	if (ret == 0)
		ret = strbuf__add(j, ",\"execs\":[", 10);
	for (size_t k = 0; ret == 0 && k < t->nexecs; k++)
		ret = strbuf__addf(j, "%s%" PRIu64, k ? "," : "", rel(c, t->band, t->execs[k]));
	if (ret == 0)
		ret = strbuf__addc(j, ']');
	if (ret == 0 && t->has_spawn) {
		ret = strbuf__addf(j, ",\"spawned\":%" PRIu64 ",\"spawn\":", rel(c, t->band, t->spawned));
		if (ret == 0)
			ret = spawn_json(x, src, t, j);
	}
	return ret ? ret : strbuf__addc(j, '}');
}

static int band_json(const struct band *b, size_t i, struct strbuf *j)
{
	int ret = strbuf__addf(j, "%s{\"rows\":[%zu,%zu],\"name\":", i ? "," : "", b->first_row, b->end_row);

	if (ret == 0)
		ret = add_str(j, b->name);
	if (ret == 0)
		ret = strbuf__add(j, ",\"host\":", 8) ?: add_str(j, b->host);
	if (ret == 0)
		ret = strbuf__add(j, ",\"rank\":", 8) ?: add_str(j, b->rank);
	return ret ? ret : strbuf__addc(j, '}');
}

/*
 * Where each thread's stacks are in the map sorted by key (the thread index
 * first, big-endian: each thread's stacks are one run), and each entry's
 * place in its thread's run.
 */
struct stack_index {
	struct stack_entry **sorted;
	size_t *first;		/* per thread, and one past the last */
	uint32_t *pos;		/* per entry id */
};

static int index_stacks(struct timeline *tl, struct stack_index *si)
{
	size_t n = stackmap__size(tl->stacks), at = 0;

	si->sorted = stackmap__sorted(tl->stacks);
	si->first = calloc(tl->nthreads + 1, sizeof(*si->first));
	si->pos = calloc(n ? n : 1, sizeof(*si->pos));
	if ((!si->sorted && n) || !si->first || !si->pos)
		return -ENOMEM;
	for (size_t t = 0; t <= tl->nthreads; t++) {
		while (at < n) {
			uint64_t id = 0;

			for (int k = 0; k < 8; k++)
				id = id << 8 | (unsigned char)si->sorted[at]->key[k];
			if (id >= t)
				break;
			at++;
		}
		si->first[t] = at;
	}
	for (size_t t = 0; t < tl->nthreads; t++)
		for (size_t k = si->first[t]; k < si->first[t + 1]; k++)
			si->pos[si->sorted[k]->id] = (uint32_t)(k - si->first[t]);
	return 0;
}

/*
 * Intervals of each row as varints, on-CPU then off-CPU: first every
 * interval's gap from the previous end and length, then every interval's
 * stack (its place in the row's list). Apart, each compresses: interleaved,
 * the small stack numbers broke deflate's matches and doubled the file.
 */
static int intervals(struct timeline *tl, const struct clock *c, const struct layout *l,
		     const struct stack_index *si, struct embed *z, struct strbuf *b)
{
	int ret = 0;

	for (int column = 0; ret == 0 && column < 2; column++)
		for (size_t r = 0; ret == 0 && r < l->nrows; r++) {
			const struct thread *t = &tl->threads[l->order[r]];

			for (int which = 0; ret == 0 && which < 2; which++) {
				const struct spans *s = which ? &t->off : &t->on;
				uint64_t prev = 0;

				for (size_t k = 0; ret == 0 && k < s->n; k++) {
					uint64_t a = rel(c, t->band, s->v[k].start), e = rel(c, t->band, s->v[k].end);

					if (column == 0)
						ret = embed__varint(b, a - prev) ?: embed__varint(b, e - a);
					else
						ret = embed__varint(b, si->pos[s->v[k].stack]);
					prev = e;
				}
				if (ret == 0)
					ret = embed__drain(z, b, 1 << 16);
			}
		}
	if (ret == 0)
		ret = embed__drain(z, b, 0);
	strbuf__reset(b);
	return ret;
}

/* Each row's stacks: count, then per stack its length, bytes, on and off weights. */
static int stacks(const struct layout *l, const struct stack_index *si, struct embed *z, struct strbuf *b)
{
	int ret = 0;

	for (size_t r = 0; ret == 0 && r < l->nrows; r++) {
		size_t t = l->order[r];

		ret = embed__varint(b, si->first[t + 1] - si->first[t]);
		for (size_t k = si->first[t]; ret == 0 && k < si->first[t + 1]; k++) {
			const struct stack_entry *e = si->sorted[k];

			ret = embed__varint(b, e->len - 8) ?: strbuf__add(b, e->key + 8, e->len - 8) ?:
				embed__varint(b, e->count[0]) ?: embed__varint(b, e->count[1]);
			if (ret == 0)
				ret = embed__drain(z, b, 1 << 16);
		}
	}
	if (ret == 0)
		ret = embed__drain(z, b, 0);
	strbuf__reset(b);
	return ret;
}

/* A thread of band by its tid: the one alive at, else the last one started before at. */
struct by_tid {
	struct htab_entry head;
	size_t band;
	int64_t tid;
	size_t first;		/* its first thread; more in next[] */
};

static uint64_t by_tid_hash(size_t band, int64_t tid)
{
	return hash_mix((uint64_t)tid * 1000003u + band);
}

static struct by_tid *by_tid_slot(struct htab *h, size_t band, int64_t tid)
{
	uint64_t k = by_tid_hash(band, tid);
	struct by_tid *e;

	for (size_t i = k; (e = htab__at(h, i))->head.used; i++)
		if (e->band == band && e->tid == tid)
			return e;
	return e;
}

static int wake_index(const struct timeline *tl, struct htab *h, size_t *next)
{
	for (size_t i = tl->nthreads; i-- > 0;) {
		const struct thread *t = &tl->threads[i];
		struct by_tid *e;

		if (htab__reserve(h) < 0)
			return -ENOMEM;
		e = by_tid_slot(h, t->band, t->tid);
		next[i] = e->head.used ? e->first : SIZE_MAX;
		if (!e->head.used) {
			htab__insert(h, e, by_tid_hash(t->band, t->tid));
			e->band = t->band;
			e->tid = t->tid;
		}
		e->first = i;
	}
	return 0;
}

static bool alive_at(const struct thread *t, uint64_t at)
{
	uint64_t from = t->has_start ? t->start : t->first, to = t->has_end ? t->end : t->last;

	return from <= at && at <= to;
}

/* The row of the thread that made the wake, or SIZE_MAX where it is not in the picture. */
static size_t waker_row(const struct timeline *tl, const struct htab *h, const size_t *next, size_t band,
			const struct wake *w)
{
	const struct by_tid *e;
	size_t best = SIZE_MAX;

	if (!h->slots || !(e = by_tid_slot((struct htab *)h, band, w->tid))->head.used)
		return SIZE_MAX;
	for (size_t i = e->first; i != SIZE_MAX; i = next[i]) {
		const struct thread *t = &tl->threads[i];

		if (t->pid != w->pid)
			continue;
		if (alive_at(t, w->at))
			return t->row;
		if ((t->has_start ? t->start : t->first) <= w->at)
			best = t->row;
	}
	return best;
}

static int wake_cmp(const void *a, const void *b)
{
	const struct wake *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

/*
 * Each row's wake-ups in time order, as varints: the gap from the previous
 * one, then what woke it: 0 an interrupt, 1 a thread not in the picture, 2 +
 * the row of the thread that did.
 */
static int wakes(struct timeline *tl, const struct clock *c, const struct layout *l, struct embed *z, struct strbuf *b)
{
	struct htab h = HTAB_INIT(struct by_tid);
	size_t *next = malloc((tl->nthreads ? tl->nthreads : 1) * sizeof(*next));
	int ret = next ? wake_index(tl, &h, next) : -ENOMEM;

	for (size_t r = 0; ret == 0 && r < l->nrows; r++) {
		struct thread *t = &tl->threads[l->order[r]];
		uint64_t prev = 0;

		for (size_t k = 0; ret == 0 && k < t->wakes.n; k++) {
			const struct wake *w = &t->wakes.v[k];
			uint64_t at = rel(c, t->band, w->at);
			size_t row = w->tid ? waker_row(tl, &h, next, t->band, w) : SIZE_MAX;

			ret = embed__varint(b, at - prev) ?: embed__varint(b, !w->tid ? 0 : row == SIZE_MAX ? 1 : row + 2);
			prev = at;
		}
		if (ret == 0)
			ret = embed__drain(z, b, 1 << 16);
	}
	if (ret == 0)
		ret = embed__drain(z, b, 0);
	strbuf__reset(b);
	htab__release(&h);
	free(next);
	return ret;
}

/* Each row's code regions, in the order they began: (gap from the previous begin, length, depth, name). */
static int regions(struct timeline *tl, const struct clock *c, const struct layout *l, struct embed *z,
		   struct strbuf *b)
{
	int ret = 0;

	for (size_t r = 0; ret == 0 && r < l->nrows; r++) {
		const struct thread *t = &tl->threads[l->order[r]];
		uint64_t prev = 0;

		for (size_t k = 0; ret == 0 && k < t->regions.n; k++) {
			const struct region_span *g = &t->regions.v[k];
			uint64_t a = rel(c, t->band, g->start), e = rel(c, t->band, g->end);

			ret = embed__varint(b, a >= prev ? a - prev : 0) ?: embed__varint(b, e > a ? e - a : 0) ?:
				embed__varint(b, g->depth) ?: embed__varint(b, g->name);
			if (a > prev)
				prev = a;
		}
		if (ret == 0)
			ret = embed__drain(z, b, 1 << 16);
	}
	if (ret == 0)
		ret = embed__drain(z, b, 0);
	strbuf__reset(b);
	return ret;
}

static int emit(FILE *out, const char *s, size_t len)
{
	return len && fwrite_unlocked(s, 1, len, out) != len ? -EIO : 0;
}

#define emit_lit(out, s) emit(out, s, sizeof(s) - 1)

static int emit_xml_text(FILE *out, const char *s)
{
	struct strbuf b = STRBUF_INIT;
	int ret = xml__escape(&b, s, strlen(s));

	if (ret == 0)
		ret = emit(out, b.s, b.len);
	strbuf__release(&b);
	return ret;
}

int timeline__finish(void *st, struct export_ctx *x)
{
	struct timeline *tl = st;
	const struct timeline_opts *o = tl->o;
	struct layout l = { .tl = tl };
	struct clock c = { 0 };
	struct stack_index si = { 0 };
	struct srclines *src = NULL;
	struct strbuf j = STRBUF_INIT;
	struct embed z;
	bool zstarted = false;
	FILE *out = x->out;
	double fs = o->fontsize, top, height, labelw = o->width * 0.22 < 360 ? o->width * 0.22 : 360;
	int ret;

	for (size_t i = 0; i < tl->nthreads; i++) {
		struct thread *t = &tl->threads[i];

		timeline__spans_order(&t->on);
		timeline__spans_order(&t->off);
		if (t->wakes.n > 1)
			qsort(t->wakes.v, t->wakes.n, sizeof(*t->wakes.v), wake_cmp);
		timeline__close_regions(t);
	}
	if (tl->nthreads == 0) {
		ret = lp_error__set(x->err, -ENODATA, "no threads in the input: nothing to draw");
		x->err->file = NULL;
		goto cleanup;
	}
	if ((ret = timeline__lay_out(&l)) < 0 || (ret = set_clock(tl, &c)) < 0)
		goto nomem;
	if (o->srclines && !(src = srclines__new()))
		goto nomem;
	if (memmem(o->js, o->jslen, "]]>", 3) || memmem(o->css, o->csslen, "]]>", 3)) {
		ret = lp_error__set(x->err, -EINVAL, "the script would end its CDATA section");
		goto cleanup;
	}
	top = fs * 6.5;
	height = top + (double)(l.nrows + tl->nbands) * o->rowheight + fs * 4;
	ret = strbuf__addf(&j, "{\"v\":1,\"cfg\":{\"width\":%d,\"rowh\":%d,\"fs\":%g,\"labelw\":%.0f,\"top\":%.0f,"
			   "\"aligned\":%s,\"span\":%" PRIu64 ",\"title\":",
			   o->width, o->rowheight, fs, labelw, top, c.aligned ? "true" : "false", c.span);
	if (ret == 0)
		ret = add_str(&j, o->title) ?: strbuf__add(&j, "},\"rnames\":[", 12);
	for (uint32_t k = 0; ret == 0 && k < stackmap__size(tl->region_names); k++) {
		const struct stack_entry *e = stackmap__entry(tl->region_names, k);

		ret = (k ? strbuf__addc(&j, ',') : 0) ?: json__string(&j, e->key, e->len);
	}
	if (ret == 0)
		ret = strbuf__add(&j, "],\"bands\":[", 11);
	for (size_t b = 0; ret == 0 && b < tl->nbands; b++)
		ret = band_json(&tl->bands[l.band_order[b]], b, &j);
	if (ret == 0)
		ret = strbuf__add(&j, "],\"threads\":[", 13);
	for (size_t r = 0; ret == 0 && r < l.nrows; r++)
		ret = thread_json(x, tl, &c, src, r, l.order, &j);
	if (ret == 0)
		ret = strbuf__add(&j, "]}", 2);
	if (ret < 0)
		goto nomem;

	if (fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
			 "<svg version=\"1.1\" id=\"timeline\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\" "
			 "xmlns=\"http://www.w3.org/2000/svg\" xmlns:xhtml=\"http://www.w3.org/1999/xhtml\">\n",
		    o->width, height, o->width, height) < 0)
		goto io;
	ret = emit_lit(out, "<style type=\"text/css\"><![CDATA[\n") ?: emit(out, o->css, o->csslen) ?:
		emit_lit(out, "text { font-family: ") ?: emit_xml_text(out, o->fonttype);
	if (ret == 0 && fprintf(out, "; font-size: %gpx; }\n]]></style>\n", fs) < 0)
		ret = -EIO;
	ret = ret ?: emit_lit(out, "<script type=\"text/ecmascript\"><![CDATA[\n") ?: emit(out, o->js, o->jslen) ?:
		emit_lit(out, "]]></script>\n");
	if (ret < 0)
		goto io;
	if (fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" fill=\"#f8f8f4\"/>\n"
			 "<text id=\"title\" x=\"%.1f\" y=\"%.0f\">",
		    o->width, height, o->width / 2.0, fs * 2) < 0 ||
	    emit_xml_text(out, o->title) < 0 ||
	    fprintf(out, "</text>\n<text id=\"noscript\" x=\"%.1f\" y=\"%.0f\">This timeline is drawn by its script: "
			 "open it in a browser with JavaScript on.</text>\n<g id=\"tl\"></g>\n",
		    o->width / 2.0, top + fs * 2) < 0)
		goto io;
	if (emit_lit(out, "<metadata id=\"lp-timeline\">\n") < 0)
		goto io;
	if (embed__start(&z, out, 6) < 0)
		goto nomem;
	zstarted = true;
	{
		unsigned char len4[4] = { (unsigned char)j.len, (unsigned char)(j.len >> 8),
					  (unsigned char)(j.len >> 16), (unsigned char)(j.len >> 24) };

		if (j.len > UINT32_MAX)
			goto nomem;
		ret = embed__write(&z, len4, 4) ?: embed__write(&z, j.s, j.len);
	}
	strbuf__reset(&j);
	ret = ret ?: index_stacks(tl, &si) ?: intervals(tl, &c, &l, &si, &z, &j) ?: stacks(&l, &si, &z, &j) ?:
	      wakes(tl, &c, &l, &z, &j) ?: regions(tl, &c, &l, &z, &j);
	zstarted = false;
	if (ret < 0) {
		embed__abort(&z);
		goto fail;
	}
	if ((ret = embed__finish(&z)) < 0 || emit_lit(out, "</metadata>\n</svg>\n") < 0)
		goto io;
	ret = 0;
	goto cleanup;
io:
	ret = export__write_failed(x);
	goto cleanup;
fail:
	if (ret == -EIO)
		goto io;
nomem:
	ret = lp_error__set(x->err, ret == -EOVERFLOW ? ret : -ENOMEM, "%s",
			    ret == -EOVERFLOW ? "a number does not fit 64 bits" : "out of memory");
cleanup:
	if (zstarted)
		embed__abort(&z);
	strbuf__release(&j);
	srclines__free(src);
	free(c.shift);
	free(l.order);
	free(l.kids);
	free(l.kid_at);
	free(l.band_order);
	free(si.first);
	free(si.pos);
	return ret;
}

void timeline__free(void *st)
{
	struct timeline *tl = st;

	for (size_t i = 0; i < tl->nthreads; i++) {
		struct thread *t = &tl->threads[i];

		free(t->comm);
		free(t->exe);
		free(t->status);
		free(t->execs);
		free(t->spawn);
		strbuf__release(&t->spawn_text);
		free(t->on.v);
		free(t->off.v);
		free(t->wakes.v);
		free(t->regions.v);
		free(t->regions.open);
	}
	free(tl->threads);
	for (size_t b = 0; b < tl->nbands; b++) {
		free(tl->bands[b].name);
		free(tl->bands[b].host);
		free(tl->bands[b].rank);
	}
	free(tl->bands);
	htab__release(&tl->live);
	stackmap__free(tl->stacks);
	stackmap__free(tl->region_names);
	strbuf__release(&tl->key);
	free(tl);
}
