/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Keeping a recording's records as they come: copied out of the ring buffers
 * into an arena, indexed, counted for the header. Starting is in
 * record-start.c, writing in record-write.c.
 */
#include "record/recorder-int.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

#include "record/followgate.h"
#include "base/hash.h"
#include "base/hugemem.h"
#include "record/offcpu-sampler.h"
#include "record/perfevent.h"
#include "record/regions.h"
#include "record/spill.h"
#include "record/stackdelta.h"
#include "symbols/symbolizer.h"
#include "symbols/symload.h"

/* Chunks of records: large, or a few of a small spill_after (a record is under 64 KiB) */
enum { ARENA_CHUNK = 8 << 20, SMALLEST_CHUNK = 64 << 10 };
/*
 * The write phase's caches of chains are made ready (their memory faulted in
 * by the loader, while the command runs) as records come: for one chain in
 * RECORDS_PER_CHAIN records (bench/workload.c has one in 13 of its 24-frame
 * samples, one in 5.6 of its 54-frame ones), at EXPECT_FROM
 * records and each doubling up to EXPECT_UP_TO; past that the phase grows
 * them as it needs.
 */
enum { EXPECT_FROM = 8192, EXPECT_UP_TO = 65536, RECORDS_PER_CHAIN = 6 };
/* spilled bytes read in at once at most: more means records far apart, left to page faults */
enum { PREFETCH_MAX = 64 << 20 };

struct chunk {
	struct chunk *next;
	size_t used;
	size_t first;	/* index of its first record */
	_Alignas(8) char data[];
};

/* A chunk in memory, and the last index entry (in time order) that reads it. */
struct chunk_use {
	struct chunk *c;
	size_t last;
	bool read;	/* by any entry: else it goes at once */
};

/* Records whose index entries hold offsets in the spill file until it is mapped. */
struct spilled_range {
	size_t first, end;
};

struct recorder *recorder__new(const struct record_opts *o)
{
	struct recorder *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->o = *o;
	r->child = -1;
	r->max_stack = event_rings__sysctl("perf_event_max_stack");
	r->fork_child_offset = 20;
	r->names = HTAB_INIT(struct thread_name);
	r->cpu_before = HTAB_INIT(struct cpu_before);
	r->next_expect = EXPECT_FROM;
	if (!(r->regions = region_probes__new())) {
		free(r);
		return NULL;
	}
	/* task records for the whole machine, of which the followed tasks' are kept */
	if (!o->perf.system_wide && perf_opts__life_on_cpus(&o->perf) && !(r->gate = follow_gate__new())) {
		region_probes__free(r->regions);
		free(r);
		return NULL;
	}
	/*
	 * A live recording lets records go as it writes them: a difference would
	 * outlive the copy it refers to.
	 */
	if (!o->live && !(r->deltas = stack_deltas__new())) {
		follow_gate__free(r->gate);
		region_probes__free(r->regions);
		free(r);
		return NULL;
	}
	/* the chunk with its header in whole huge pages */
	r->chunk_size = ARENA_CHUNK - offsetof(struct chunk, data);
	if (o->spill_after && o->spill_after / 4 < ARENA_CHUNK)
		r->chunk_size = o->spill_after / 4 < SMALLEST_CHUNK ? SMALLEST_CHUNK : (o->spill_after / 4 + 7) & ~(size_t)7;
	return r;
}

static void free_chunk(const struct recorder *r, struct chunk *c)
{
	if (r->chunk_size >= HUGEMEM_PAGE / 2)
		hugemem__free(c, sizeof(*c) + r->chunk_size);
	else
		free(c);
}

void recorder__free(struct recorder *r)
{
	struct chunk *c, *next;

	if (!r)
		return;
	if (r->closing)
		worker__stop(&r->closer);
	if (r->follower)
		r->follower->free(r->follower);
	sym_loader__free(r->loader);
	symbolizer__free(r->sym);
	free(r->uses);
	free(r->release_order);
	stack_deltas__free(r->deltas);
	follow_gate__free(r->gate);
	free(r->at_seq);
	event_rings__free(r->session);
	region_probes__free(r->regions);
	offcpu__free(r->offcpu);
	/* (waits for a chunk being written) */
	spill__free(r->spill);
	if (r->spilling)
		free_chunk(r, r->spilling);
	free(r->spilled);
	for (c = r->chunks; c; c = next) {
		next = c->next;
		free_chunk(r, c);
	}
	if (r->spare)
		free_chunk(r, r->spare);
	hugemem__release(r->index, r->cap * sizeof(*r->index));
	htab__release(&r->names);
	htab__release(&r->cpu_before);
	free(r);
}

int recorder__note_cpu_before(struct recorder *r, pid_t tid, uint64_t ns)
{
	uint64_t h = hash_mix((uint64_t)(uint32_t)tid);
	struct cpu_before *e;

	if (htab__reserve(&r->cpu_before) < 0)
		return -ENOMEM;
	for (size_t i = h; (e = htab__at(&r->cpu_before, i))->head.used; i++)
		if (e->head.hash == h && e->tid == tid)
			break;
	if (!e->head.used) {
		htab__insert(&r->cpu_before, e, h);
		e->tid = tid;
	}
	e->ns = ns;
	return 0;
}

uint64_t recorder__cpu_before(const struct recorder *r, pid_t tid, uint64_t cpu)
{
	uint64_t h = hash_mix((uint64_t)(uint32_t)tid);
	const struct cpu_before *e;

	if (!r->cpu_before.n)
		return 0;
	for (size_t i = h; (e = htab__at(&r->cpu_before, i))->head.used; i++)
		if (e->head.hash == h && e->tid == tid)
			return e->ns <= cpu ? e->ns : 0;
	return 0;
}

uint64_t recorder__monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void recorder__mark_start(struct recorder *r)
{
	struct timespec ts;

	r->start_ns = recorder__monotonic_ns();
	clock_gettime(CLOCK_REALTIME, &ts);
	r->start_realtime_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const struct offcpu_event *offcpu_record__parts(const struct perf_event_header *h, const uint8_t **stack,
						const uint64_t **ips)
{
	const struct offcpu_event *ev = (const struct offcpu_event *)(h + 1);

	*stack = (const uint8_t *)(ev + 1);
	*ips = (const uint64_t *)(*stack + perf_round8(ev->snapshot_size));
	return ev;
}

static uint64_t record_time(const struct perf_event_header *h)
{
	const uint8_t *stack;
	const uint64_t *ips;

	if (h->type == LP_RECORD_PROC_END)
		return ((const struct offcpu_event *)(h + 1))->start;
	return h->type == LP_RECORD_OFFCPU ? offcpu_record__parts(h, &stack, &ips)->start : perf_record__time(h);
}

/*
 * Whether h is a sample of the fork tracepoint. Task-clock's samples are
 * counted (lost records are counted by the session, per ring) and decoded
 * into *s (else s->stack is NULL).
 */
static bool count(struct recorder *r, const struct perf_event_header *h, struct ring_sample *s)
{
	uint64_t id;

	s->stack = NULL;
	if (h->type != PERF_RECORD_SAMPLE)
		return false;
	id = ring_sample__id(h);
	if (event_rings__is_fork_id(r->session, id))
		return true;
	if (event_rings__custom_of(r->session, id) < 0 && event_rings__region_of(r->session, id) < 0 &&
	    ring_sample__decode(h, &r->layout, false, s)) {
		r->counts.samples++;
		r->counts.sample_ns += s->period;
	}
	return false;
}

/*
 * The chunk handed to the spill file, once written: its records' index
 * entries point there (as offsets until recorder__settle) and it takes new
 * records; one that could not be written (a full disk) is kept in memory,
 * as every chunk after it.
 */
static void spill_collect(struct recorder *r)
{
	struct chunk *c = r->spilling;
	uint64_t at;
	int ret;

	if (!c)
		return;
	r->spilling = NULL;
	ret = spill__collect(r->spill, &at);
	if (ret <= 0) {
		r->spill_errno = ret < 0 ? -ret : EIO;
		/* older than the chunk taking records now, newer than the rest */
		if (r->chunks) {
			c->next = r->chunks->next;
			r->chunks->next = c;
		} else {
			c->next = NULL;
			r->chunks = c;
		}
		return;
	}
	for (size_t i = c->first; i < r->spilling_end; i++)
		r->index[i].h = (const struct perf_event_header *)(uintptr_t)(at + (uint64_t)((const char *)r->index[i].h - c->data));
	if (r->nspilled && r->spilled[r->nspilled - 1].end == c->first)
		r->spilled[r->nspilled - 1].end = r->spilling_end;
	else
		r->spilled[r->nspilled++] = (struct spilled_range){ c->first, r->spilling_end };
	r->kept_bytes -= r->chunk_size;
	if (!r->spare)
		r->spare = c;
	else
		free_chunk(r, c);
}

/*
 * Hands the full chunk c, the newest, to the spill file, written on a thread
 * of its own while records go on coming (the last one handed over is waited
 * for first), so that what a recording keeps in memory stays near
 * o.spill_after. -errno, and c stays, when it cannot be.
 */
static int spill_chunk(struct recorder *r, struct chunk *c)
{
	struct spilled_range *v;
	int ret;

	spill_collect(r);
	if (r->spill_errno)
		return -r->spill_errno;
	if (!r->spill && !(r->spill = spill__new(r->o.spill_dir ? r->o.spill_dir : "/var/tmp")))
		return -errno;
	/* room for its range first: an entry must never hold an offset that no range marks */
	v = realloc(r->spilled, (r->nspilled + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->spilled = v;
	if ((ret = spill__put(r->spill, c->data, c->used)) < 0)
		return ret;
	r->chunks = c->next;
	r->spilling = c;
	r->spilling_end = r->n;
	return 0;
}

/* A chunk with room for size bytes: the newest, or another once that one is handed to the spill file. */
static struct chunk *chunk_for(struct recorder *r, size_t size)
{
	struct chunk *c = r->chunks;

	if (c && r->chunk_size - c->used >= size)
		return c;
	/* a file that cannot be written (a full disk) is said, and memory takes the rest */
	if (c && r->o.spill_after && r->kept_bytes >= r->o.spill_after && !r->spill_errno) {
		int ret = spill_chunk(r, c);

		if (ret == -ENOMEM) {
			errno = ENOMEM;
			return NULL;
		}
		if (ret < 0 && !r->spill_errno)
			r->spill_errno = -ret;
	}
	if (r->spare) {
		c = r->spare;
		r->spare = NULL;
	} else {
		c = r->chunk_size >= HUGEMEM_PAGE / 2 ? hugemem__alloc(sizeof(*c) + r->chunk_size) :
							 malloc(sizeof(*c) + r->chunk_size);
	}
	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	c->used = 0;
	c->first = r->n;
	c->next = r->chunks;
	r->chunks = c;
	r->kept_bytes += r->chunk_size;
	return c;
}

int recorder__settle(struct recorder *r)
{
	const char *map;

	spill_collect(r);
	/* (a file whose first write failed, on a full disk, holds nothing to map) */
	if (!r->spill || !r->nspilled)
		return 0;
	if (!(map = spill__map(r->spill)))
		return -errno;
	for (size_t k = 0; k < r->nspilled; k++)
		for (size_t i = r->spilled[k].first; i < r->spilled[k].end; i++)
			r->index[i].h = (const struct perf_event_header *)(map + (uintptr_t)r->index[i].h);
	r->nspilled = 0;
	return 0;
}

void recorder__release_read(struct recorder *r, size_t from, size_t n)
{
	const char *lo = NULL, *hi = NULL;

	if (!r->spill)
		return;
	spill__release(r->spill);
	/*
	 * The spilled records of the next n, mostly near each other in the file:
	 * read in at once. Their sizes are not read (that would fault each page
	 * in on its own): a record is under 64 KiB.
	 */
	for (size_t i = from; i < from + n && i < r->n; i++) {
		const char *p = (const char *)r->index[i].h;

		if (!spill__holds(r->spill, p))
			continue;
		if (!lo || p < lo)
			lo = p;
		if (!hi || p > hi)
			hi = p;
	}
	if (lo && (size_t)(hi - lo) <= PREFETCH_MAX)
		spill__prefetch(r->spill, lo, hi + UINT16_MAX);
}

static int by_address(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct chunk_use *)a)->c, y = (uintptr_t)((const struct chunk_use *)b)->c;

	return (x > y) - (x < y);
}

/* The use of the chunk that holds h, or NULL (a spilled record). */
static struct chunk_use *use_of(struct recorder *r, const struct perf_event_header *h)
{
	size_t lo = 0, hi = r->nuses;
	struct chunk_use *u;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((uintptr_t)h < (uintptr_t)r->uses[mid].c)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo == 0)
		return NULL;
	u = &r->uses[lo - 1];
	return (uintptr_t)h < (uintptr_t)(u->c->data + u->c->used) ? u : NULL;
}

int recorder__plan_release(struct recorder *r)
{
	size_t n = 0, k = 0;

	for (struct chunk *c = r->chunks; c; c = c->next)
		n++;
	if (!n)
		return 0;
	if (!(r->uses = calloc(n, sizeof(*r->uses))))
		return -ENOMEM;
	for (struct chunk *c = r->chunks; c; c = c->next)
		r->uses[k++].c = c;
	r->nuses = n;
	qsort(r->uses, n, sizeof(*r->uses), by_address);
	for (size_t i = 0; i < r->n; i++)
		recorder__hold(r, r->index[i].h, i);
	return 0;
}

void recorder__hold(struct recorder *r, const struct perf_event_header *h, size_t i)
{
	struct chunk_use *u = r->uses ? use_of(r, h) : NULL;

	if (u && (!u->read || u->last < i)) {
		u->last = i;
		u->read = true;
	}
}

static int by_last_read(const void *a, const void *b, void *uses)
{
	const struct chunk_use *x = (const struct chunk_use *)uses + *(const size_t *)a;
	const struct chunk_use *y = (const struct chunk_use *)uses + *(const size_t *)b;
	size_t lx = x->read ? x->last + 1 : 0, ly = y->read ? y->last + 1 : 0;

	return (lx > ly) - (lx < ly);
}

/* Takes c out of the list of chunks and frees it. */
static void let_go(struct recorder *r, struct chunk *c)
{
	for (struct chunk **p = &r->chunks; *p; p = &(*p)->next) {
		if (*p == c) {
			*p = c->next;
			free_chunk(r, c);
			return;
		}
	}
}

void recorder__release_before(struct recorder *r, size_t seq)
{
	/* chunks fill in arrival order: those older than one whose first record is below seq hold only older ones */
	for (struct chunk *c = r->chunks; c; c = c->next) {
		struct chunk *old = c->next, *next;

		if (c->first > seq)
			continue;
		c->next = NULL;
		for (; old; old = next) {
			next = old->next;
			r->kept_bytes -= r->chunk_size;
			/* one kept for the next records: a new chunk's pages are faulted in again */
			if (!r->spare)
				r->spare = old;
			else
				free_chunk(r, old);
		}
		return;
	}
}

void recorder__release_written(struct recorder *r, size_t done)
{
	if (!r->uses)
		return;
	if (!r->release_order) {
		if (!(r->release_order = malloc(r->nuses * sizeof(*r->release_order)))) {
			/* without the order nothing goes early: recorder__free frees all */
			free(r->uses);
			r->uses = NULL;
			return;
		}
		for (size_t k = 0; k < r->nuses; k++)
			r->release_order[k] = k;
		qsort_r(r->release_order, r->nuses, sizeof(*r->release_order), by_last_read, r->uses);
	}
	while (r->next_release < r->nuses) {
		struct chunk_use *u = &r->uses[r->release_order[r->next_release]];

		if (u->read && u->last >= done)
			break;
		let_go(r, u->c);
		r->next_release++;
	}
}

uint64_t recorder__spilled_bytes(const struct recorder *r)
{
	return r->spill ? spill__size(r->spill) : 0;
}

int recorder__spill_error(const struct recorder *r)
{
	return r->spill_errno;
}

/* The file of MMAP2 record h, to be read while recording goes on (or at its first frame, when memory is short). */
void recorder__scan_regions(struct recorder *r, const char *path, uint64_t dev, uint64_t ino)
{
	struct lp_error err = { 0 };
	int ret;

	if (!r->session || r->regions_off[0])
		return;
	if ((ret = region_probes__scan(r->regions, r->session, path, dev, ino, &err)) >= 0)
		return;
	/* the probes attached keep working; no more are looked for */
	snprintf(r->regions_off, sizeof(r->regions_off), "%.200s: %s", err.msg[0] ? err.msg : "attaching",
		 strerror(-ret));
}

static void load_mapped(struct recorder *r, const struct perf_event_header *h)
{
	struct perf_mmap2 m;

	perf_mmap2__decode(h, &m);
	sym_loader__add(r->loader, m.path, m.dev, m.ino);
}

int recorder__keep(void *ctx, const struct perf_event_header *h)
{
	struct recorder *r = ctx;
	struct ring_sample s;
	bool fork_sample = count(r, h, &s);
	/* kept without the stack copy's unwritten part: a big copy of a small stack costs what it holds */
	size_t kept = ring_sample__kept_size(h, &s), prefix = 0;
	uint32_t key = 0;
	bool delta = false;
	struct chunk *c;
	struct perf_event_header *copy;
	int ret;

	/* or as the difference from its thread's last whole copy */
	if (r->deltas && s.stack && s.has_regs) {
		size_t shared = stack_deltas__shared(r->deltas, s.tid, s.regs.sp, s.stack, s.stack_size, &key);

		if (shared) {
			delta = true;
			/* a word at least: a copy of size 0 has no dynamic size after it to mark it */
			prefix = perf_round8(s.stack_size - shared + (shared == s.stack_size));
			kept = ring_sample__delta_size(h, &s, prefix);
		} else if ((ret = stack_deltas__keep(r->deltas, s.tid, (uint32_t)r->n, s.regs.sp, s.stack,
						     s.stack_size)) < 0) {
			return ret;
		}
	}
	if (!(c = chunk_for(r, kept)))
		return -errno;
	copy = (struct perf_event_header *)(c->data + c->used);
	if (delta)
		ring_sample__copy_delta(h, &s, copy, prefix, key);
	else
		ring_sample__copy_kept(h, &s, copy, kept);
	c->used += perf_round8(kept);
	if (r->deltas && h->type == PERF_RECORD_EXIT) {
		struct perf_task t;

		perf_task__decode(h, &t);
		stack_deltas__forget(r->deltas, t.tid);
	}
	if (r->n == r->cap) {
		/* a short recording's index in malloc's memory: a huge page is 2 MB of fresh memory to fault in */
		size_t cap = r->cap ? r->cap * 2 : 4096;
		struct index_entry *v = hugemem__grow(r->index, r->cap * sizeof(*v), cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->index = v;
		r->cap = cap;
	}
	r->index[r->n].fork_sample = fork_sample;
	r->index[r->n].stack_key = delta ? key + 1 : 0;
	r->index[r->n].time = record_time(copy);
	if (r->index[r->n].time > r->max_time)
		r->max_time = r->index[r->n].time;
	r->index[r->n].seq = (uint32_t)r->n;
	r->index[r->n].type = copy->type;
	r->index[r->n].h = copy;
	r->n++;
	if (r->loader && copy->type == PERF_RECORD_MMAP2)
		load_mapped(r, copy);
	if (copy->type == PERF_RECORD_MMAP2 && !r->regions_off[0]) {
		struct perf_mmap2 m;

		perf_mmap2__decode(copy, &m);
		recorder__scan_regions(r, m.path, m.dev, m.ino);
	}
	if (r->follower && copy->type == PERF_RECORD_MMAP2)
		r->follower->mapped(r->follower, copy);
	if (r->loader && r->n >= r->next_expect && r->next_expect <= EXPECT_UP_TO) {
		sym_loader__expect_chains(r->loader, r->n / RECORDS_PER_CHAIN);
		r->next_expect = r->n * 2;
	}
	return 0;
}

int recorder__load_symbols(struct recorder *r)
{
	size_t k = 0;

	if ((r->sym = symbolizer__new(r->o.warn, r->o.ctx)))
		symbolizer__set_demangle(r->sym, r->o.demangle);
	if (!r->sym || !(r->loader = sym_loader__new(r->sym))) {
		int err = errno;

		symbolizer__free(r->sym);
		r->sym = NULL;
		return -err;
	}
	/* the mappings kept before (an attached process's); a spilled one holds an offset, not a record */
	for (size_t i = 0; i < r->n; i++) {
		while (k < r->nspilled && r->spilled[k].end <= i)
			k++;
		if (r->index[i].type == PERF_RECORD_MMAP2 && !(k < r->nspilled && r->spilled[k].first <= i))
			load_mapped(r, r->index[i].h);
	}
	return 0;
}

/* Keeps an off-CPU interval, without the unused parts of its buffers. */
static int keep_offcpu(void *ctx, const struct offcpu_event *ev, size_t size)
{
	_Alignas(8) char buf[8 + sizeof(*ev) + OFFCPU_SNAPSHOT + 2 * OFFCPU_MAX_STACK * 8];
	struct perf_event_header *h = (struct perf_event_header *)buf;
	size_t snap = perf_round8(ev->snapshot_size), nips = (size_t)ev->nuser + ev->nkernel;
	char *p = buf + 8;

	/* a process's end: the event alone */
	if (ev->state == OFFCPU_EXITED) {
		memcpy(p, ev, sizeof(*ev));
		h->type = LP_RECORD_PROC_END;
		h->misc = 0;
		h->size = (uint16_t)(8 + sizeof(*ev));
		return recorder__keep(ctx, h);
	}
	if (ev->snapshot_size > OFFCPU_SNAPSHOT || ev->snapshot_size % 8 || ev->nuser > OFFCPU_MAX_STACK ||
	    ev->nkernel > OFFCPU_MAX_STACK || size < sizeof(*ev) + ev->snapshot_size + nips * 8)
		return -EPROTO;
	memcpy(p, ev, sizeof(*ev));
	p += sizeof(*ev);
	memcpy(p, ev + 1, ev->snapshot_size);
	p += snap;
	memcpy(p, (const char *)(ev + 1) + ev->snapshot_size, nips * 8);
	p += nips * 8;
	h->type = LP_RECORD_OFFCPU;
	h->misc = 0;
	h->size = (uint16_t)(p - buf);
	return recorder__keep(ctx, h);
}

static uint64_t timeval_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

void recorder__signal(struct recorder *r, int sig)
{
	if (r->child > 0 && !r->exited)
		kill(r->child, sig);
}

int recorder__wait_status(const struct recorder *r)
{
	return r->wait_status;
}

static bool attached_alive(const struct recorder *r)
{
	for (size_t i = 0; i < r->o.npids; i++)
		if (kill(r->o.pids[i], 0) == 0 || errno != ESRCH)
			return true;
	return false;
}

/* A record read from the session's rings, kept if it is a followed task's (held until known). */
static int keep_followed(void *ctx, const struct perf_event_header *h)
{
	struct recorder *r = ctx;
	int ret = follow_gate__offer(r->gate, h);

	return ret > 0 ? recorder__keep(r, h) : ret;
}

/* One round of reading the rings (waiting up to timeout_ms for data); -errno. */
static int read_round(struct recorder *r, int timeout_ms, bool *hangup)
{
	int ret = event_rings__read(r->session, timeout_ms, r->gate ? keep_followed : recorder__keep, r, hangup);

	if (ret >= 0 && r->gate)
		ret = follow_gate__end_round(r->gate, recorder__keep, r);
	if (ret >= 0 && r->offcpu)
		ret = offcpu__read(r->offcpu, keep_offcpu, r);
	return ret < 0 ? ret : 0;
}

static void *close_now(void *arg)
{
	struct recorder *r = arg;

	event_rings__close_events(r->session);
	offcpu__close(r->offcpu);
	return NULL;
}

/*
 * Every record read: the kernel's side goes on another thread while the
 * stream is written, the tracepoints' and BPF programs' detaching waits out
 * RCU grace periods (some 15 ms each on these VMs, the whole of a short
 * recording's end otherwise).
 */
static void close_events(struct recorder *r)
{
	if (worker__start(&r->closer, close_now, r) == 0)
		r->closing = true;
	else
		close_now(r);
}

int recorder__run(struct recorder *r, volatile sig_atomic_t *stop)
{
	bool hangup = false;
	int ret;

	for (;;) {
		/*
		 * every record up to the latest one read before this round has
		 * come once the round is read, but for those the gate still holds
		 */
		uint64_t settled = r->max_time, held_from;

		if ((ret = read_round(r, 100, &hangup)) < 0)
			return ret;
		if (r->gate && (held_from = follow_gate__held_from(r->gate)) <= settled)
			settled = held_from - 1;
		/* a stream that cannot be written ends the recording: recorder__write says why */
		if (r->follower && (r->follower_error = r->follower->settled(r->follower, settled)) < 0)
			break;
		if (r->child > 0 && !r->exited) {
			struct rusage ru;
			pid_t w = wait4(r->child, &r->wait_status, WNOHANG, &ru);

			if (w == r->child) {
				r->exited = true;
				r->child_cpu_ns = timeval_ns(ru.ru_utime) + timeval_ns(ru.ru_stime);
			}
		}
		if (r->exited || (!r->o.argv && (*stop || (!r->o.perf.system_wide && (hangup || !attached_alive(r))))))
			break;
	}
	r->end_ns = recorder__monotonic_ns();
	/* what the kernel still holds */
	event_rings__disable(r->session);
	if (r->exited && !r->o.perf.system_wide && event_rings__clock_total(r->session, &r->clock_total) < 0)
		r->clock_total = 0;
	for (size_t k = 0; k < r->o.nevents && k < RECORD_MAX_EVENTS; k++)
		r->custom_times[k].known = event_rings__custom_times(r->session, k, &r->custom_times[k].value,
								      &r->custom_times[k].enabled,
								      &r->custom_times[k].running,
								      &r->custom_times[k].lost,
								      &r->custom_times[k].enabled_sum) == 0;
	ret = read_round(r, 0, &hangup);
	/* the gate's last round: what it holds is decided with nothing more to come */
	if (ret >= 0 && r->gate)
		ret = follow_gate__end_round(r->gate, recorder__keep, r);
	if (ret >= 0 && r->offcpu) {
		r->offcpu_drops = offcpu__drops(r->offcpu);
		offcpu__drop_causes(r->offcpu, &r->offcpu_drop_causes);
	}
	if (ret >= 0)
		close_events(r);
	return ret < 0 ? ret : 0;
}
