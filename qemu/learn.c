/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "learn.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/htab.h"

/* What an instruction did while learned */
struct record {
	uint64_t addr, hash;
	uint32_t block;
	uint32_t load_size, store_size;	/* the size of its accesses; UINT32_MAX when they differed */
	uint64_t loads, stores;		/* accesses */
	uint64_t loaded, stored;	/* bytes */
};

enum { CHUNK_SHIFT = 12, CHUNK = 1 << CHUNK_SHIFT, MAX_CHUNKS = 1 << 12 };

/* records in chunks that never move: callbacks hold their ids as they run */
static struct record *chunks[MAX_CHUNKS];
static uint32_t nrecords;

/* what was settled: (addr, hash) -> bytes */
struct fixed {
	struct htab_entry head;
	uint64_t addr, hash;
	uint32_t loaded, stored;
};
static struct htab table = HTAB_INIT(struct fixed);

uint64_t learn__hash(const void *code, unsigned long len)
{
	return hash_bytes(code, len);
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool learn__may_vary(enum fp_arch arch, const char *d)
{
	static const char *const x86[] = { "rep", "cmpxchg", "lock cmpxchg", "maskmov", "vmaskmov", "vpmaskmov",
					   "vgather", "vpgather", "xsave", "xrstor", "fxsave", "fxrstor", "enter",
					   NULL };
	static const char *const arm64[] = { "stxr", "stlxr", "stxp", "stlxp", "cas", "dc ", "ldxr", "ldaxr",
					     "ldxp", "ldaxp", NULL };

	if (!d)
		return true;
	while (*d == ' ')
		d++;
	for (const char *const *p = arch == FP_ARM64 ? arm64 : x86; *p; p++)
		if (starts(d, *p))
			return true;
	/* SVE's vectors and predicates */
	return arch == FP_ARM64 && (strstr(d, " z") || strstr(d, "{z") || strstr(d, " p0") || strstr(d, "/z"));
}

static struct record *at(uint32_t id)
{
	return &chunks[id >> CHUNK_SHIFT][id & (CHUNK - 1)];
}

uint32_t learn__add(uint64_t addr, uint64_t code_hash, uint32_t block)
{
	uint32_t id = nrecords;
	struct record **chunk = &chunks[id >> CHUNK_SHIFT];

	if (id >= (uint32_t)MAX_CHUNKS * CHUNK)
		return UINT32_MAX;
	if (!*chunk && !(*chunk = calloc(CHUNK, sizeof(**chunk))))
		return UINT32_MAX;
	*at(id) = (struct record){ .addr = addr, .hash = code_hash, .block = block };
	nrecords++;
	return id;
}

uint32_t learn__block(uint32_t id)
{
	return at(id)->block;
}

static void note_size(uint32_t *size, unsigned bytes)
{
	uint32_t was = __atomic_load_n(size, __ATOMIC_RELAXED);

	if (was == bytes || was == UINT32_MAX)
		return;
	if (was != 0 || !__atomic_compare_exchange_n(size, &was, bytes, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		if (__atomic_load_n(size, __ATOMIC_RELAXED) != bytes)
			__atomic_store_n(size, UINT32_MAX, __ATOMIC_RELAXED);
}

void learn__access(uint32_t id, unsigned bytes, bool store)
{
	struct record *r = at(id);

	if (store) {
		note_size(&r->store_size, bytes);
		__atomic_fetch_add(&r->stores, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&r->stored, bytes, __ATOMIC_RELAXED);
	} else {
		note_size(&r->load_size, bytes);
		__atomic_fetch_add(&r->loads, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&r->loaded, bytes, __ATOMIC_RELAXED);
	}
}

/* The entry of (addr, hash), or the free slot it would take (head.used false); its table hash into *h */
static struct fixed *slot(uint64_t addr, uint64_t hash, uint64_t *h)
{
	struct fixed *f;

	*h = hash_mix(addr ^ hash);
	for (size_t i = *h; (f = htab__at(&table, i))->head.used; i++)
		if (f->head.hash == *h && f->addr == addr && f->hash == hash)
			break;
	return f;
}

/* A whole number of accesses of one size a run of its block: the bytes of a run */
static bool per_run(uint64_t accesses, uint64_t bytes, uint32_t size, uint64_t runs, uint32_t *out)
{
	if (size == UINT32_MAX || accesses % runs || bytes != accesses * size)
		return false;
	*out = (uint32_t)(bytes / runs);
	return true;
}

uint64_t learn__settle(uint64_t (*block_runs)(uint32_t block))
{
	for (uint32_t id = 0; id < nrecords; id++) {
		const struct record *r = at(id);
		uint64_t runs = block_runs(r->block), h;
		uint32_t loaded, stored;
		struct fixed *f;

		/* twice at least: once says nothing of whether it varies */
		if (runs < 2 || !per_run(r->loads, r->loaded, r->load_size, runs, &loaded) ||
		    !per_run(r->stores, r->stored, r->store_size, runs, &stored))
			continue;
		if (htab__reserve(&table) < 0)
			break;
		f = slot(r->addr, r->hash, &h);
		if (f->head.used) {
			/* learned in two blocks: they must agree */
			if (f->loaded != loaded || f->stored != stored)
				f->loaded = f->stored = UINT32_MAX;
			continue;
		}
		htab__insert(&table, f, h);
		f->addr = r->addr;
		f->hash = r->hash;
		f->loaded = loaded;
		f->stored = stored;
	}
	return table.n;
}

bool learn__fixed(uint64_t addr, uint64_t code_hash, uint32_t *loaded, uint32_t *stored)
{
	const struct fixed *f;
	uint64_t h;

	if (!table.n)
		return false;
	f = slot(addr, code_hash, &h);
	if (!f->head.used || f->loaded == UINT32_MAX)
		return false;
	*loaded = f->loaded;
	*stored = f->stored;
	return true;
}
