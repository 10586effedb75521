/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "record/perfrecord.h"

#include <string.h>

#include "base/arch.h"

/*
 * Byte offsets, from the record's start (after its 8-byte header), of the
 * fields LP_SAMPLE_TYPE asks for: IDENTIFIER, IP, TID, TIME, CPU, PERIOD,
 * then READ (when asked), CALLCHAIN, RAW, REGS_USER, STACK_USER.
 */
enum {
	SAMPLE_ID = 8, SAMPLE_PID = 24, SAMPLE_TID = 28, SAMPLE_TIME = 32, SAMPLE_CPU = 40,
	SAMPLE_PERIOD = 48, SAMPLE_AFTER_PERIOD = 56,
};

/* sample_id_all: every other record ends in TID, TIME, CPU, IDENTIFIER (8 bytes each). */
enum { TRAILER = 32, TRAILER_TIME = 24 };

/* MMAP2: pid, tid, addr, len, pgoff, maj, min, ino, ino_generation, prot, flags, filename */
enum { MMAP2_ADDR = 16, MMAP2_LEN = 24, MMAP2_PGOFF = 32, MMAP2_MAJ = 40, MMAP2_MIN = 44, MMAP2_INO = 48,
       MMAP2_FILENAME = 72 };

/* In a kept sample's dynamic size: the copy is a difference, its reference follows (no kernel sets it). */
#define STACK_DELTA (1ULL << 63)
/* ... and the kernel's copy was short of the size it reserved (ring_sample's stack_short) */
#define STACK_SHORT (1ULL << 62)

static uint64_t u64_at(const void *p, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)p + off, 8);
	return v;
}

static uint32_t u32_at(const void *p, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)p + off, 4);
	return v;
}

uint64_t ring_sample__id(const struct perf_event_header *h)
{
	return h->size >= SAMPLE_ID + 8 ? u64_at(h, SAMPLE_ID) : 0;
}

bool ring_sample__decode(const struct perf_event_header *h, const struct perf_layout *l, bool raw,
			 struct ring_sample *s)
{
	size_t off = l->no_period ? SAMPLE_PERIOD : SAMPLE_AFTER_PERIOD, size = h->size;
	uint64_t regs[LP_SAMPLE_NREGS];

	memset(s, 0, sizeof(*s));
	if (size < off + 8)
		return false;
	s->id = u64_at(h, SAMPLE_ID);
	s->pid = (pid_t)u32_at(h, SAMPLE_PID);
	s->tid = (pid_t)u32_at(h, SAMPLE_TID);
	s->time = u64_at(h, SAMPLE_TIME);
	s->cpu = u32_at(h, SAMPLE_CPU);
	s->period = l->no_period ? 0 : u64_at(h, SAMPLE_PERIOD);
	if (!raw && l->read_value) {
		s->has_value = true;
		s->value = u64_at(h, off);
		off += 8;
	}
	if (off + 8 > size)
		return false;
	s->nr = u64_at(h, off);
	off += 8;
	if (s->nr > (size - off) / 8)
		return false;
	s->ips = (const uint64_t *)((const char *)h + off);
	off += s->nr * 8;
	if (raw) {
		if (off + 4 > size)
			return false;
		s->raw_size = u32_at(h, off);
		s->raw = (const uint8_t *)h + off + 4;
		off += perf_round8(4 + s->raw_size);
		if (off > size)
			return false;
	}
	if (!l->regs_and_stack)
		return true;
	if (off + 8 > size)
		return false;
	if (u64_at(h, off) != PERF_SAMPLE_REGS_ABI_NONE) {
		if (off + 8 + sizeof(regs) > size)
			return false;
		memcpy(regs, (const char *)h + off + 8, sizeof(regs));
		s->has_regs = true;
		s->regs.bp = regs[LP_REG_AT_FP];
		s->regs.sp = regs[LP_REG_AT_SP];
		s->regs.ip = regs[LP_REG_AT_IP];
		s->regs.link = regs[LP_REG_AT_LINK];
		s->regs.alt = regs[LP_REG_AT_ALT];
		off += 8 + sizeof(regs);
	} else {
		off += 8;
	}
	if (off + 8 > size)
		return false;
	s->stack_size = u64_at(h, off);
	off += 8;
	/* nothing copied: a kept record says whether the kernel set out to (the kernel's says no more) */
	if (!s->stack_size && off + 8 <= size)
		s->stack_short = u64_at(h, off) & STACK_SHORT;
	if (s->stack_size) {
		uint64_t dyn;

		if (off + s->stack_size + 8 > size)
			return false;
		s->stack = (const uint8_t *)h + off;
		/* only what the kernel could copy is real */
		dyn = u64_at(h, off + s->stack_size);
		s->stack_short = dyn & STACK_SHORT;
		if (dyn & STACK_DELTA) {
			if (off + s->stack_size + 16 > size)
				return false;
			s->stack_whole = dyn & ~(STACK_DELTA | STACK_SHORT);
			s->stack_key = (uint32_t)u64_at(h, off + s->stack_size + 8);
		} else if ((dyn &= ~STACK_SHORT) < s->stack_size) {
			s->stack_size = dyn;
			s->stack_short = true;
		}
	}
	return true;
}

size_t ring_sample__kept_size(const struct perf_event_header *h, const struct ring_sample *s)
{
	size_t head, kept;

	if (!s->stack)
		return h->size;
	head = (size_t)(s->stack - (const uint8_t *)h);
	kept = head + perf_round8(s->stack_size) + 8;
	return kept < h->size ? kept : h->size;
}

void ring_sample__copy_kept(const struct perf_event_header *h, const struct ring_sample *s, void *dst,
			    size_t kept)
{
	char *d = dst;
	size_t head;
	uint64_t copied, dyn;

	if (kept >= h->size || !s->stack) {
		memcpy(dst, h, h->size);
		return;
	}
	head = (size_t)(s->stack - (const uint8_t *)h);
	copied = kept - head - 8;
	dyn = s->stack_size | (s->stack_short ? STACK_SHORT : 0);
	memcpy(d, h, head + copied);
	memcpy(d + head - 8, &copied, 8);
	memcpy(d + head + copied, &dyn, 8);
	((struct perf_event_header *)dst)->size = (uint16_t)kept;
}

size_t ring_sample__delta_size(const struct perf_event_header *h, const struct ring_sample *s, size_t prefix)
{
	return (size_t)(s->stack - (const uint8_t *)h) + prefix + 16;
}

void ring_sample__copy_delta(const struct perf_event_header *h, const struct ring_sample *s, void *dst,
			     size_t prefix, uint32_t key)
{
	char *d = dst;
	size_t head = (size_t)(s->stack - (const uint8_t *)h);
	uint64_t size = prefix, whole = s->stack_size | STACK_DELTA | (s->stack_short ? STACK_SHORT : 0), k = key;

	memcpy(d, h, head + prefix);
	memcpy(d + head - 8, &size, 8);
	memcpy(d + head + prefix, &whole, 8);
	memcpy(d + head + prefix + 8, &k, 8);
	((struct perf_event_header *)dst)->size = (uint16_t)(head + prefix + 16);
}

uint64_t perf_record__time(const struct perf_event_header *h)
{
	if (h->type == PERF_RECORD_SAMPLE)
		return h->size >= SAMPLE_TIME + 8 ? u64_at(h, SAMPLE_TIME) : 0;
	return h->size >= sizeof(*h) + TRAILER ? u64_at(h, h->size - TRAILER_TIME) : 0;
}

pid_t perf_record__tid(const struct perf_event_header *h, pid_t *parent)
{
	pid_t ignored;

	parent = parent ? parent : &ignored;
	*parent = -1;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return h->size >= SAMPLE_TID + 4 ? (pid_t)u32_at(h, SAMPLE_TID) : -1;
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
		return h->size >= 16 ? (pid_t)u32_at(h, 12) : -1;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (h->size < 24)
			return -1;
		if (h->type == PERF_RECORD_FORK)
			*parent = (pid_t)u32_at(h, 20);
		return (pid_t)u32_at(h, 16);
	default:
		return -1;
	}
}

uint64_t perf_lost__count(const struct perf_event_header *h)
{
	/* id, then lost */
	return h->size >= 24 ? u64_at(h, 16) : 0;
}

bool perf_read__decode(const struct perf_event_header *h, struct perf_read *r)
{
	/* pid, tid, then the value (read_format 0) */
	if (h->size < 24)
		return false;
	r->pid = (pid_t)u32_at(h, 8);
	r->tid = (pid_t)u32_at(h, 12);
	r->value = u64_at(h, 16);
	return true;
}

void perf_mmap2__decode(const struct perf_event_header *h, struct perf_mmap2 *m)
{
	bool build_id = h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID;

	m->pid = (pid_t)u32_at(h, 8);
	m->tid = (pid_t)u32_at(h, 12);
	m->start = u64_at(h, MMAP2_ADDR);
	m->len = u64_at(h, MMAP2_LEN);
	m->pgoff = u64_at(h, MMAP2_PGOFF);
	/* maj, min, ino; unless the record carries a build id in their place */
	m->dev = build_id ? 0 : (uint64_t)u32_at(h, MMAP2_MAJ) << 32 | u32_at(h, MMAP2_MIN);
	m->ino = build_id ? 0 : u64_at(h, MMAP2_INO);
	m->path = (const char *)h + MMAP2_FILENAME;
}

void perf_comm__decode(const struct perf_event_header *h, struct perf_comm *c)
{
	c->pid = (pid_t)u32_at(h, 8);
	c->tid = (pid_t)u32_at(h, 12);
	c->comm = (const char *)h + 16;
	c->exec = h->misc & PERF_RECORD_MISC_COMM_EXEC;
}

void perf_task__decode(const struct perf_event_header *h, struct perf_task *t)
{
	t->pid = (pid_t)u32_at(h, 8);
	t->ppid = (pid_t)u32_at(h, 12);
	t->tid = (pid_t)u32_at(h, 16);
	t->ptid = (pid_t)u32_at(h, 20);
}

/* A header, then body (len bytes, padded to 8), then the trailer. */
static struct perf_event_header *encode(void *buf, size_t size, uint32_t type, size_t len, pid_t pid, pid_t tid,
					uint64_t time)
{
	struct perf_event_header *h = buf;
	size_t body = perf_round8(sizeof(*h) + len);
	uint32_t ids[2] = { (uint32_t)pid, (uint32_t)tid };

	if (body + TRAILER > size || body + TRAILER > UINT16_MAX)
		return NULL;
	memset(buf, 0, body + TRAILER);
	h->type = type;
	h->size = (uint16_t)(body + TRAILER);
	memcpy((char *)buf + body, ids, 8);
	memcpy((char *)buf + body + 8, &time, 8);
	return h;
}

struct perf_event_header *perf_mmap2__encode(void *buf, size_t size, const struct perf_mmap2 *m,
					     uint64_t time)
{
	size_t flen = strlen(m->path) + 1;
	struct perf_event_header *h = encode(buf, size, PERF_RECORD_MMAP2, MMAP2_FILENAME - 8 + flen, m->pid,
					     m->tid, time);
	uint32_t ids[2] = { (uint32_t)m->pid, (uint32_t)m->tid }, dev[2] = { (uint32_t)(m->dev >> 32),
									 (uint32_t)m->dev };
	char *p = buf;

	if (!h)
		return NULL;
	memcpy(p + 8, ids, 8);
	memcpy(p + MMAP2_ADDR, &m->start, 8);
	memcpy(p + MMAP2_LEN, &m->len, 8);
	memcpy(p + MMAP2_PGOFF, &m->pgoff, 8);
	memcpy(p + MMAP2_MAJ, dev, 8);
	memcpy(p + MMAP2_INO, &m->ino, 8);
	memcpy(p + MMAP2_FILENAME, m->path, flen);
	return h;
}

struct perf_event_header *perf_comm__encode(void *buf, size_t size, const struct perf_comm *c, uint64_t time)
{
	size_t clen = strnlen(c->comm, 15) + 1;
	struct perf_event_header *h = encode(buf, size, PERF_RECORD_COMM, 8 + clen, c->pid, c->tid, time);
	uint32_t ids[2] = { (uint32_t)c->pid, (uint32_t)c->tid };
	char *p = buf;

	if (!h)
		return NULL;
	h->misc = c->exec ? PERF_RECORD_MISC_COMM_EXEC : 0;
	memcpy(p + 8, ids, 8);
	memcpy(p + 16, c->comm, clen - 1);
	return h;
}
