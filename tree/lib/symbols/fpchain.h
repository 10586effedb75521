/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How much of the kernel's frame-pointer walk of a user stack can be believed. */
#ifndef LP_FPCHAIN_H
#define LP_FPCHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Farthest a frame record may lie above the sampled stack pointer: further
 * away it is not the thread's stack (a heap or data pointer in a register
 * that code without frame pointers uses as any other).
 */
#define FP_CHAIN_MAX_SPAN (256ULL << 20)

/*
 * The number of the nframes return addresses the kernel read from the frame
 * chain starting at bp that come from plausible frame records: each aligned,
 * above the one before (the first at or above sp), within FP_CHAIN_MAX_SPAN
 * of sp. The records are read from the snapshot of the stack at sp (size
 * bytes); past its end nothing more can be checked and the rest is believed.
 */
size_t fp_chain__plausible(uint64_t sp, uint64_t bp, const uint8_t *stack, size_t size, size_t nframes);

/*
 * Where the walk read each of its nframes return addresses, as the stack
 * pointer of the caller it returns to (the record's address + 16), into
 * cfas; 0 for a record beyond the snapshot, where that cannot be known.
 */
void fp_chain__cfas(uint64_t sp, uint64_t bp, const uint8_t *stack, size_t size, size_t nframes, uint64_t *cfas);

/*
 * One step of the walk: the frame record at bp, read from the snapshot of
 * the stack at base (size bytes), as its next frame and return address. 0;
 * -ENOENT where bp cannot be a record (unaligned, under lowest, further than
 * FP_CHAIN_MAX_SPAN above base); -ERANGE where the record is beyond the
 * snapshot.
 */
int fp_chain__record(uint64_t base, uint64_t lowest, uint64_t bp, const uint8_t *stack, size_t size,
		     uint64_t *next, uint64_t *ra);

/*
 * The walk the kernel makes of a user stack (perf -g), over the snapshot
 * alone: the return addresses of the frame records from bp on, up to max,
 * into ras, as long as they are plausible (as fp_chain__plausible says), and
 * when cfas is not NULL each one's CFA into it (as fp_chain__cfas gives, in
 * the same pass). *cut: it stopped at a record beyond the snapshot, where
 * the stack may go on, not where the chain ends or goes astray.
 */
size_t fp_chain__walk(uint64_t sp, uint64_t bp, const uint8_t *stack, size_t size, uint64_t *ras, uint64_t *cfas,
		      size_t max,
		      bool *cut);

#endif
