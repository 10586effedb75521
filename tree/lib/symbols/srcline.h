/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Source lines of code addresses, from DWARF line tables (libdw): the
 * binary's own, or its separate debug file found by build id or debug link
 * (/usr/lib/debug, as perf and gdb look). Each file is opened once, each
 * address looked up once: a recording repeats a few thousand addresses.
 */
#ifndef LP_SRCLINE_H
#define LP_SRCLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct srclines;

enum { SRCLINE_MAX_INLINED = 16 };	/* inline levels kept per address */

struct srclines *srclines__new(void);
void srclines__free(struct srclines *s);

struct srcline {
	const char *file;	/* as the line table names it; owned by s */
	const char *path;	/* where to read it: relative names joined to the build directory */
	int line;
};

/*
 * The line of file address addr (an ELF virtual address, as LOCS gives it)
 * in the ELF file at path: 1 with *out, 0 when the file or its debug file
 * has no line for it (or cannot be read: then *reason says why, once per
 * file, else NULL), -ENOMEM.
 */
int srclines__find(struct srclines *s, const char *path, size_t path_len, uint64_t addr, struct srcline *out,
		   const char **reason);

/*
 * The line of a stack frame at offset in the file dso (a LOCS item's parts):
 * every frame but the leaf holds a return address, looked up at the call
 * before it; kernel code ("[kernel.kallsyms]", modules) has none here. As
 * srclines__find.
 */
int srclines__frame(struct srclines *s, const char *dso, size_t dso_len, uint64_t offset, bool leaf,
		    struct srcline *out, const char **reason);

/*
 * Where the code at addr was inlined: the call sites of its inline chain,
 * innermost first (each a line of the function it was inlined into), up to
 * max. The number found (0 when not inlined or no information), -ENOMEM.
 */
int srclines__inlined_at(struct srclines *s, const char *path, size_t path_len, uint64_t addr, struct srcline *out,
			 size_t max);

#endif
