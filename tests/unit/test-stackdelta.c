/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Stack copies as differences from their thread's last whole copy: what is shared, and when not. */
#include <stdlib.h>
#include <string.h>

#include "record/stackdelta.h"
#include "tap.h"

#define SP 0x7ffc00010000ULL

int main(void)
{
	struct stack_deltas *d = stack_deltas__new();
	static uint8_t whole[4096], copy[4096];
	uint32_t key = 99;

	for (size_t i = 0; i < sizeof(whole); i++)
		whole[i] = (uint8_t)(rand() >> 7);
	ok(d && stack_deltas__shared(d, 5, SP, whole, sizeof(whole), &key) == 0, "no whole copy yet: nothing shared");
	ok(stack_deltas__keep(d, 5, 17, SP, whole, sizeof(whole)) == 0, "a whole copy kept");

	/* the same stack, its lowest 256 bytes changed: the rest is shared */
	memcpy(copy, whole, sizeof(copy));
	memset(copy, 0xee, 256);
	ok(stack_deltas__shared(d, 5, SP, copy, sizeof(copy), &key) == sizeof(copy) - 256 && key == 17,
	   "what lies above where the stacks part is shared, with the whole copy's record");
	ok(stack_deltas__shared(d, 6, SP, copy, sizeof(copy), &key) == 0, "another thread's copy is not");

	/* a shallower sample: its copy starts 1 KB higher, and ends at the same place */
	ok(stack_deltas__shared(d, 5, SP + 1024, whole + 1024, sizeof(whole) - 1024, &key) == sizeof(whole) - 1024,
	   "a shallower sample of the same stack shares all of it");
	/* a deeper one whose copy ends lower: compared where both have bytes */
	ok(stack_deltas__shared(d, 5, SP - 512, whole, 2048, &key) == 0,
	   "bytes at other places are not alike: nothing shared");
	/* a copy reaching above the whole one: that part is not in it */
	ok(stack_deltas__shared(d, 5, SP + 1024, whole + 1024, sizeof(whole), &key) == 0,
	   "a copy that ends above the whole one's end shares nothing");
	/* too little in common to be worth a reference */
	memcpy(copy, whole, sizeof(copy));
	memset(copy, 0xee, sizeof(copy) - 256);
	ok(stack_deltas__shared(d, 5, SP, copy, sizeof(copy), &key) == 0, "256 bytes alike are not worth it");

	ok(stack_deltas__keep(d, 5, 18, SP, NULL, 0) == 0 && stack_deltas__shared(d, 5, SP, whole, sizeof(whole), &key) &&
	   key == 17, "a copy the kernel could not make (0 bytes) is no whole copy");

	/*
	 * A word high in the copy changed (the kernel rewrote the rseq area
	 * above the stack as the thread moved to another CPU): shared above it
	 * (1 KB of 4),
	 * for a few samples, then the whole copy makes way for a newer one.
	 */
	{
		size_t n = 0, was = 0;

		memcpy(copy, whole, sizeof(copy));
		copy[sizeof(copy) - 1024 - 8] ^= 1;
		while (n < 100 && (was = stack_deltas__shared(d, 5, SP, copy, sizeof(copy), &key)) == 1024)
			n++;
		ok(n == 8 && was == 0, "8 samples that keep a third of theirs share the top, the 9th is to be the whole copy");
		ok(stack_deltas__keep(d, 5, 19, SP, copy, sizeof(copy)) == 0 &&
		   stack_deltas__shared(d, 5, SP, copy, sizeof(copy), &key) == sizeof(copy) && key == 19,
		   "the newer whole copy: all shared");
		for (n = 0; n < 100 && stack_deltas__shared(d, 5, SP + 1024, copy + 1024, sizeof(copy) - 1024, &key); n++)
			;
		ok(n == 100, "samples that share most of their copy keep their whole copy");
	}
	stack_deltas__forget(d, 5);
	ok(stack_deltas__shared(d, 5, SP, whole, sizeof(whole), &key) == 0, "a thread that exited has no copy");
	stack_deltas__free(d);
	stack_deltas__free(NULL);
	return tap_done();
}
