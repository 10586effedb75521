/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lp-record's kept records are let go of chunk by chunk as the write phase
 * passes the last record of each (in time order), not before: a chunk one of
 * whose records comes late in time, or that a later record reads (a fork's
 * stack), stays until then.
 */
#include <stdint.h>
#include <string.h>

#include "record/recorder-int.h"
#include "tap.h"

/* 16 records fill a chunk: --spill-after 1M keeps chunks of 256 KiB */
enum { RECORD = 16384, PER_CHUNK = 16, RECORDS = 48 };

static int keep_at(struct recorder *r, uint64_t time)
{
	_Alignas(8) static char buf[RECORD];
	struct perf_event_header *h = (struct perf_event_header *)buf;
	struct offcpu_event ev = { .start = time };

	h->type = LP_RECORD_PROC_END;
	h->misc = 0;
	h->size = RECORD;
	memcpy(h + 1, &ev, sizeof(ev));
	return recorder__keep(r, h);
}

/* Chunks let go of so far. */
static size_t gone(const struct recorder *r)
{
	return r->next_release;
}

int main(void)
{
	struct record_opts o = { .spill_after = 1 << 20 };
	struct recorder *r = recorder__new(&o);
	const struct perf_event_header *first_chunks_record = NULL;
	int bad = 0;

	ok(r != NULL, "a recorder");
	/* the first chunk's fourth record is the last in time */
	for (uint64_t i = 0; i < RECORDS; i++)
		bad += keep_at(r, i == 3 ? 1000 : 10 + i) != 0;
	ok(!bad && r->n == RECORDS, "records kept in three chunks");
	index__sort(r->index, r->n);
	ok(r->index[RECORDS - 1].time == 1000, "the late record is last in time");
	ok(recorder__plan_release(r) == 0 && r->nuses == 3, "each chunk's last reader found");
	/* the second chunk's first record is read again by the last entry */
	for (size_t i = 0; i < r->n; i++)
		if (r->index[i].time == 10 + PER_CHUNK)
			first_chunks_record = r->index[i].h;
	recorder__hold(r, first_chunks_record, RECORDS - 1);

	recorder__release_written(r, 0);
	ok(gone(r) == 0, "nothing goes before anything is written");
	recorder__release_written(r, PER_CHUNK);
	ok(gone(r) == 0, "the first chunk stays: its late record is not written");
	recorder__release_written(r, 2 * PER_CHUNK);
	ok(gone(r) == 0, "the second chunk stays: a later entry reads one of its records");
	recorder__release_written(r, RECORDS - 1);
	ok(gone(r) == 1, "the third chunk goes once its last record is written");
	ok(first_chunks_record->size == RECORD, "what is held is still there to read");
	recorder__release_written(r, RECORDS - 1);
	ok(gone(r) == 1, "asked again, nothing more goes");
	recorder__release_written(r, RECORDS);
	ok(gone(r) == 3, "all go once all is written");
	recorder__free(r);

	/* all in memory (no --spill-after): one chunk, let go of at the end */
	o.spill_after = 0;
	r = recorder__new(&o);
	bad = 0;
	for (uint64_t i = 0; i < 4; i++)
		bad += keep_at(r, 4 - i) != 0;
	index__sort(r->index, r->n);
	ok(!bad && recorder__plan_release(r) == 0 && r->nuses == 1, "one big chunk");
	recorder__release_written(r, 3);
	ok(gone(r) == 0 && r->index[3].h->size == RECORD, "kept while a record is unwritten");
	recorder__release_written(r, 4);
	ok(gone(r) == 1, "then let go of");
	recorder__free(r);

	/* a live recording's: oldest first, once every record a chunk holds is written; one kept for the next */
	o.spill_after = 1 << 20;
	r = recorder__new(&o);
	bad = 0;
	for (uint64_t i = 0; i < RECORDS; i++)
		bad += keep_at(r, 10 + i) != 0;
	size_t kept = r->kept_bytes;

	ok(!bad && kept == 3 * r->chunk_size, "three chunks");
	recorder__release_before(r, PER_CHUNK - 1);
	ok(r->kept_bytes == kept && !r->spare, "a chunk stays while one of its records is unwritten");
	recorder__release_before(r, PER_CHUNK);
	ok(r->kept_bytes == kept - r->chunk_size && r->spare, "then goes, kept for the records to come");
	recorder__release_before(r, RECORDS);
	ok(r->kept_bytes == r->chunk_size, "all written: the newest chunk stays, records come into it");
	ok(r->index[RECORDS - 1].h->size == RECORD, "its records are still there to read");
	ok(keep_at(r, 100) == 0 && !r->spare && r->kept_bytes == 2 * r->chunk_size,
	   "the next chunk is the one kept, not a new one");
	recorder__free(r);
	recorder__free(NULL);
	return tap_done();
}
