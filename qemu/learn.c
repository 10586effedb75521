/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "learn.h"

#include <stdlib.h>
#include <string.h>

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

/* what was settled: (addr, hash) -> bytes, open addressing */
struct fixed {
	uint64_t addr, hash;
	uint32_t loaded, stored;
	bool used;
};
static struct fixed *table;
static uint64_t table_size, table_used;

uint64_t learn__hash(const void *code, unsigned long len)
{
	const unsigned char *b = code;
	uint64_t h = 1469598103934665603ull;

	for (unsigned long i = 0; i < len; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
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

static struct fixed *slot(uint64_t addr, uint64_t hash)
{
	uint64_t i = (addr * 0x9e3779b97f4a7c15ull ^ hash) & (table_size - 1);

	while (table[i].used && !(table[i].addr == addr && table[i].hash == hash))
		i = (i + 1) & (table_size - 1);
	return &table[i];
}

static bool grow_table(void)
{
	struct fixed *old = table;
	uint64_t old_size = table_size;

	table_size = table_size ? 2 * table_size : 4096;
	if (!(table = calloc(table_size, sizeof(*table)))) {
		table = old;
		table_size = old_size;
		return false;
	}
	for (uint64_t i = 0; i < old_size; i++)
		if (old[i].used)
			*slot(old[i].addr, old[i].hash) = old[i];
	free(old);
	return true;
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
		uint64_t runs = block_runs(r->block);
		uint32_t loaded, stored;
		struct fixed *f;

		/* twice at least: once says nothing of whether it varies */
		if (runs < 2 || !per_run(r->loads, r->loaded, r->load_size, runs, &loaded) ||
		    !per_run(r->stores, r->stored, r->store_size, runs, &stored))
			continue;
		if ((table_used + 1) * 2 > table_size && !grow_table())
			break;
		f = slot(r->addr, r->hash);
		if (f->used) {
			/* learned in two blocks: they must agree */
			if (f->loaded != loaded || f->stored != stored)
				f->loaded = f->stored = UINT32_MAX;
			continue;
		}
		*f = (struct fixed){ r->addr, r->hash, loaded, stored, true };
		table_used++;
	}
	return table_used;
}

bool learn__fixed(uint64_t addr, uint64_t code_hash, uint32_t *loaded, uint32_t *stored)
{
	const struct fixed *f;

	if (!table_size)
		return false;
	f = slot(addr, code_hash);
	if (!f->used || f->loaded == UINT32_MAX)
		return false;
	*loaded = f->loaded;
	*stored = f->stored;
	return true;
}
