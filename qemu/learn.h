/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bytes each instruction loads and stores, learned while it runs with
 * QEMU's memory callbacks, so that code translated again afterwards counts
 * them without any: an instruction that moved the same bytes on every run of
 * its block (the same number of accesses a run, all of one size) moves them
 * on every later run too, and its block adds them each time it runs. Those
 * whose accesses depend on the run (rep string instructions, gathers, masked
 * moves, compare-and-swap, exclusive stores, XSAVE, SVE) are never learned.
 * Instructions are known by address and the hash of their bytes: code that
 * changes (JIT, a library mapped where another was) is another instruction.
 */
#ifndef LP_LEARN_H
#define LP_LEARN_H

#include <stdbool.h>
#include <stdint.h>

#include "roofline/fpclass.h"

/* Whether an instruction's accesses may differ from run to run (by its disassembly) */
bool learn__may_vary(enum fp_arch arch, const char *disassembly);

/* A record for an instruction of block, learning from now on: its id, or UINT32_MAX (none: no memory) */
uint32_t learn__add(uint64_t addr, uint64_t code_hash, uint32_t block);
uint32_t learn__block(uint32_t id);
/* One access as it happens (any thread: atomic) */
void learn__access(uint32_t id, unsigned bytes, bool store);

/*
 * Settles what the records learned, given how often each block ran (all
 * threads): instructions of fixed bytes go into the table learn__fixed
 * reads. The number of instructions it holds then.
 */
uint64_t learn__settle(uint64_t (*block_runs)(uint32_t block));
bool learn__fixed(uint64_t addr, uint64_t code_hash, uint32_t *loaded, uint32_t *stored);

uint64_t learn__hash(const void *code, unsigned long len);

#endif
