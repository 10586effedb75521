/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "symbols/fpchain.h"
#include "tap.h"

#define SP 0x7ffc00001000ULL

static uint8_t stack[512];

/* Writes the frame record {next, ra} at address at of the snapshot. */
static void record(uint64_t at, uint64_t next, uint64_t ra)
{
	memcpy(stack + (at - SP), &next, 8);
	memcpy(stack + (at - SP) + 8, &ra, 8);
}

int main(void)
{
	/* a chain of three records going up the stack, then the outermost (next 0) */
	record(SP + 0x20, SP + 0x60, 0x401000);
	record(SP + 0x60, SP + 0x100, 0x401100);
	record(SP + 0x100, 0, 0x401200);
	ok(fp_chain__plausible(SP, SP + 0x20, stack, sizeof(stack), 3) == 3, "a chain up the stack is believed");
	ok(fp_chain__plausible(SP, SP + 0x20, stack, sizeof(stack), 0) == 0, "no frames, nothing to believe");
	{
		uint64_t cfas[4];

		/* where each return address was read: the caller's stack pointer, 0 past the snapshot */
		fp_chain__cfas(SP, SP + 0x20, stack, sizeof(stack), 3, cfas);
		ok(cfas[0] == SP + 0x30 && cfas[1] == SP + 0x70 && cfas[2] == SP + 0x110, "each record's place");
		fp_chain__cfas(SP, SP + 0x20, stack, 0x70, 3, cfas);
		ok(cfas[0] == SP + 0x30 && cfas[1] == SP + 0x70 && cfas[2] == 0, "a record past the snapshot: unknown");
		fp_chain__cfas(SP, 5, stack, sizeof(stack), 2, cfas);
		ok(cfas[0] == 0 && cfas[1] == 0, "a %rbp that is no stack address: unknown");
	}

	ok(fp_chain__plausible(SP, 0x555555558050ULL, stack, sizeof(stack), 2) == 0,
	   "a first frame below the stack pointer (a data address) is not believed");
	ok(fp_chain__plausible(SP, SP + (512ULL << 20), stack, sizeof(stack), 2) == 0,
	   "a first frame far above the stack pointer (a heap mapping) is not believed");
	ok(fp_chain__plausible(SP, SP + 0x24, stack, sizeof(stack), 2) == 0, "an unaligned frame is not believed");
	ok(fp_chain__plausible(SP, 3, stack, sizeof(stack), 1) == 0, "a small number in the register is not a frame");

	record(SP + 0x60, SP + 0x40, 0x401100);
	ok(fp_chain__plausible(SP, SP + 0x20, stack, sizeof(stack), 3) == 2,
	   "a chain that goes back down is believed up to the record that points down");
	record(SP + 0x60, SP + 0x60, 0x401100);
	ok(fp_chain__plausible(SP, SP + 0x20, stack, sizeof(stack), 5) == 2, "a record pointing at itself ends it");
	record(SP + 0x60, SP + 0x68, 0x401100);
	ok(fp_chain__plausible(SP, SP + 0x20, stack, sizeof(stack), 5) == 2,
	   "a record overlapping the one before ends it");

	record(SP + 0x60, SP + 0x4000, 0x401100);
	ok(fp_chain__plausible(SP, SP + 0x20, stack, sizeof(stack), 6) == 6,
	   "past the snapshot nothing can be checked: the rest is believed");
	record(SP + 0x1f8 - 8, SP + 0x300, 0x401100);
	ok(fp_chain__plausible(SP, SP + 0x1f8, stack, sizeof(stack), 4) == 4,
	   "a record cut by the snapshot's end is not read");
	ok(fp_chain__plausible(SP, SP + 0x20, stack, 0, 4) == 4, "without a snapshot only the first is checked");
	ok(fp_chain__plausible(SP, SP - 16, stack, 0, 4) == 0, "even without a snapshot, a first frame below sp");

	{
		uint64_t ras[8], cfas[8], by_cfas[8];
		bool cut;

		memset(stack, 0, sizeof(stack));
		record(SP + 0x20, SP + 0x60, 0x401000);
		record(SP + 0x60, SP + 0x100, 0x401100);
		record(SP + 0x100, 0, 0x401200);
		ok(fp_chain__walk(SP, SP + 0x20, stack, sizeof(stack), ras, NULL, 8, &cut) == 3 && !cut &&
			   ras[0] == 0x401000 && ras[1] == 0x401100 && ras[2] == 0x401200,
		   "the walk over the copy gives each record's return address, to the outermost");
		ok(fp_chain__walk(SP, SP + 0x20, stack, sizeof(stack), ras, cfas, 8, &cut) == 3 &&
			   (fp_chain__cfas(SP, SP + 0x20, stack, sizeof(stack), 3, by_cfas), 1) &&
			   cfas[0] == SP + 0x30 && cfas[1] == SP + 0x70 && cfas[2] == SP + 0x110 &&
			   memcmp(cfas, by_cfas, sizeof(cfas[0]) * 3) == 0,
		   "and each record's CFA, as fp_chain__cfas finds them");
		ok(fp_chain__walk(SP, SP + 0x20, stack, sizeof(stack), ras, NULL, 2, &cut) == 2 && !cut,
		   "the walk stops at max");
		ok(fp_chain__walk(SP, SP + 0x20, stack, 0x70, ras, NULL, 8, &cut) == 2 && cut,
		   "a record beyond the copy cuts the walk: the stack may go on");
		record(SP + 0x60, SP + 0x40, 0x401100);
		ok(fp_chain__walk(SP, SP + 0x20, stack, sizeof(stack), ras, NULL, 8, &cut) == 2 && !cut,
		   "a record pointing down ends the walk after its return address, not cut");
		ok(fp_chain__walk(SP, SP + 0x24, stack, sizeof(stack), ras, NULL, 8, &cut) == 0 && !cut,
		   "an unaligned first frame: nothing walked");
		ok(fp_chain__walk(SP, SP + (512ULL << 20), stack, sizeof(stack), ras, NULL, 8, &cut) == 0 && !cut,
		   "a first frame far above (a heap address): nothing walked, not cut");
	}
	return tap_done();
}
