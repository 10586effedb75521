/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unwinding a user stack copy with CFI, one place (file and address) at a time, and what CFI says of a frame. */
#include "symbols/symbolizer-int.h"

#include <errno.h>
#include <string.h>

#include "base/arch.h"
#include "symbols/fpchain.h"
#include "base/hash.h"

/*
 * Whether file address addr of file is in the stub at its entry point that
 * calls into the program or the loader: the first frame of every process.
 * The dynamic loader's _start has no CFI (its RTLD_START is bare assembly),
 * so unwinding from a sample in the loader ends there without CFI saying
 * "outermost"; its entry point says it.
 */
static bool at_entry(struct symbolizer *s, uint32_t file, uint64_t addr)
{
	struct elfsym *e = symbolizer__file_symbols(s, &s->files[file]);
	uint64_t entry = e ? elfsym__entry(e) : 0;

	/*
	 * x86-64's stub calls _dl_start at +3 and _dl_init at +0x2b and ends by
	 * +0x40, where the next function's CFI starts: a return address without
	 * CFI that close to the entry is in it.
	 */
	return entry && addr >= entry && addr < entry + 64;
}

/* The CFI, the file and the file address of ip in pid, or NULL. */
static struct cfi *cfi_at(struct symbolizer *s, pid_t pid, uint64_t ip, uint64_t *addr, uint32_t *file)
{
	struct process *p = symbolizer__process(s, pid, false);
	struct mapping *m = p ? symbolizer__mapping_at(p, ip) : NULL;
	struct file *f;
	struct elfsym *e;
	struct cfi *c;

	if (!m)
		return NULL;
	f = &s->files[m->file];
	e = symbolizer__file_symbols(s, f);
	c = symbolizer__file_cfi(s, f);
	if (!e || !c || !elfsym__offset_to_addr(e, ip - m->start + m->pgoff, addr))
		return NULL;
	*file = m->file;
	return c;
}

/* The rule at addr of file, compiled once; NULL when out of memory. */
static const struct cached_rule *rule_at(struct symbolizer *s, struct cfi *c, uint32_t file, uint64_t addr)
{
	struct cached_rule *e;
	uint64_t h = hash_mix(addr ^ ((uint64_t)file << 48));

	if (htab__reserve(&s->rules) < 0)
		return NULL;
	for (size_t i = h; (e = htab__at(&s->rules, i))->head.used; i++)
		if (e->head.hash == h && e->addr == addr && e->file == file)
			return e;
	htab__insert(&s->rules, e, h);
	e->addr = addr;
	e->file = file;
	e->status = cfi__rule(c, addr, &e->rule);
	return e;
}

/*
 * Where ip of pid is, for unwinding. Not cached by address: the rule is
 * (per file), and a table per process address grew with every short-lived
 * process of a build and made the write phase slower, not faster.
 */
static void place_at(struct symbolizer *s, pid_t pid, uint64_t ip, struct code_place *p)
{
	const struct cached_rule *rule;

	*p = (struct code_place){ .status = -ENOENT };
	p->cfi = cfi_at(s, pid, ip, &p->addr, &p->file);
	if (p->cfi) {
		rule = rule_at(s, p->cfi, p->file, p->addr);
		/* without room to keep the rule, it is evaluated afresh (status 0, not simple) */
		p->status = rule ? rule->status : 0;
		if (rule)
			p->rule = rule->rule;
	}
}

/* One unwinding step at a place with CFI. */
static int step(const struct code_place *p, const struct user_regs *r, const uint8_t *stack, size_t size,
		uint64_t base, struct user_regs *caller)
{
	if (p->status < 0)
		return p->status;
	if (p->rule.simple)
		return cfi_rule__step(&p->rule, r, stack, size, base, caller);
	return cfi__step(p->cfi, p->addr, r, stack, size, base, caller);
}

/* Whether CFI covers ip of pid (a return address: the call before it). */
static bool cfi_covers(struct symbolizer *s, pid_t pid, uint64_t ip)
{
	struct code_place p;

	place_at(s, pid, ip - 1, &p);
	return p.cfi && p.status != -ENOENT;
}

/*
 * The sampled instruction is in code no CFI describes: glibc ends clone3's
 * FDE before its syscall, as the child's unwind information would be wrong,
 * so a thread's spawn stack is taken there. Such code has no frame of its
 * own: the return address is on top of the stack. Believed only when CFI
 * covers the call it returns to.
 */
static int frameless_step(struct symbolizer *s, pid_t pid, const struct user_regs *r, const uint8_t *stack,
			  size_t size, uint64_t base, struct user_regs *caller)
{
	uint64_t ra;

	if (r->sp < base || r->sp - base + 8 > size)
		return -ERANGE;
	memcpy(&ra, stack + (r->sp - base), 8);
	if (ra < 4096 || !cfi_covers(s, pid, ra))
		return -ENOENT;
	*caller = (struct user_regs){ .ip = ra, .sp = r->sp + 8, .bp = r->bp, .link = CFI_LINK_UNKNOWN, .alt = r->alt };
	return 0;
}

/*
 * A return address in code no CFI describes, of a file whose other code CFI
 * does: gcc builds crtstuff's __do_global_dtors_aux, which runs a program's
 * destructors at its exit, without CFI and with a frame pointer. Past the
 * call it made (at a sample only where the frame pointer is the stack
 * pointer: else its prologue may not have run), its frame record gives its
 * caller, believed when that is code CFI covers.
 */
static int frame_record_step(struct symbolizer *s, pid_t pid, const struct user_regs *r, const uint8_t *stack,
			     size_t size, uint64_t base, struct user_regs *caller)
{
	uint64_t next, ra;
	int ret;

	if (r->bp == CFI_BP_UNKNOWN)
		return -ENOENT;
	if ((ret = fp_chain__record(base, r->sp, r->bp, stack, size, &next, &ra)) < 0)
		return ret;
	if (ra < 4096 || !cfi_covers(s, pid, ra))
		return -ENOENT;
	/* (what it did with the alternate register, no CFI says) */
	*caller = (struct user_regs){ .ip = ra, .sp = r->bp + 16, .bp = next, .link = CFI_LINK_UNKNOWN,
				      .alt = CFI_ALT_UNKNOWN };
	return 0;
}

size_t symbolizer__unwind(struct symbolizer *s, pid_t pid, const struct user_regs *regs,
			  const uint8_t *stack, size_t size, uint64_t *ras, size_t max, uint64_t *exact_ras,
			  enum sym_unwind_end *end, const uint64_t *known, size_t nknown, uint64_t *cfas,
			  uint64_t *last_bp)
{
	struct user_regs r = *regs, caller;
	bool exact = true;	/* r.ip is where its function was interrupted, not a return address */
	size_t n = 0;

	*end = SYM_UNWIND_NO_RULE;
	*exact_ras = 0;
	while (n < max) {
		/* return addresses point after the call: look up the call itself */
		struct code_place p;

		place_at(s, pid, exact ? r.ip : r.ip - 1, &p);
		/*
		 * Sampled inside rt_sigreturn, the signal trampoline's last
		 * instruction: ip is past its FDE, and the registers are still the
		 * trampoline's (the kernel has not restored the interrupted ones).
		 */
		if (n == 0 && p.cfi && p.status == -ENOENT) {
			struct code_place before;

			place_at(s, pid, r.ip - 1, &before);
			if (before.status == 0 && before.rule.signal)
				p = before;
		}
		int ret = p.cfi ? step(&p, &r, stack, size, regs->sp, &caller) : -ENOENT;

		if (ret == -ENOENT && p.cfi && n == 0)
			ret = frameless_step(s, pid, &r, stack, size, regs->sp, &caller);
		if (ret == -ENOENT && p.cfi) {
			/* (a sample in the stub too: the first instruction a process runs after exec is sampled) */
			if (at_entry(s, p.file, p.addr))
				ret = -ENODATA;
			/* at the sample only where the frame pointer is the stack pointer: its prologue (push, mov) has run */
			else if (n > 0 || r.bp == r.sp)
				ret = frame_record_step(s, pid, &r, stack, size, regs->sp, &caller);
		}
		if (ret == -ENODATA)
			*end = SYM_UNWIND_OUTERMOST;
		/* with rbp unknown (CFI_BP_UNKNOWN) it may not be: a bigger copy would not have rbp either */
		else if (ret == -ERANGE && r.bp != CFI_BP_UNKNOWN)
			*end = SYM_UNWIND_PAST_COPY;
		/*
		 * The stack pointer only grows toward the callers, but a leaf whose
		 * return address is in a register (vfork's in rdi, arm64's in x30)
		 * leaves it as it is.
		 */
		if (ret < 0 || caller.ip < 4096 || caller.sp < r.sp || (caller.sp == r.sp && n > 0))
			break;
		/*
		 * Through a signal frame: the trampoline the handler returned to
		 * (its CFI starts a byte early, its symbol does not) and the
		 * interrupted instruction are both named by their own address.
		 */
		if (p.rule.signal && n < 64)
			*exact_ras |= (n > 0 ? 3ull << (n - 1) : 1);
		if (cfas)
			cfas[n] = caller.sp;
		ras[n++] = caller.ip;
		/*
		 * Two callers in a row where that chain has them: it is right from
		 * there, if it goes on. Where it ends there (a caller without a frame
		 * pointer, as libc's __libc_start_call_main), CFI goes on alone, so
		 * every thread's stacks have the same root.
		 */
		for (size_t i = 1; n >= 2 && i + 1 < nknown; i++)
			if (known[i] == caller.ip && known[i - 1] == ras[n - 2]) {
				*end = SYM_UNWIND_JOINED;
				return n;
			}
		r = caller;
		/* past a signal frame (libc's __restore_rt), the interrupted code */
		exact = p.rule.signal;
	}
	/* (deep stacks of code without frame pointers: C++ compilers, parsers) */
	if (n == max && max > 0)
		*end = SYM_UNWIND_MAX;
	if (last_bp)
		*last_bp = r.bp;
	return n;
}

size_t symbolizer__unwind_on(struct symbolizer *s, pid_t pid, uint64_t ra, uint64_t sp, uint64_t bp,
			     const uint8_t *stack, size_t size, uint64_t *ras, size_t max, uint64_t *exact_ras,
			     enum sym_unwind_end *end, uint64_t *cfas, uint64_t *last_bp)
{
	/* (looked up as an interrupted instruction would be: the call before the return address) */
	const struct user_regs r = { .ip = ra - 1, .sp = sp, .bp = bp, .link = CFI_LINK_UNKNOWN, .alt = CFI_ALT_UNKNOWN };

	return symbolizer__unwind(s, pid, &r, stack, size, ras, max, exact_ras, end, NULL, 0, cfas, last_bp);
}

enum sym_frame_kind symbolizer__frame_kind(struct symbolizer *s, pid_t pid, uint64_t ip, bool sampled)
{
	struct code_place p;

	place_at(s, pid, sampled ? ip : ip - 1, &p);
	if (!p.cfi)
		return SYM_FRAME_UNKNOWN;
	if (p.status == -ENOENT && at_entry(s, p.file, p.addr))
		return SYM_FRAME_ENTRY;
	if (p.status != 0 || !p.rule.simple || p.rule.outermost || p.rule.cfa_reg == LP_DWARF_ALT)
		return SYM_FRAME_UNKNOWN;
	if (p.rule.cfa_reg == LP_DWARF_FP)
		return SYM_FRAME_POINTER;
	return p.rule.bp_saved ? SYM_FRAME_SCRATCH : SYM_FRAME_NONE;
}

/* The function return address ra of pid returns into (its call's), or NULL where no symbol says. */
static const char *function_of(struct symbolizer *s, struct process *p, uint64_t ra)
{
	struct mapping *m = symbolizer__mapping_at(p, ra - 1);
	struct elfsym *e = m ? symbolizer__file_symbols(s, &s->files[m->file]) : NULL;
	uint64_t addr;

	if (!e || !elfsym__offset_to_addr(e, ra - 1 - m->start + m->pgoff, &addr))
		return NULL;
	return elfsym__lookup(e, addr);
}

/* Where the code return address ra of pid returns into begins by its FDE, and in which file: false where no FDE says. */
static bool fde_of(struct symbolizer *s, pid_t pid, uint64_t ra, uint32_t *file, uint64_t *start)
{
	uint64_t addr;
	struct cfi *c = cfi_at(s, pid, ra - 1, &addr, file);

	return c && cfi__function_start(c, addr, start) == 0;
}

bool symbolizer__same_function(struct symbolizer *s, pid_t pid, uint64_t a, uint64_t b)
{
	struct process *p = symbolizer__process(s, pid, false);
	const char *fa, *fb;
	uint32_t file_a, file_b;
	uint64_t start_a, start_b;

	if (a == b)
		return true;
	if (!p || a < 4096 || b < 4096)
		return false;
	/* the symbol's name is kept once: one function, one pointer */
	fa = function_of(s, p, a);
	fb = function_of(s, p, b);
	if (fa || fb)
		return fa == fb;
	/* code no symbol names (a stripped file's own functions): the same FDE of the same file */
	return fde_of(s, pid, a, &file_a, &start_a) && fde_of(s, pid, b, &file_b, &start_b) && file_a == file_b &&
	       start_a == start_b;
}
