/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "profile/profile-int.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/dso.h"
#include "base/error.h"
#include "stream/escape.h"
#include "formats/folded.h"
#include "base/hash.h"
#include "base/htab.h"
#include "base/lines.h"
#include "stream/lpstream.h"
#include "base/numparse.h"
#include "symbols/srcline.h"
#include "base/stackmap.h"
#include "base/strbuf.h"

struct profile *profile__new(const struct profile_opts *opts)
{
	struct profile *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->o = *opts;
	c->spawns = HTAB_INIT(struct spawn_note);
	c->stacks = stackmap__new();
	c->threads = stackmap__new();
	if (opts->spawn_notes && !(c->src = srclines__new())) {
		profile__free(c);
		errno = ENOMEM;
		return NULL;
	}
	if (!c->stacks || !c->threads) {
		profile__free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

void profile__free(struct profile *c)
{
	if (!c)
		return;
	stackmap__free(c->stacks);
	stackmap__free(c->threads);
	free(c->timed);
	free(c->adds);
	strbuf__release(&c->key);
	strbuf__release(&c->hexless);
	strbuf__release(&c->last_event);
	strbuf__release(&c->first_unit);
	strbuf__release(&c->host_frame);
	strbuf__release(&c->rank_frame);
	lp_regions__free(c->regions);
	for (size_t i = 0; i < c->nunits; i++) {
		free(c->units[i].event);
		free(c->units[i].unit);
	}
	free(c->units);
	for (size_t i = 0; i < c->nnotes; i++) {
		free(c->note_keys[i]);
		free(c->note_texts[i]);
	}
	free(c->note_keys);
	free(c->note_texts);
	{
		struct spawn_note *e;

		for (size_t i = 0; (e = htab__next(&c->spawns, &i));)
			free(e->text);
		htab__release(&c->spawns);
	}
	srclines__free(c->src);
	free(c);
}

void profile__warn(struct profile *c, const char *msg)
{
	lp_error__warn(c->o.warn, c->o.ctx, c->file, c->lines ? lines__lineno(c->lines) : 0, "%s", msg);
}

/* One more sample in column col of stack id, for a half's merge into a sink. */
static int count_add(struct profile *c, uint32_t id, int col)
{
	if (id >= c->adds_cap) {
		size_t cap = c->adds_cap ? 2 * c->adds_cap : 1024;
		uint64_t (*v)[STACKMAP_COLUMNS];

		while (cap <= id)
			cap *= 2;
		if (!(v = realloc(c->adds, cap * sizeof(*v))))
			return -ENOMEM;
		memset(v + c->adds_cap, 0, (cap - c->adds_cap) * sizeof(*v));
		c->adds = v;
		c->adds_cap = cap;
	}
	c->adds[id][col]++;
	return 0;
}

static bool is_hex(char ch)
{
	return hex_digit((unsigned char)ch) >= 0;
}

/* s/0x[0-9a-fA-F]+/0x.../g, as difffolded.pl -s does */
static int strip_hex(struct strbuf *out, const char *s, size_t len)
{
	size_t i = 0;

	strbuf__reset(out);
	while (i < len) {
		if (s[i] == '0' && i + 2 < len && s[i + 1] == 'x' && is_hex(s[i + 2])) {
			if (strbuf__add(out, "0x...", 5) < 0)
				return -ENOMEM;
			for (i += 2; i < len && is_hex(s[i]); i++)
				;
			continue;
		}
		if (strbuf__addc(out, s[i++]) < 0)
			return -ENOMEM;
	}
	return 0;
}

int profile__add(struct profile *c, const char *key, size_t len, int col, uint64_t weight,
	       uint64_t time, const char *thread, size_t threadlen, struct lp_error *err)
{
	struct stack_entry *e, *t;
	struct timed *tm;

	if (c->o.strip_hex) {
		if (strip_hex(&c->hexless, key, len) < 0)
			return lp_error__set(err, -ENOMEM, "out of memory");
		key = c->hexless.s;
		len = c->hexless.len;
	}
	if (c->o.sink) {
		int ret = c->o.sink(c->o.sink_ctx, key, len, col, c->o.samples ? 1 : weight, 1);

		return ret < 0 ? lp_error__set(err, ret, "%s", ret == -EOVERFLOW ?
				      "a count does not fit 64 bits" : "out of memory") : 0;
	}
	e = stackmap__add(c->stacks, key, len, col, c->o.samples ? 1 : weight);
	if (!e)
		return lp_error__set(err, -errno, "%s", errno == EOVERFLOW ?
			    "a stack's count does not fit 64 bits" : "out of memory");
	if (c->count_adds && count_add(c, e->id, col) < 0)
		return lp_error__set(err, -ENOMEM, "out of memory");
	if (!c->o.time_ordered)
		return 0;
	t = stackmap__add(c->threads, thread, threadlen, 0, 0);
	if (!t)
		return lp_error__set(err, -ENOMEM, "out of memory");
	if (c->ntimed == c->timed_cap) {
		size_t cap = c->timed_cap ? c->timed_cap * 2 : 4096;
		struct timed *v = realloc(c->timed, cap * sizeof(*v));

		if (!v)
			return lp_error__set(err, -ENOMEM, "out of memory");
		c->timed = v;
		c->timed_cap = cap;
	}
	tm = &c->timed[c->ntimed++];
	tm->time = time;
	tm->seq = c->seq++;
	tm->weight = c->o.samples ? 1 : weight;
	tm->thread = t->id;
	tm->stack = e->id;
	return 0;
}


/* ---- folded ---- */

static int read_folded(struct profile *c, int col, struct lp_error *err)
{
	struct folded_line f;
	char *line;
	size_t len;
	int ret;

	while ((ret = lines__next(c->lines, &line, &len)) > 0) {
		if (len == 0 || line[0] == '#')
			continue;
		err->line = lines__lineno(c->lines);
		ret = folded__parse(line, len, &f, err);
		if (ret < 0)
			return ret;
		if (f.ncounts == 2 && !c->o.diff)
			return lp_error__set(err, -EINVAL, "a differential line (two counts) needs --diff");
		if (f.ncounts == 2 && c->o.samples)
			return lp_error__set(err, -EINVAL, "--samples cannot count differential lines");
		if (f.ncounts == 2) {
			ret = profile__add(c, f.stack, f.stacklen, 0, f.count[0], 0, "", 0, err);
			if (ret == 0)
				ret = profile__add(c, f.stack, f.stacklen, 1, f.count[1], 0, "", 0, err);
		} else {
			ret = profile__add(c, f.stack, f.stacklen, col, f.count[0], c->seq, "", 0, err);
		}
		if (ret < 0)
			return ret;
	}
	err->line = 0;
	if (ret < 0)
		return lp_error__set(err, ret, "read error: %s", strerror(-ret));
	return 0;
}

/* ---- lp stream ---- */

/* Appends an escaped name as a folded frame: ';' would split it, newlines end the line. */
static int add_name(struct strbuf *key, struct lp_span s, bool comm)
{
	size_t from = key->len;
	int ret = lp_span__unescape_to(key, s);

	if (ret < 0)
		return ret;
	for (size_t i = from; i < key->len; i++) {
		char ch = key->s[i];

		if (ch == ';')
			key->s[i] = ':';
		else if (ch == '\n' || ch == '\r' || (comm && ch == ' '))
			key->s[i] = comm ? '_' : ' ';
	}
	return 0;
}

/* host=NAME or rank=N as a folded frame, from a metadata value (checked by the reader). */
static int where_frame(struct strbuf *frame, const char *key, const struct lp_meta *m)
{
	strbuf__reset(frame);
	return strbuf__add(frame, key, strlen(key)) ?: strbuf__addc(frame, '=') ?: add_name(frame, m->values[0], true);
}

/* A stream's first #lp.host and #lp.rank hold, as for every reader. */
static int meta_line(struct profile *c, const struct lp_meta *m, struct lp_error *err)
{
	bool host = m->known == LP_META_HOST;
	int ret;

	if ((!host && m->known != LP_META_RANK) || (host ? c->has_host : c->has_rank))
		return 0;
	if ((ret = where_frame(host ? &c->host_frame : &c->rank_frame, host ? "host" : "rank", m)) < 0)
		return lp_error__set(err, ret, "out of memory");
	*(host ? &c->has_host : &c->has_rank) = true;
	return 0;
}

/* A custom event's unit, for the warning about summing events of different units. */
static int event_def(struct profile *c, const struct lp_event_def *d, struct lp_error *err)
{
	struct event_unit *v;
	struct strbuf key = STRBUF_INIT, unit = STRBUF_INIT;

	v = realloc(c->units, (c->nunits + 1) * sizeof(*v));
	if (!v)
		return lp_error__set(err, -ENOMEM, "out of memory");
	c->units = v;
	if (strbuf__add(&key, d->key.s, d->key.len) < 0 || lp_span__unescape_to(&unit, d->unit) < 0 ||
	    strbuf__addc(&key, 0) < 0 || strbuf__addc(&unit, 0) < 0) {
		strbuf__release(&key);
		strbuf__release(&unit);
		return lp_error__set(err, -ENOMEM, "out of memory");
	}
	v[c->nunits].event = key.s;
	v[c->nunits].unit = unit.s;
	c->nunits++;
	return 0;
}

static const char *unit_of(struct profile *c, struct lp_span event)
{
	if (lp_span__eq(event, "cpu", 3) || lp_span__eq(event, "offcpu", 6))
		return "ns";
	for (size_t i = c->nunits; i-- > 0;)
		if (lp_span__eq(event, c->units[i].event, strlen(c->units[i].event)))
			return c->units[i].unit;
	return NULL;
}

/* Warns once when events of different units are summed together. */
static int check_unit(struct profile *c, struct lp_span event)
{
	const char *unit;
	struct strbuf id = STRBUF_INIT;
	int ret = 0;

	if (c->units_warned || c->o.samples ||
	    (c->last_event.len == event.len && memcmp(c->last_event.s, event.s, event.len) == 0))
		return 0;
	strbuf__reset(&c->last_event);
	if (strbuf__add(&c->last_event, event.s, event.len) < 0)
		return -ENOMEM;
	/* an event of unknown unit is only like itself */
	unit = unit_of(c, event);
	if (unit)
		ret = strbuf__add(&id, unit, strlen(unit));
	else if ((ret = strbuf__addc(&id, '?')) == 0)
		ret = strbuf__add(&id, event.s, event.len);
	if (ret < 0 || (ret = strbuf__addc(&id, 0)) < 0) {
		ret = -ENOMEM;
		goto cleanup;
	}
	if (c->first_unit.len == 0) {
		ret = strbuf__add(&c->first_unit, id.s, id.len);
	} else if (strcmp(c->first_unit.s, id.s) != 0) {
		char msg[256];

		c->units_warned = true;
		snprintf(msg, sizeof(msg),
			 "summing events of different units ('%.*s' is not in the unit of the "
			 "first event); choose events with --event",
			 (int)(event.len > 60 ? 60 : event.len), event.s);
		profile__warn(c, msg);
	}
cleanup:
	strbuf__release(&id);
	return ret;
}

static bool event_selected(const struct profile *c, struct lp_span event)
{
	if (!c->o.events)
		return true;
	for (size_t i = 0; i < c->o.nevents; i++)
		if (lp_span__eq(event, c->o.events[i], strlen(c->o.events[i])))
			return true;
	return false;
}

/* "region=OUTER;region=INNER;": the code regions open on thread tid, as root frames. */
static int add_region_frames(struct profile *c, struct strbuf *k, int64_t tid)
{
	const struct lp_span *names;
	size_t n = c->regions ? lp_regions__open(c->regions, tid, &names) : 0;
	int ret;

	for (size_t i = 0; i < n; i++)
		if ((ret = strbuf__add(k, "region=", 7)) < 0 || (ret = add_name(k, names[i], false)) < 0 ||
		    (ret = strbuf__addc(k, ';')) < 0)
			return ret;
	return 0;
}

/* "[waiting for NAME]": an explained wait's one frame. */
static int add_wait_frame(struct strbuf *k, const struct lp_wait *w)
{
	int ret;

	if ((ret = strbuf__add(k, ";[waiting for ", 14)) < 0 ||
	    (ret = w->comm.len ? add_name(k, w->comm, false) : strbuf__addf(k, "pid %" PRId64, w->pid)) < 0)
		return ret;
	return strbuf__addc(k, ']');
}

/* The folded key of s: its root frames and its stack, or the frame of the wait explained (when not NULL). */
static int lp_key(struct profile *c, const struct lp_sample *s, const struct lp_wait *explained)
{
	struct strbuf *k = &c->key;
	bool annotate = c->o.annotate_kernel || c->o.annotate_jit;
	struct lp_list_iter frames, locs;
	struct lp_span frame, loc;
	char ids[48];
	int ret;

	strbuf__reset(k);
	if ((c->o.by_host && ((ret = strbuf__add(k, c->host_frame.s, c->host_frame.len)) < 0 ||
			      (ret = strbuf__addc(k, ';')) < 0)) ||
	    (c->o.by_rank && ((ret = strbuf__add(k, c->rank_frame.s, c->rank_frame.len)) < 0 ||
			      (ret = strbuf__addc(k, ';')) < 0)) ||
	    (c->o.by_region && (ret = add_region_frames(c, k, s->tid)) < 0) ||
	    (ret = add_name(k, s->comm, true)) < 0)
		return ret;
	if (c->o.naming == NAMING_PID)
		snprintf(ids, sizeof(ids), "-%" PRId64, s->pid);
	else if (c->o.naming == NAMING_TID)
		snprintf(ids, sizeof(ids), "-%" PRId64 "/%" PRId64, s->pid, s->tid);
	else
		ids[0] = 0;
	if ((ret = strbuf__add(k, ids, strlen(ids))) < 0)
		return ret;
	if (explained)
		return add_wait_frame(k, explained);
	if (s->stack.len == 0)
		return 0;
	if (!annotate && !memchr(s->stack.s, '%', s->stack.len)) {
		if ((ret = strbuf__addc(k, ';')) < 0)
			return ret;
		return strbuf__add(k, s->stack.s, s->stack.len);
	}
	lp_list_iter__init(&frames, s->stack);
	lp_list_iter__init(&locs, s->locs);
	while (lp_list_iter__next(&frames, &frame, NULL)) {
		bool have_loc = lp_list_iter__next(&locs, &loc, NULL) && !lp_span__eq(s->locs, "-", 1);

		if ((ret = strbuf__addc(k, ';')) < 0 || (ret = add_name(k, frame, false)) < 0)
			return ret;
		if (!have_loc)
			continue;
		if (c->o.annotate_kernel && lp_loc__is_kernel(loc))
			ret = strbuf__add(k, "_[k]", 4);
		else if (c->o.annotate_jit && dso__is_perf_map(loc.s, loc.len))
			ret = strbuf__add(k, "_[j]", 4);
		if (ret < 0)
			return ret;
	}
	return 0;
}

size_t profile__notes(const struct profile *c, const char *const **keys, const char *const **texts)
{
	*keys = (const char *const *)c->note_keys;
	*texts = (const char *const *)c->note_texts;
	return c->nnotes;
}

static struct spawn_note *spawn_slot(struct profile *c, int64_t tid)
{
	uint64_t h = hash_mix((uint64_t)tid);
	struct spawn_note *e;

	for (size_t i = h; (e = htab__at(&c->spawns, i))->head.used; i++)
		if (e->tid == tid)
			return e;
	return e;
}

/*
 * A spawn record (P ... spawn): where the new thread came from, leaf first,
 * each frame with its file:line where debug information has it, kept for
 * its T record's note. -ENOMEM, or -EINVAL with err.
 */
enum { SPAWN_NOTE_FRAMES = 8 };

static int spawn_note(struct profile *c, const struct lp_proc *p, struct lp_error *err)
{
	struct lp_span names[SPAWN_NOTE_FRAMES], places[SPAWN_NOTE_FRAMES], item;
	struct lp_list_iter ni, li;
	struct strbuf text = STRBUF_INIT, frame = STRBUF_INIT;
	struct spawn_note *e;
	size_t n = 0, total = 0;
	bool has_locs;
	int ret;

	if (p->what != LP_PROC_SPAWN)
		return 0;
	has_locs = !lp_span__eq(p->locs, "-", 1);
	/* the last frames (the leaf's end) are the ones worth showing: keep a ring of them */
	lp_list_iter__init(&ni, p->stack);
	lp_list_iter__init(&li, has_locs ? p->locs : (struct lp_span){ "", 0 });
	while (lp_list_iter__next(&ni, &item, NULL)) {
		names[total % SPAWN_NOTE_FRAMES] = item;
		if (!lp_list_iter__next(&li, &places[total % SPAWN_NOTE_FRAMES], NULL))
			places[total % SPAWN_NOTE_FRAMES] = (struct lp_span){ "", 0 };
		total++;
	}
	n = total < SPAWN_NOTE_FRAMES ? total : SPAWN_NOTE_FRAMES;
	ret = strbuf__addf(&text, "spawned by %" PRId64 "/%" PRId64 " at ", p->ppid, p->ptid);
	for (size_t k = 0; ret == 0 && k < n; k++) {
		size_t at = (total - 1 - k) % SPAWN_NOTE_FRAMES;
		struct srcline line;
		struct lp_loc loc;
		int found = 0;

		if (k)
			ret = strbuf__add(&text, " < ", 3);
		if (ret == 0)
			ret = lp_span__unescape_to(&text, names[at]);
		strbuf__reset(&frame);
		if (ret == 0 && places[at].len && (ret = lp_span__unescape_to(&frame, places[at])) == 0) {
			lp_loc__parse(lp_span__of(&frame), &loc);
			const char *reason = NULL;

			if (loc.has_offset && (found = srclines__frame(c->src, loc.dso.s, loc.dso.len, loc.offset, k == 0,
								       &line, &reason)) < 0)
				ret = found;
			/* said once per file */
			if (reason)
				lp_error__warn(c->o.warn, c->o.ctx, NULL, 0, "'%.*s': %s: spawning stacks without file:line",
					(int)loc.dso.len, loc.dso.s, reason);
		}
		if (ret == 0 && found > 0)
			ret = strbuf__addf(&text, " (%s:%d)", line.file, line.line);
	}
	if (ret == 0 && total > n)
		ret = strbuf__addf(&text, " < ... %zu more", total - n);
	if (ret == 0 && (ret = strbuf__addc(&text, 0)) == 0 && (ret = htab__reserve(&c->spawns)) == 0) {
		e = spawn_slot(c, p->tid);
		if (e->head.used) {
			free(e->text);
		} else {
			htab__insert(&c->spawns, e, hash_mix((uint64_t)p->tid));
			e->tid = p->tid;
		}
		e->pid = p->pid;
		e->text = text.s;
		text.s = NULL;
	}
	strbuf__release(&text);
	strbuf__release(&frame);
	if (ret < 0)
		return lp_error__set(err, ret, "%s", ret == -EINVAL ? "bad escape in a spawning STACK or LOCS" :
				     "out of memory");
	return 0;
}

/*
 * A thread's T record as a note on its stacks' root ("comm-PID/TID", the
 * flame chart's naming): its exact on-CPU time beside the sampled, and
 * how far they stray. -ENOMEM, or -EINVAL with err.
 */
static int thread_note(struct profile *c, const struct lp_thread *t, struct lp_error *err)
{
	struct strbuf key = STRBUF_INIT;
	char text[160] = "", ids[48];
	const char *spawned = NULL;
	uint64_t cpu = 0, sampled = 0;
	int has_cpu, has_sampled, ret;
	size_t n = 0;

	if ((has_cpu = lp_thread__attr_u64(t, "cpu", &cpu)) < 0 ||
	    (has_sampled = lp_thread__attr_u64(t, "sampled-cpu", &sampled)) < 0)
		return lp_error__set(err, -EINVAL, "a T record's cpu= or sampled-cpu= is not a number");
	if (has_cpu)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "exact on-CPU %.3f s", (double)cpu / 1e9);
	if (has_sampled)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%ssampled %.3f s", n ? ", " : "",
				      (double)sampled / 1e9);
	if (has_cpu && has_sampled && cpu >= 100000000 &&
	    (sampled > cpu ? sampled - cpu : cpu - sampled) * 5 > cpu)
		snprintf(text + n, sizeof(text) - n, " (samples stray %.0f%%)",
			 100.0 * ((double)sampled - (double)cpu) / (double)cpu);
	if (c->spawns.n) {
		struct spawn_note *e = spawn_slot(c, t->tid);

		if (e->head.used && e->pid == t->pid)
			spawned = e->text;
	}
	if (!has_cpu && !has_sampled && !spawned)
		return 0;
	snprintf(ids, sizeof(ids), "-%" PRId64 "/%" PRId64, t->pid, t->tid);
	if (c->nnotes == c->notes_cap) {
		size_t cap = c->notes_cap ? 2 * c->notes_cap : 16;
		char **k = realloc(c->note_keys, cap * sizeof(*k)), **v;

		if (!k)
			return lp_error__set(err, -ENOMEM, "out of memory");
		c->note_keys = k;
		if (!(v = realloc(c->note_texts, cap * sizeof(*v))))
			return lp_error__set(err, -ENOMEM, "out of memory");
		c->note_texts = v;
		c->notes_cap = cap;
	}
	if ((ret = add_name(&key, t->comm, true)) < 0 || (ret = strbuf__add(&key, ids, strlen(ids) + 1)) < 0) {
		strbuf__release(&key);
		return lp_error__set(err, ret, "%s", ret == -EINVAL ? "bad escape in COMM" : "out of memory");
	}
	c->note_keys[c->nnotes] = key.s;
	if (spawned) {
		struct strbuf both = STRBUF_INIT;

		if (strbuf__addf(&both, "%s%s%s", text, text[0] ? "; " : "", spawned) < 0) {
			free(key.s);
			return lp_error__set(err, -ENOMEM, "out of memory");
		}
		c->note_texts[c->nnotes] = both.s;
	} else if (!(c->note_texts[c->nnotes] = strdup(text))) {
		free(key.s);
		return lp_error__set(err, -ENOMEM, "out of memory");
	}
	c->nnotes++;
	return 0;
}

/* What read_lp's callbacks need beside the profile. */
struct lp_read {
	struct profile *c;
	int col;
	struct lp_error *err;
};

/* streams put one after another (cat a.lp b.lp): each says where it was made */
static int lp_version(void *ctx, struct lp_reader *r, int version)
{
	struct lp_read *x = ctx;

	(void)r, (void)version;
	x->c->has_host = x->c->has_rank = false;
	return 0;
}

static int lp_meta(void *ctx, struct lp_reader *r, const struct lp_meta *m)
{
	struct lp_read *x = ctx;

	(void)r;
	return meta_line(x->c, m, x->err);
}

static int lp_event(void *ctx, struct lp_reader *r, const struct lp_event_def *d)
{
	struct lp_read *x = ctx;

	(void)r;
	return event_def(x->c, d, x->err);
}

static int lp_thread(void *ctx, struct lp_reader *r, const struct lp_thread *t)
{
	struct lp_read *x = ctx;

	(void)r;
	/* a thread's regions end with it */
	if (x->c->regions)
		lp_regions__end_thread(x->c->regions, t->tid);
	return x->c->o.naming == NAMING_TID ? thread_note(x->c, t, x->err) : 0;
}

static int lp_region(void *ctx, struct lp_reader *r, const struct lp_region *g)
{
	struct lp_read *x = ctx;
	struct profile *c = x->c;
	int ret;

	if (!c->o.by_region)
		return 0;
	if (!c->regions && !(c->regions = lp_regions__new()))
		return -ENOMEM;
	if ((ret = lp_regions__add(c->regions, g)) < 0)
		return ret;
	if (ret == 1)
		lp_error__warn(c->o.warn, c->o.ctx, c->file, lp_reader__lineno(r),
			"the end of region '%.*s', which thread %" PRId64 " is not in: left out", (int)g->name.len,
			g->name.s, g->tid);
	return 0;
}

static int lp_proc(void *ctx, struct lp_reader *r, const struct lp_proc *p)
{
	struct lp_read *x = ctx;

	(void)r;
	return x->c->o.spawn_notes && x->c->o.naming == NAMING_TID ? spawn_note(x->c, p, x->err) : 0;
}

static int lp_sample(void *ctx, struct lp_reader *r, const struct lp_sample *s)
{
	struct lp_read *x = ctx;
	struct profile *c = x->c;
	struct lp_error *err = x->err;
	struct lp_wait wait = { .explained = false };
	char tid[24];
	int ret;

	if (!event_selected(c, s->event))
		return 0;
	if ((c->o.by_host && !c->has_host) || (c->o.by_rank && !c->has_rank))
		return lp_error__set(err, -EINVAL, "--by %s: the stream says no #lp.%s before its samples%s",
				     c->o.by_host && !c->has_host ? "host" : "rank",
				     c->o.by_host && !c->has_host ? "host" : "rank",
				     c->o.by_host && !c->has_host ? "" : " (it was not recorded under mpirun or srun)");
	if ((c->o.only_tid > 0 && s->tid != c->o.only_tid) || (c->o.only_pid > 0 && s->pid != c->o.only_pid))
		return 0;
	c->kept_samples++;
	/* one process, or more: all a flame chart needs to know */
	if (c->processes == 0)
		c->first_pid = s->pid;
	if (c->processes == 0 || (c->processes == 1 && s->pid != c->first_pid))
		c->processes++;
	if ((ret = check_unit(c, s->event)) < 0)
		return lp_error__set(err, ret, "out of memory");
	if (c->o.waits != WAITS_ALL && lp_span__eq(s->event, "offcpu", 6)) {
		if (c->o.waits == WAITS_NONE)
			return 0;
		if ((ret = lp_reader__wait(r, s, &wait)) < 0)
			return ret;
	}
	if (wait.explained)
		c->explained_weight += s->weight;
	if ((ret = lp_key(c, s, wait.explained ? &wait : NULL)) < 0)
		return lp_error__set(err, ret, "%s", ret == -EINVAL ? "bad escape in COMM or STACK" :
			    "out of memory");
	/* the thread is only --time-ordered's key: printf per sample would be dear for nothing */
	tid[0] = 0;
	if (c->o.time_ordered)
		snprintf(tid, sizeof(tid), "%" PRId64, s->tid);
	return profile__add(c, c->key.s, c->key.len,
		   c->o.offcpu_column && lp_span__eq(s->event, "offcpu", 6) ? 1 : x->col, s->weight, s->time,
		   tid, strlen(tid), err);
}

/* An N record: the exact count of a selected event over everything counted (its total). */
static int lp_count(void *ctx, struct lp_reader *r, const struct lp_count *n)
{
	struct lp_read *x = ctx;

	(void)r;
	if (n->pid < 0 && n->state == LP_COUNT_COUNTED && event_selected(x->c, n->event)) {
		x->c->exact_count += n->value;
		x->c->has_exact = true;
	}
	return 0;
}

static const struct lp_reader_ops lp_ops = {
	.sample = lp_sample,
	.count = lp_count,
	.region = lp_region,
	.proc = lp_proc,
	.thread = lp_thread,
	.meta = lp_meta,
	.event = lp_event,
	.version = lp_version,
};

static int read_lp(struct profile *c, int col, struct lp_error *err)
{
	struct lp_read x = { .c = c, .col = col, .err = err };
	struct lp_reader_opts ro = { .name = c->file, .strict = c->o.strict, .warn = c->o.warn, .warn_ctx = c->o.ctx };

	return lp_reader__read(&ro, c->lines, &lp_ops, &x, err);
}

int profile__read(struct profile *c, int fd, const char *name, int col,
		    struct lp_error *err)
{
	enum lp_format format = c->o.format;
	int ret;

	lp_error__clear(err);
	err->file = name;
	c->file = name;
	c->fd = fd;
	c->fd_base = lseek(fd, 0, SEEK_CUR);
	c->lines = lines__new(fd);
	if (!c->lines)
		return lp_error__set(err, -ENOMEM, "out of memory");
	if (format == LP_FORMAT_AUTO && (ret = lp_format__detect(c->lines, &format, err)) < 0)
		goto cleanup;
	c->formats |= 1u << format;
	c->has_host = c->has_rank = false;
	if ((c->o.by_host || c->o.by_rank || c->o.by_region) && format != LP_FORMAT_LP) {
		ret = lp_error__set(err, -EINVAL, "--by takes lp streams (their #lp.host, #lp.rank and C records), not %s",
				    format == LP_FORMAT_PERF ? "perf script text" : "folded stacks");
		goto cleanup;
	}
	switch (format) {
	case LP_FORMAT_LP:
		ret = read_lp(c, col, err);
		break;
	case LP_FORMAT_PERF:
		ret = profile__read_perf(c, col, err);
		break;
	default:
		ret = read_folded(c, col, err);
		break;
	}
cleanup:
	lines__free(c->lines);
	c->lines = NULL;
	return ret;
}

/* ---- output ---- */

static int put_count(FILE *out, uint64_t v)
{
	char buf[24], *p = numparse__format_u64(buf + sizeof(buf), v);

	return fwrite_unlocked(p, 1, (size_t)(buf + sizeof(buf) - p), out) ==
	       (size_t)(buf + sizeof(buf) - p) ? 0 : -EIO;
}

static int put_line(FILE *out, const struct stack_entry *e, const uint64_t *counts, int n)
{
	if (fwrite_unlocked(e->key, 1, e->len, out) != e->len)
		return -EIO;
	for (int i = 0; i < n; i++)
		if (putc_unlocked(' ', out) == EOF || put_count(out, counts[i]) < 0)
			return -EIO;
	return putc_unlocked('\n', out) == EOF ? -EIO : 0;
}

static int cmp_timed(const void *a, const void *b)
{
	const struct timed *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

bool profile__exact_count(const struct profile *c, uint64_t *samples, uint64_t *occurrences)
{
	*samples = c->kept_samples;
	*occurrences = c->exact_count;
	return c->has_exact && c->o.nevents == 1;
}

uint64_t profile__explained_waits(const struct profile *c)
{
	return c->explained_weight;
}

unsigned profile__processes(const struct profile *c)
{
	return c->processes;
}

unsigned profile__formats(const struct profile *c)
{
	return c->formats;
}

const char *profile__unit(const struct profile *c)
{
	const char *u = c->first_unit.len ? c->first_unit.s : NULL;

	return u && u[0] != '?' && !c->units_warned ? u : NULL;
}

struct stackmap *profile__stacks(struct profile *c)
{
	return c->stacks;
}

int profile__each_timed(struct profile *c, profile_visit visit, void *ctx)
{
	size_t i = 0;

	if (c->ntimed)
		qsort(c->timed, c->ntimed, sizeof(*c->timed), cmp_timed);
	while (i < c->ntimed) {
		const struct timed *t = &c->timed[i];
		uint64_t sum = 0;

		const struct stack_entry *e = stackmap__entry(c->stacks, t->stack);
		int ret;

		for (; i < c->ntimed && c->timed[i].thread == t->thread &&
		       c->timed[i].stack == t->stack; i++) {
			if (sum > UINT64_MAX - c->timed[i].weight)
				return -EOVERFLOW;
			sum += c->timed[i].weight;
		}
		if ((ret = visit(ctx, e->key, e->len, sum)) < 0)
			return ret;
	}
	return 0;
}

static int put_timed(void *ctx, const char *key, size_t len, uint64_t count)
{
	FILE *out = ctx;

	if (fwrite_unlocked(key, 1, len, out) != len || putc_unlocked(' ', out) == EOF ||
	    put_count(out, count) < 0 || putc_unlocked('\n', out) == EOF)
		return -EIO;
	return 0;
}

int profile__write_folded(struct profile *c, FILE *out, const struct folded_output *o)
{
	struct stack_entry **sorted;
	size_t n = stackmap__size(c->stacks);
	unsigned __int128 total[2] = { 0, 0 };

	if (c->o.time_ordered)
		return profile__each_timed(c, put_timed, out);
	sorted = stackmap__sorted(c->stacks);
	if (!sorted)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		total[0] += sorted[i]->count[0];
		total[1] += sorted[i]->count[1];
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t counts[2] = { sorted[i]->count[0], sorted[i]->count[1] };

		if (o->diff && o->normalize && total[0] != total[1] && total[0] > 0)
			counts[0] = (uint64_t)((unsigned __int128)counts[0] * total[1] / total[0]);
		if (put_line(out, sorted[i], counts, o->diff ? 2 : 1) < 0)
			return -EIO;
	}
	return 0;
}
