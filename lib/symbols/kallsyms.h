/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Kernel symbols from /proc/kallsyms (and modules'), and JIT symbol maps (/tmp/perf-PID.map). */
#ifndef LP_KALLSYMS_H
#define LP_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* An address-sorted table of named ranges. */
struct symtab;

/* /proc/kallsyms (or path). NULL+errno; ENODATA when every address reads 0 (kptr_restrict). */
struct symtab *kallsyms__load(const char *path);
/* A perf map: "START SIZE NAME" lines in hex. NULL+errno; EINVAL with err's place and message set. */
struct symtab *perfmap__load(const char *path, struct lp_error *err);
void symtab__free(struct symtab *t);

/* The symbol at addr (and its module, "" for the kernel itself), or NULL. */
const char *symtab__lookup(const struct symtab *t, uint64_t addr, const char **module);

#endif
