/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "symbols/cfi.h"

#include <dwarf.h>
#include <stdbool.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arch.h"
#include "symbols/ehframe.h"

/* the frame pointer, stack pointer and return address's DWARF numbers (arch.h) */
enum { DWARF_RBP = LP_DWARF_FP, DWARF_RSP = LP_DWARF_SP, DWARF_RA = LP_DWARF_RA, DWARF_LINK = LP_DWARF_LINK,
       DWARF_ALT = LP_DWARF_ALT };

struct cfi {
	int fd;
	Elf *elf;
	Dwarf_CFI *cfi;
	struct eh_frame *eh;	/* the common rules without libdw, or NULL */
};

/*
 * Where the rules compiled here are checked against libdw's (x86-64's
 * .eh_frame: tests/unit/test-ehframe.c); elsewhere libdw compiles them all.
 */
#if defined(__x86_64__)
enum { OWN_RULES = 1 };
#else
enum { OWN_RULES = 0 };
#endif

static struct cfi *wrap(int fd, Elf *elf)
{
	struct cfi *c;
	Dwarf_CFI *cfi = elf && elf_kind(elf) == ELF_K_ELF ? dwarf_getcfi_elf(elf) : NULL;

	if (!cfi) {
		if (elf)
			elf_end(elf);
		if (fd >= 0)
			close(fd);
		errno = ENOENT;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		dwarf_cfi_end(cfi);
		elf_end(elf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	c->fd = fd;
	c->elf = elf;
	c->cfi = cfi;
	c->eh = OWN_RULES ? eh_frame__from_elf(elf) : NULL;
	return c;
}

struct cfi *cfi__open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	/*
	 * Read, not mapped: the sections are kept to the end of the write
	 * phase, and a library cut short meanwhile (cp over it rewrites it in
	 * place) would make a mapping of it SIGBUS lp-record, losing the
	 * whole recording.
	 */
	return wrap(fd, elf_begin(fd, ELF_C_READ, NULL));
}

struct cfi *cfi__open_memory(const void *image, size_t size)
{
	elf_version(EV_CURRENT);
	return wrap(-1, elf_memory((char *)image, size));
}

void cfi__free(struct cfi *c)
{
	if (!c)
		return;
	eh_frame__free(c->eh);
	dwarf_cfi_end(c->cfi);
	elf_end(c->elf);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

static int reg(const struct user_regs *r, unsigned n, uint64_t *v)
{
	if (n == DWARF_RSP)
		*v = r->sp;
	else if (n == DWARF_RBP && r->bp == CFI_BP_UNKNOWN)
		return -ERANGE;
	else if (n == DWARF_RBP)
		*v = r->bp;
	else if (n == DWARF_LINK && r->link != CFI_LINK_UNKNOWN)
		*v = r->link;
	else if (n == DWARF_ALT && r->alt == CFI_ALT_UNKNOWN)
		return -ERANGE;
	else if (n == DWARF_ALT)
		*v = r->alt;
#if defined(__x86_64__)
	/* column 16 is %rip as well: the PLT's CFA expression asks where in an entry it is */
	else if (n == DWARF_RA)
		*v = r->ip;
#endif
	else
		return -ENOTSUP;
	return 0;
}

/* The stack snapshot: bytes from base. */
struct snapshot {
	const uint8_t *bytes;
	size_t size;
	uint64_t base;
};

static int load(const struct snapshot *st, uint64_t at, uint64_t *v)
{
	if (at < st->base || at - st->base + 8 > st->size)
		return -ERANGE;
	memcpy(v, st->bytes + (at - st->base), 8);
	return 0;
}

/*
 * A saved rbp or alternate register under the snapshot (under the sampled
 * %rsp, popped by an epilogue whose CFI keeps the slot until the ret) is no
 * failed step: rbp is CFI_BP_UNKNOWN; the alternate register is the value
 * the pop has just put back in it (compilers save it by push or in the
 * frame, never under %rsp).
 */
static int load_saved(const struct snapshot *st, uint64_t at, uint64_t unknown, uint64_t *v)
{
	if (at < st->base) {
		*v = unknown;
		return 0;
	}
	return load(st, at, v);
}

/* The arithmetic, logic and comparisons of two operands (a under b) the PLT's CFA expression uses, and their kin. */
static bool binary_op(uint8_t atom, uint64_t a, uint64_t b, uint64_t *v)
{
	switch (atom) {
	case DW_OP_and: *v = a & b; break;
	case DW_OP_or: *v = a | b; break;
	case DW_OP_xor: *v = a ^ b; break;
	case DW_OP_mul: *v = a * b; break;
	case DW_OP_shl: *v = b < 64 ? a << b : 0; break;
	case DW_OP_shr: *v = b < 64 ? a >> b : 0; break;
	/* comparisons are of signed values */
	case DW_OP_eq: *v = a == b; break;
	case DW_OP_ne: *v = a != b; break;
	case DW_OP_lt: *v = (int64_t)a < (int64_t)b; break;
	case DW_OP_le: *v = (int64_t)a <= (int64_t)b; break;
	case DW_OP_gt: *v = (int64_t)a > (int64_t)b; break;
	case DW_OP_ge: *v = (int64_t)a >= (int64_t)b; break;
	default: return false;
	}
	return true;
}

/*
 * Evaluates the small expressions CFI uses; *is_value when the result is a
 * value, not an address. DW_OP_deref reads the snapshot: a signal frame's
 * CFA is the interrupted stack pointer, saved in the signal context.
 */
static int eval(const Dwarf_Op *ops, size_t n, uint64_t cfa, const struct user_regs *r,
		const struct snapshot *snap, uint64_t *out, int *is_value)
{
	uint64_t st[8];
	size_t sp = 0;

	*is_value = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t a = ops[i].atom;
		uint64_t v;

		if (sp >= 8)
			return -ENOTSUP;
		if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
			if (reg(r, a - DW_OP_breg0, &v) < 0)
				return -ENOTSUP;
			st[sp++] = v + (uint64_t)(int64_t)ops[i].number;
		} else if (a == DW_OP_bregx) {
			if (reg(r, (unsigned)ops[i].number, &v) < 0)
				return -ENOTSUP;
			st[sp++] = v + (uint64_t)(int64_t)ops[i].number2;
		} else if ((a >= DW_OP_reg0 && a <= DW_OP_reg31) || a == DW_OP_regx) {
			/* the value is in that register (a "register" rule: glibc's vfork keeps its return address in rdi) */
			if (reg(r, a == DW_OP_regx ? (unsigned)ops[i].number : (unsigned)(a - DW_OP_reg0), &v) < 0)
				return -ENOTSUP;
			st[sp++] = v;
			*is_value = 1;
		} else if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			st[sp++] = a - DW_OP_lit0;
		} else if (a == DW_OP_call_frame_cfa) {
			st[sp++] = cfa;
		} else if (a == DW_OP_consts || a == DW_OP_constu) {
			st[sp++] = ops[i].number;
		} else if (a == DW_OP_plus_uconst && sp >= 1) {
			st[sp - 1] += ops[i].number;
		} else if (a == DW_OP_plus && sp >= 2) {
			st[sp - 2] += st[sp - 1];
			sp--;
		} else if (a == DW_OP_minus && sp >= 2) {
			st[sp - 2] -= st[sp - 1];
			sp--;
		} else if (sp >= 2 && binary_op(a, st[sp - 2], st[sp - 1], &v)) {
			st[sp - 2] = v;
			sp--;
		} else if (a == DW_OP_stack_value) {
			*is_value = 1;
		} else if (a == DW_OP_deref && sp >= 1) {
			int ret = load(snap, st[sp - 1], &st[sp - 1]);

			if (ret < 0)
				return ret;
		} else {
			return -ENOTSUP;
		}
	}
	/* the top of the stack: libdw puts the CFA under a register's expression, as DWARF says */
	if (sp < 1)
		return -ENOTSUP;
	*out = st[sp - 1];
	return 0;
}

/* The value of register regno in the caller: 0, or -errno. */
static int caller_register(Dwarf_Frame *frame, int regno, uint64_t cfa, const struct user_regs *regs,
			  const struct snapshot *snap, uint64_t same, uint64_t *out)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	uint64_t where;
	int is_value, ret;

	if (dwarf_frame_register(frame, regno, mem, &ops, &nops) != 0)
		return -ENOTSUP;
	if (nops == 0) {
		if (ops == NULL) {	/* same value */
			*out = same;
			return 0;
		}
		return -ENODATA;	/* undefined: the outermost frame */
	}
	if ((ret = eval(ops, nops, cfa, regs, snap, &where, &is_value)) < 0)
		return ret == -ERANGE ? ret : -ENOTSUP;
	if (is_value) {
		*out = where;
		return 0;
	}
	if (regno == DWARF_RBP || regno == DWARF_ALT)
		return load_saved(snap, where, regno == DWARF_RBP ? CFI_BP_UNKNOWN : same, out);
	return load(snap, where, out);
}

int cfi__step(struct cfi *c, uint64_t pc, const struct user_regs *regs, const uint8_t *stack,
	      size_t size, uint64_t stack_base, struct user_regs *caller)
{
	const struct snapshot snap = { stack, size, stack_base };
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t nops;
	uint64_t cfa;
	int is_value, ret = -ENOTSUP;

	if (dwarf_cfi_addrframe(c->cfi, pc, &frame) != 0)
		return -ENOENT;
	if (dwarf_frame_cfa(frame, &ops, &nops) != 0 || nops == 0)
		goto cleanup;
	if ((ret = eval(ops, nops, 0, regs, &snap, &cfa, &is_value)) < 0) {
		ret = ret == -ERANGE ? ret : -ENOTSUP;
		goto cleanup;
	}
	/* where the return address column is the link register, "same value" is that register's */
	ret = caller_register(frame, DWARF_RA, cfa, regs, &snap,
			      DWARF_RA == DWARF_LINK && regs->link != CFI_LINK_UNKNOWN ? regs->link : 0, &caller->ip);
	if (ret == 0)
		ret = caller_register(frame, DWARF_RBP, cfa, regs, &snap, regs->bp, &caller->bp);
	if (ret == 0) {
		int alt = caller_register(frame, DWARF_ALT, cfa, regs, &snap, regs->alt, &caller->alt);

		/* "undefined" is libdw's x86-64 default for rbx, which the psABI has callers keep */
		if (alt == -ENODATA)
			caller->alt = regs->alt;
		else if (alt < 0)
			caller->alt = CFI_ALT_UNKNOWN;
	}
	caller->sp = cfa;
	caller->link = CFI_LINK_UNKNOWN;
cleanup:
	free(frame);
	return ret;
}

/* An offset rule: DW_OP_call_frame_cfa, DW_OP_consts N (or lit/constu), DW_OP_plus, as libdw gives it. */
static bool offset_rule(const Dwarf_Op *ops, size_t n, int32_t *off)
{
	if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return true;
	}
	if (n == 3 && ops[0].atom == DW_OP_call_frame_cfa && ops[2].atom == DW_OP_plus &&
	    (ops[1].atom == DW_OP_consts || ops[1].atom == DW_OP_constu)) {
		*off = (int32_t)(int64_t)ops[1].number;
		return true;
	}
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int32_t)ops[1].number;
		return true;
	}
	return false;
}

int cfi__rule(struct cfi *c, uint64_t pc, struct cfi_rule *rule)
{
	/* what it does not compile (or finds no FDE for), libdw does */
	if (c->eh && eh_frame__rule(c->eh, pc, rule) == 0)
		return 0;
	return cfi__rule_reference(c, pc, rule);
}

int cfi__function_start(struct cfi *c, uint64_t pc, uint64_t *start)
{
	return c->eh ? eh_frame__function_start(c->eh, pc, start) : -ENOTSUP;
}

int cfi__rule_reference(struct cfi *c, uint64_t pc, struct cfi_rule *rule)
{
	Dwarf_Frame *frame = NULL;
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int ret = 0;

	memset(rule, 0, sizeof(*rule));
	if (dwarf_cfi_addrframe(c->cfi, pc, &frame) != 0)
		return -ENOENT;
	/* augmentation 'S': the caller was interrupted at its ip, not called from before it */
	bool signal = false;

	if (dwarf_frame_info(frame, NULL, NULL, &signal) >= 0)
		rule->signal = signal;
	if (dwarf_frame_cfa(frame, &ops, &nops) != 0 || nops != 1)
		goto cleanup;
	if (ops[0].atom == DW_OP_breg0 + DWARF_RSP || ops[0].atom == DW_OP_breg0 + DWARF_RBP ||
	    ops[0].atom == DW_OP_breg0 + DWARF_ALT) {
		rule->cfa_reg = (uint8_t)(ops[0].atom - DW_OP_breg0);
		rule->cfa_off = (int32_t)(int64_t)ops[0].number;
	} else if (ops[0].atom == DW_OP_bregx &&
		   (ops[0].number == DWARF_RSP || ops[0].number == DWARF_RBP || ops[0].number == DWARF_ALT)) {
		rule->cfa_reg = (uint8_t)ops[0].number;
		rule->cfa_off = (int32_t)(int64_t)ops[0].number2;
	} else {
		goto cleanup;
	}
	if (dwarf_frame_register(frame, DWARF_RA, mem, &ops, &nops) != 0)
		goto cleanup;
	if (nops == 0) {
		if (ops != NULL)
			rule->outermost = 1;	/* undefined */
		else
			goto cleanup;
	} else if (!offset_rule(ops, nops, &rule->ra_off)) {
		goto cleanup;
	}
	if (dwarf_frame_register(frame, DWARF_RBP, mem, &ops, &nops) != 0)
		goto cleanup;
	if (nops == 0 && ops == NULL)
		rule->bp_saved = 0;
	else if (nops && offset_rule(ops, nops, &rule->bp_off))
		rule->bp_saved = 1;
	else
		goto cleanup;
	if (dwarf_frame_register(frame, DWARF_ALT, mem, &ops, &nops) != 0)
		goto cleanup;
	/* undefined as well as the same: see cfi__step */
	if (nops == 0)
		rule->alt_saved = 0;
	else if (offset_rule(ops, nops, &rule->alt_off))
		rule->alt_saved = 1;
	else
		rule->alt_saved = CFI_ALT_LOST;
	rule->simple = 1;
cleanup:
	free(frame);
	return ret;
}

int cfi_rule__step(const struct cfi_rule *rule, const struct user_regs *regs, const uint8_t *stack,
		   size_t size, uint64_t stack_base, struct user_regs *caller)
{
	const struct snapshot snap = { stack, size, stack_base };
	uint64_t base = rule->cfa_reg == DWARF_RSP ? regs->sp : rule->cfa_reg == DWARF_RBP ? regs->bp : regs->alt;
	uint64_t cfa = base + (uint64_t)(int64_t)rule->cfa_off;
	int ret;

	if (rule->outermost)
		return -ENODATA;
	if ((rule->cfa_reg == DWARF_RBP && regs->bp == CFI_BP_UNKNOWN) ||
	    (rule->cfa_reg == DWARF_ALT && regs->alt == CFI_ALT_UNKNOWN))
		return -ERANGE;
	if ((ret = load(&snap, cfa + (uint64_t)(int64_t)rule->ra_off, &caller->ip)) < 0)
		return ret;
	caller->bp = regs->bp;
	if (rule->bp_saved &&
	    (ret = load_saved(&snap, cfa + (uint64_t)(int64_t)rule->bp_off, CFI_BP_UNKNOWN, &caller->bp)) < 0)
		return ret;
	caller->alt = rule->alt_saved == CFI_ALT_LOST ? CFI_ALT_UNKNOWN : regs->alt;
	if (rule->alt_saved == 1 &&
	    load_saved(&snap, cfa + (uint64_t)(int64_t)rule->alt_off, regs->alt, &caller->alt) < 0)
		caller->alt = CFI_ALT_UNKNOWN;
	caller->sp = cfa;
	caller->link = CFI_LINK_UNKNOWN;
	return 0;
}
