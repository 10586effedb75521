/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Function symbols of one ELF file (.symtab, else .dynsym, from the file or
 * its separate debug file), sorted for lookup by address, and the mapping of
 * file offsets to the addresses symbols use.
 */
#ifndef LP_ELFSYM_H
#define LP_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elfsym;

/* Loads path; NULL+errno when it cannot be read as ELF. debug_root is normally "/usr/lib/debug". */
struct elfsym *elfsym__load(const char *path, const char *debug_root);
/* Loads an ELF image in memory (the vdso). */
struct elfsym *elfsym__load_memory(const void *image, size_t size);
void elfsym__free(struct elfsym *e);

/* The address symbols use for a file offset (0 and false if no segment holds it). */
bool elfsym__offset_to_addr(const struct elfsym *e, uint64_t offset, uint64_t *addr);

/* The function at addr, or NULL. */
const char *elfsym__lookup(const struct elfsym *e, uint64_t addr);

/*
 * The per cent of the file's 50 biggest functions that call others whose code
 * starts by setting up a frame pointer (leaves may do without one), or -1 if
 * it cannot tell (no .symtab, too few such functions).
 */
int elfsym__frame_pointer_share(const struct elfsym *e);

/* The file's entry point (e_entry): where a program, or the dynamic loader, starts; 0 for none. */
uint64_t elfsym__entry(const struct elfsym *e);

#endif
