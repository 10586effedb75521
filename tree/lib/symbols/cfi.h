/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unwinding by a file's call frame information (.eh_frame), from the user
 * registers and a snapshot of the stack taken with the sample. This recovers the caller that
 * frame-pointer walking loses when the sampled function has no frame of its
 * own (leaf functions, Debian's libc).
 */
#ifndef LP_CFI_H
#define LP_CFI_H

#include <stddef.h>
#include <stdint.h>

struct cfi;

/* NULL+errno if path has no usable call frame information. */
struct cfi *cfi__open(const char *path);
/* The same for an ELF image in memory (the vdso). */
struct cfi *cfi__open_memory(const void *image, size_t size);
void cfi__free(struct cfi *c);

/*
 * link is the register a function may keep its return address in (arch.h):
 * known at the sample, CFI_LINK_UNKNOWN in its callers (nothing restores it),
 * 0 where it was not taken. alt is the callee-saved register some
 * hand-written code keeps its frame's address in (arch.h): kept or restored
 * as CFI says, as bp is.
 */
struct user_regs {
	uint64_t ip, sp, bp, link, alt;
};

#define CFI_LINK_UNKNOWN UINT64_MAX

/*
 * A caller's rbp saved below the snapshot: under the sampled %rsp, where an
 * epilogue has already popped it (gcc's CFI keeps the slot until the ret).
 * Its return address is still known; a rule that needs this rbp fails with
 * -ERANGE, as for any value the snapshot does not hold.
 */
#define CFI_BP_UNKNOWN UINT64_MAX
/*
 * The alternate register where its rule is one not evaluated: few frames
 * need it, and the others unwind on without it. (Saved under the sampled
 * %rsp, it was popped: its value is the register's own.)
 */
#define CFI_ALT_UNKNOWN UINT64_MAX
#define CFI_ALT_LOST 2

/*
 * One step of unwinding the frame at pc (an address of the file, as symbols
 * use), with regs its registers and stack the bytes from stack_base: the
 * caller's registers (ip = the return address, sp = the CFA, bp restored if
 * the frame saved it). 0, or -ENOENT (no rule covers pc), -ERANGE (a saved
 * value is outside the snapshot), -ENOTSUP (a rule this does not evaluate),
 * -ENODATA at the outermost frame (its return address is undefined).
 */
int cfi__step(struct cfi *c, uint64_t pc, const struct user_regs *regs, const uint8_t *stack,
	      size_t size, uint64_t stack_base, struct user_regs *caller);

/*
 * The common shapes of a frame's rules, compiled once per address: CFA =
 * register + offset, the return address saved at CFA + offset, rbp and the
 * alternate register each the same or saved at CFA + offset. signal is set
 * for every rule, simple or not.
 */
struct cfi_rule {
	uint8_t simple;		/* 0: evaluate with cfi__step */
	uint8_t cfa_reg;	/* a DWARF number: LP_DWARF_SP, _FP or _ALT */
	uint8_t bp_saved;	/* else the same value */
	uint8_t alt_saved;	/* else the same value; CFI_ALT_LOST: a rule not kept, the value unknown */
	uint8_t outermost;	/* the return address is undefined */
	uint8_t signal;		/* a signal frame: the caller's ip is where it was interrupted */
	int32_t cfa_off, ra_off, bp_off, alt_off;
};

/* Compiles the rule at pc: 0, or the errors of cfi__step. */
int cfi__rule(struct cfi *c, uint64_t pc, struct cfi_rule *rule);
/* The same by libdw alone: the reference cfi__rule's own reading is tested against. */
int cfi__rule_reference(struct cfi *c, uint64_t pc, struct cfi_rule *rule);

/*
 * Where the code described with pc's begins (its FDE's first address: a
 * function, or a part gcc split off): what tells functions apart where no
 * symbol names them. 0; -ENOENT; -ENOTSUP where only libdw reads the CFI.
 */
int cfi__function_start(struct cfi *c, uint64_t pc, uint64_t *start);

/* cfi__step with a compiled simple rule. */
int cfi_rule__step(const struct cfi_rule *rule, const struct user_regs *regs, const uint8_t *stack,
		   size_t size, uint64_t stack_base, struct user_regs *caller);

#endif
