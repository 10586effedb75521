/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The timeline's rows: nested by spawn tree, threads before processes, bands by rank. */
#include <stdlib.h>

#include "tap.h"
#include "picture/timeline-int.h"

static struct thread thread(size_t band, int64_t pid, int64_t tid, ptrdiff_t parent, uint64_t start)
{
	return (struct thread){ .band = band, .pid = pid, .tid = tid, .parent = parent, .start = start,
				.has_start = true };
}

/* The tids of the rows in order, as one string ("100 102 101 200 201"), and each row's depth. */
static void rows(const struct layout *l, char *tids, size_t size, char *depths, size_t dsize)
{
	size_t at = 0, dat = 0;

	tids[0] = depths[0] = 0;
	for (size_t r = 0; r < l->nrows; r++) {
		const struct thread *t = &l->tl->threads[l->order[r]];

		at += (size_t)snprintf(tids + at, size - at, "%s%lld", r ? " " : "", (long long)t->tid);
		dat += (size_t)snprintf(depths + dat, dsize - dat, "%u", t->depth);
	}
}

static void layout_free(struct layout *l)
{
	free(l->order);
	free(l->kids);
	free(l->kid_at);
	free(l->band_order);
}

int main(void)
{
	char tids[256], depths[64];

	{
		/*
		 * Process 100 spawns thread 101 at 5 and process 200 at 3, which
		 * spawns thread 201; thread 102 of 100 was there before the recording
		 * (no spawn record) and started first.
		 */
		struct thread t[] = {
			thread(0, 200, 200, 1, 3), thread(0, 100, 100, -1, 0), thread(0, 100, 101, 1, 5),
			thread(0, 200, 201, 0, 4), thread(0, 100, 102, -1, 1),
		};
		struct band b[] = { { .name = "a" } };
		struct timeline tl = { .threads = t, .nthreads = 5, .bands = b, .nbands = 1 };
		struct layout l = { .tl = &tl };

		ok(timeline__lay_out(&l) == 0, "laid out");
		rows(&l, tids, sizeof(tids), depths, sizeof(depths));
		ok(strcmp(tids, "100 102 101 200 201") == 0, "a process, its threads by start, then the process it spawned");
		ok(strcmp(depths, "01112") == 0, "each one level under its spawner; the thread without a spawn under its main");
		ok(t[4].parent == 1, "the thread there before the recording is adopted by its process's main thread");
		ok(b[0].first_row == 0 && b[0].end_row == 5, "the band holds every row");
		layout_free(&l);
	}
	{
		/* inputs of ranks 10 and 2 (glob order), each a process */
		struct thread t[] = { thread(0, 7, 7, -1, 0), thread(1, 9, 9, -1, 0) };
		struct band b[] = { { .name = "r10", .rank = "10" }, { .name = "r2", .rank = "2" } };
		struct timeline tl = { .threads = t, .nthreads = 2, .bands = b, .nbands = 2 };
		struct layout l = { .tl = &tl };

		ok(timeline__lay_out(&l) == 0, "laid out");
		rows(&l, tids, sizeof(tids), depths, sizeof(depths));
		ok(strcmp(tids, "9 7") == 0, "bands in rank order: 2 before 10");
		ok(l.band_order[0] == 1 && b[1].first_row == 0 && b[0].first_row == 1, "the band order says so");
		layout_free(&l);
	}
	{
		/* a damaged stream whose spawns make a loop: each thread still gets a row */
		struct thread t[] = { thread(0, 1, 1, 1, 0), thread(0, 2, 2, 0, 1), thread(0, 3, 3, -1, 2) };
		struct band b[] = { { .name = "a" } };
		struct timeline tl = { .threads = t, .nthreads = 3, .bands = b, .nbands = 1 };
		struct layout l = { .tl = &tl };

		ok(timeline__lay_out(&l) == 0, "laid out");
		rows(&l, tids, sizeof(tids), depths, sizeof(depths));
		ok(l.nrows == 3 && strchr(tids, '1') && strchr(tids, '2') && strchr(tids, '3'), "a spawn loop: every thread has its row");
		layout_free(&l);
	}
	return tap_done();
}
