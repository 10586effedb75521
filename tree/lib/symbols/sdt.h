/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * USDT probes (<sys/sdt.h>'s ELF notes, ".note.stapsdt") of one ELF file:
 * where each is, as the uprobe PMU wants it (an offset in the file), and
 * where its arguments are (the note's "SIZE@OPERAND" text).
 */
#ifndef LP_SDT_H
#define LP_SDT_H

#include <stdint.h>

struct sdt_probe {
	const char *provider, *name;
	const char *args;	/* "8@%rax 4@-8(%rbp)", "" for none */
	uint64_t offset;	/* of the probe's instruction in the file */
	uint64_t semaphore;	/* its semaphore's address (0: none) */
};

/*
 * Calls fn for each probe of path (stopping at fn's first nonzero return,
 * which is returned); 0 when it has none; -errno when path cannot be read as
 * ELF, -EINVAL for a note that says a probe lies outside the file's code.
 */
int sdt__each(const char *path, int (*fn)(void *ctx, const struct sdt_probe *p), void *ctx);

/*
 * One argument of a probe, as the note's operand gives it: a register,
 * memory at a register plus a displacement, or a constant.
 */
struct sdt_arg {
	enum { SDT_ARG_REG, SDT_ARG_MEM, SDT_ARG_CONST } kind;
	int reg;		/* perf's register number (sample_regs_user bit) */
	int64_t value;		/* the displacement, or the constant */
	int size;		/* bytes, negative when signed */
};

/* Parses argument n (0-based) of args: 0, or -EINVAL (or -ENOENT: there are fewer). */
int sdt_arg__parse(const char *args, int n, struct sdt_arg *a);

#endif
