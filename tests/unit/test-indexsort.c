/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdint.h>
#include <stdlib.h>

#include "record/recorder-int.h"
#include "tap.h"

static int by_time_then_seq(const void *a, const void *b)
{
	const struct index_entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

enum shape { RANDOM, RUNS, FEW_TIMES, ONE_TIME, WIDE };

/* n entries in arrival order (seq) whose times have the given shape, sorted as lp-record does and by qsort */
static int sorts_as_qsort(enum shape shape, size_t n)
{
	struct index_entry *v = calloc(n ? n : 1, sizeof(*v)), *want = calloc(n ? n : 1, sizeof(*want));
	uint64_t base = 70000000000000ULL;
	int same;

	for (size_t i = 0; i < n; i++) {
		switch (shape) {
		case RANDOM:	/* four seconds of a recording's clock */
			v[i].time = base + next_random() % 4000000000ULL;
			break;
		case RUNS:	/* two CPUs' rings read in turns: sorted runs that overlap */
			v[i].time = base + (i / 500) * 1000000 + (i % 500) * 4000 + (i / 500 % 2) * 1000;
			break;
		case FEW_TIMES:	/* many ties: the arrival order must stay */
			v[i].time = base + next_random() % 3;
			break;
		case ONE_TIME:
			v[i].time = 0;
			break;
		case WIDE:	/* every byte differs */
			v[i].time = next_random();
			break;
		}
		v[i].seq = (uint32_t)i;
		v[i].type = (uint16_t)(i % 11);
		v[i].h = (const void *)(uintptr_t)(i * 8 + 8);
	}
	memcpy(want, v, n * sizeof(*v));
	qsort(want, n, sizeof(*want), by_time_then_seq);
	index__sort(v, n);
	same = memcmp(v, want, n * sizeof(*v)) == 0;
	free(v);
	free(want);
	return same;
}

int main(void)
{
	static const size_t sizes[] = { 0, 1, 2, 31, 32, 33, 257, 5000, 100000 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];
		char name[96];

		snprintf(name, sizeof(name), "%zu random times sort as qsort by time, then arrival", n);
		ok(sorts_as_qsort(RANDOM, n), name);
		snprintf(name, sizeof(name), "%zu times in overlapping sorted runs", n);
		ok(sorts_as_qsort(RUNS, n), name);
		snprintf(name, sizeof(name), "%zu entries of three times keep their arrival order", n);
		ok(sorts_as_qsort(FEW_TIMES, n), name);
		snprintf(name, sizeof(name), "%zu entries of one time keep their arrival order", n);
		ok(sorts_as_qsort(ONE_TIME, n), name);
		snprintf(name, sizeof(name), "%zu times differing in every byte", n);
		ok(sorts_as_qsort(WIDE, n), name);
	}
	return tap_done();
}
