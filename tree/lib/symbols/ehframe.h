/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The common rules of an ELF image's .eh_frame, read without libdw: found
 * by .eh_frame_hdr's binary search table and compiled by running the CIE's
 * and FDE's instructions up to the address. libdw's dwarf_cfi_addrframe
 * does the same through a cache of FDEs and a malloc per call, some
 * microseconds each: a build's thousands of distinct addresses in programs
 * without frame pointers made it a third of lp-record's write phase.
 *
 * Only what x86-64's compilers and assemblers emit for ordinary functions
 * is interpreted; the rest is -ENOTSUP, for the caller to ask libdw, which
 * stays the reference (tests/unit/test-ehframe.c compares the two).
 */
#ifndef LP_EHFRAME_H
#define LP_EHFRAME_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/cfi.h"

struct eh_frame;

/*
 * hdr and eh are the bytes of .eh_frame_hdr and .eh_frame, loaded at file
 * addresses hdr_addr and eh_addr; they must outlive the object. NULL+errno:
 * ENOTSUP for a table this does not read (its encoding), ENOMEM.
 */
struct eh_frame *eh_frame__new(const uint8_t *hdr, size_t hdr_size, uint64_t hdr_addr, const uint8_t *eh,
			       size_t eh_size, uint64_t eh_addr);
/*
 * The same from an ELF image's .eh_frame_hdr and .eh_frame sections, as
 * libelf holds them (the image must outlive the object): NULL+errno, ENOENT
 * where it has not both.
 */
struct eh_frame *eh_frame__from_elf(Elf *elf);
void eh_frame__free(struct eh_frame *f);

/*
 * The rule at file address pc, as cfi__rule gives it for a simple one: 0;
 * -ENOENT when the table has no FDE for pc; -ENOTSUP for anything else
 * (a rule that is not simple, an instruction or encoding not read here,
 * malformed data).
 */
int eh_frame__rule(const struct eh_frame *f, uint64_t pc, struct cfi_rule *rule);

/*
 * Where the code of the FDE that holds file address pc begins (a function,
 * or a part of one gcc split off): 0; -ENOENT, -ENOTSUP as eh_frame__rule.
 */
int eh_frame__function_start(const struct eh_frame *f, uint64_t pc, uint64_t *start);

#endif
