/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Programs' symbols and CFI read while the command runs, on a thread of its
 * own, rather than at each file's first frame in the write phase: what is
 * left to do once the command ends is shorter by the reading of every file
 * (libc's 12 ms of debug symbols, a compiler's far more), and a program that
 * is deleted before the command ends (a build's test binary) is read while
 * it is still there. The caches the write phase fills can be made ready
 * too: their pages faulted in while there is time.
 */
#ifndef LP_SYMLOAD_H
#define LP_SYMLOAD_H

#include <stddef.h>
#include <stdint.h>

struct symbolizer;
struct sym_loader;

/*
 * A loader into s, which is the loader's alone until sym_loader__free:
 * NULL+errno when its thread cannot start.
 */
struct sym_loader *sym_loader__new(struct symbolizer *s);

/*
 * Has path (its device and inode as in symbolizer__mmap) read, soon; a file
 * asked for again is not read again. Never waits for the reading: 0, or
 * -ENOMEM (the file is then read at its first frame, as without a loader).
 */
int sym_loader__add(struct sym_loader *l, const char *path, uint64_t dev, uint64_t ino);

/*
 * Has the symbolizer's caches made ready for about n different chains
 * (symbolizer__expect_chains), soon; never waits. 0 or -ENOMEM.
 */
int sym_loader__expect_chains(struct sym_loader *l, size_t n);

/* Waits for every file asked for to be read, then frees l; NULL is a no-op. */
void sym_loader__free(struct sym_loader *l);

#endif
