/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Exact counts of an emulated run (lp-roofline record --emulate): what
 * lp-count, lp's QEMU plugin (qemu/lp-count.c), wrote per process — the
 * blocks of guest code each thread ran, how often, the bytes their loads
 * and stores moved and the FP instructions in them — named by lp's
 * symbolizer and summed per thread and function, then written as K records.
 *
 * The plugin's file, one per process, a line each:
 *   lp-count 1 ARCH          pid PID
 *   map START END PGOFF PATH (guest addresses, hex; code QEMU translated)
 *   block ID START LAST NINSNS MAP
 *   fp ID ADDR FLOPS ISA PRECISION   (an FP instruction of block ID)
 *   thread TID               count ID EXECS LOADED STORED (that thread's)
 *   unsupported ADDR WHAT    exec PATH    lost N    end
 */
#ifndef LP_EMUCOUNTS_H
#define LP_EMUCOUNTS_H

#include <stdio.h>

#include "base/error.h"

struct emucounts;

struct emucounts *emucounts__new(lp_warn_fn warn, void *ctx);
void emucounts__free(struct emucounts *e);

/*
 * Reads one process's file and adds its counts; -errno with err set
 * (naming the file and line). A file without its "end" line is an error:
 * the process did not finish writing it. Warns of a program it exec'd (run
 * natively, not counted) and of FP instructions it could not count.
 */
int emucounts__read(struct emucounts *e, const char *path, struct lp_error *err);

/* The instruction set of the first instruction QEMU could not run ("avx512"...), or NULL. */
const char *emucounts__unsupported(const struct emucounts *e);

/* The counts as a stream of K records (version line, records, trailer): 0 or -EIO. */
int emucounts__write(struct emucounts *e, FILE *out, struct lp_error *err);

#endif
