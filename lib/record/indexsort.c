/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The index of kept records in time order, sorted where it lies. A sort that
 * needs a second array as big as the index (a stable radix sort's) spends
 * more on that array than on sorting: on these VMs the first touch of a 2 MB
 * huge page the host took back costs some milliseconds, more than sorting
 * 40000 records; and a long recording's index is hundreds of MB.
 */
#include "record/recorder-int.h"

#include <stdbool.h>
#include <stdlib.h>

/* parts this small are finished by insertion: fewer moves than another pass */
enum { SMALL_PART = 32 };

static bool before(const struct index_entry *a, const struct index_entry *b)
{
	return a->time != b->time ? a->time < b->time : a->seq < b->seq;
}

static void insertion_sort(struct index_entry *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct index_entry x = v[i];
		size_t j = i;

		for (; j > 0 && before(&x, &v[j - 1]); j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static int cmp_seq(const void *a, const void *b)
{
	const struct index_entry *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

static unsigned byte_at(const struct index_entry *e, unsigned shift)
{
	return (unsigned)(e->time >> shift) & 255;
}

/*
 * v[0..n) share the bits of their times above shift + 8: parted by the byte
 * at shift where they lie (each entry swapped straight into its part), then
 * each part by the next byte down. Entries of one time end in one part,
 * their arrival order lost on the way: put back by seq.
 */
static void radix_sort(struct index_entry *v, size_t n, int shift)
{
	size_t count[256] = { 0 }, next[256], end[256], at = 0;

	if (n <= SMALL_PART) {
		insertion_sort(v, n);
		return;
	}
	if (shift < 0) {
		qsort(v, n, sizeof(*v), cmp_seq);
		return;
	}
	for (size_t i = 0; i < n; i++)
		count[byte_at(&v[i], (unsigned)shift)]++;
	for (unsigned b = 0; b < 256; b++) {
		next[b] = at;
		at += count[b];
		end[b] = at;
	}
	for (unsigned b = 0; b < 256; b++) {
		while (next[b] < end[b]) {
			struct index_entry x = v[next[b]];
			unsigned xb = byte_at(&x, (unsigned)shift);

			/* carry x to its part, taking the entry there on, until one belongs here */
			while (xb != b) {
				struct index_entry y = v[next[xb]];

				v[next[xb]++] = x;
				x = y;
				xb = byte_at(&x, (unsigned)shift);
			}
			v[next[b]++] = x;
		}
	}
	at = 0;
	for (unsigned b = 0; b < 256; b++) {
		if (count[b] > 1)
			radix_sort(v + at, count[b], shift - 8);
		at += count[b];
	}
}

void index__sort(struct index_entry *index, size_t n)
{
	uint64_t lo = UINT64_MAX, hi = 0, differ;
	int shift = 0;

	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++) {
		if (index[i].time < lo)
			lo = index[i].time;
		if (index[i].time > hi)
			hi = index[i].time;
	}
	/* the bytes above the highest bit where times differ are the same in all: not looked at */
	differ = lo ^ hi;
	if (!differ) {
		radix_sort(index, n, -1);
		return;
	}
	while (shift + 8 < 64 && differ >> (shift + 8))
		shift += 8;
	radix_sort(index, n, shift);
}
