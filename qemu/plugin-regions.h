/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lp's code regions (lp/region.h) in the emulated program, for lp-count:
 * the probes of LP_REGION_BEGIN/END found in each file QEMU runs code of
 * (their ELF notes: sdt.h), and each thread's open regions as it passes
 * them. A set of open regions is a context, numbered from 1 (0: none), that
 * the counts of the code run inside it are kept under.
 * lp_region_begin("name"), the function form, names its region in a register,
 * which QEMU 7.2's plugins cannot read: its probes are found and said, and
 * what runs inside them is counted outside any region.
 */
#ifndef LP_QEMU_PLUGIN_REGIONS_H
#define LP_QEMU_PLUGIN_REGIONS_H

#include <stdbool.h>
#include <stdint.h>

/* Finds the region probes of path mapped at guest start..end from file offset pgoff. */
void regions__scan(const char *path, uint64_t start, uint64_t end, uint64_t pgoff);

/* The probe at a guest address: its index, or -1 */
int regions__probe_at(uint64_t addr);
/* Whether a probe is of the function form (its region unknown here) */
bool regions__unnamed(int probe);

/* The calling thread passes probe: its context after it */
uint32_t regions__pass(int probe);
/* The calling thread's context now (a forked child's thread keeps its parent's) */
uint32_t regions__current(void);

/* Context ctx as its open regions, outermost first, ';' between ("" for 0) */
const char *regions__context(uint32_t ctx);
uint32_t regions__ncontexts(void);

#endif
