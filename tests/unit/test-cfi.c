/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CFI rules given as DWARF expressions: a lazy PLT entry's CFA depends on
 * where in the entry the sample is (before or after its push), which
 * x86-64's CFI says as rsp + 8 + ((rip & 15) >= 11) * 8. A sample there
 * must give the entry's caller, not stop the unwinding.
 * And a sample in an epilogue, after rbp was popped: gcc's CFI still says
 * it is saved, at a slot now under %rsp, which the snapshot does not hold.
 * And a function that keeps its return address in a register, as glibc's
 * vfork does in rdi while the child runs on the same stack.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/arch.h"
#include "symbols/cfi.h"
#include "tap.h"

/*
 * gzip's deflate at 0x443c: CFA = rsp + 32, the return address at CFA - 8,
 * rbp "at CFA - 48", popped two instructions before.
 */
static void epilogue(void)
{
	const uint64_t base = 0x7ffd0000;
	uint64_t words[4] = { 0x1111, 0x2222, 0x3333, 0x401234 };
	struct cfi_rule popped = { .simple = 1, .cfa_reg = LP_DWARF_SP, .bp_saved = 1,
				   .cfa_off = 32, .ra_off = -8, .bp_off = -48 };
	struct cfi_rule by_bp = { .simple = 1, .cfa_reg = LP_DWARF_FP, .cfa_off = 16, .ra_off = -8 };
	struct user_regs regs = { .ip = 0x40443c, .sp = base, .bp = 0xb0 }, caller, next;

	ok(cfi_rule__step(&popped, &regs, (const uint8_t *)words, sizeof(words), base, &caller) == 0 &&
		   caller.ip == 0x401234 && caller.sp == base + 32 && caller.bp == CFI_BP_UNKNOWN,
	   "rbp saved under the snapshot: the caller is known, its rbp is not");
	ok(cfi_rule__step(&by_bp, &caller, (const uint8_t *)words, sizeof(words), base, &next) == -ERANGE,
	   "a frame whose CFA is that rbp stops there, with nothing made up");
	/* _dl_fixup at its ret: rbx's slot popped, under %rsp; the resolver above needs it */
	popped.alt_saved = 1;
	popped.alt_off = -56;
	regs.alt = 0x7ffd1000;
	ok(cfi_rule__step(&popped, &regs, (const uint8_t *)words, sizeof(words), base, &caller) == 0 &&
		   caller.ip == 0x401234 && caller.alt == 0x7ffd1000,
	   "rbx saved under the snapshot: popped, its value is the register's");
	popped.ra_off = -40;
	ok(cfi_rule__step(&popped, &regs, (const uint8_t *)words, sizeof(words), base, &caller) == -ERANGE,
	   "a return address under the snapshot is still no caller");
}

#if defined(__x86_64__)
/* glibc's vfork's shape: the return address popped into rdi around the system call */
void lp_test_vfork_like(void);
extern const char lp_test_vfork_like_popped[];
__asm__(".text\n"
	".globl lp_test_vfork_like\n"
	".type lp_test_vfork_like, @function\n"
	"lp_test_vfork_like:\n"
	".cfi_startproc\n"
	"	popq %rdi\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	.cfi_register rip, rdi\n"
	".globl lp_test_vfork_like_popped\n"
	"lp_test_vfork_like_popped:\n"
	"	nop\n"
	"	pushq %rdi\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	.cfi_rel_offset rip, 0\n"
	"	ret\n"
	".cfi_endproc\n"
	".size lp_test_vfork_like, .-lp_test_vfork_like\n");

static int main_program_base(struct dl_phdr_info *info, size_t size, void *base)
{
	(void)size;
	*(uint64_t *)base = info->dlpi_addr;
	return 1;	/* the first is the program itself */
}

static void return_address_in_a_register(const char *path)
{
	const uint64_t base = 0x7ffd0000;
	uint64_t words[2] = { 0x1111, 0x2222 }, load = 0;
	struct user_regs regs, caller;
	struct cfi *c = cfi__open(path);
	uint64_t pc;

	dl_iterate_phdr(main_program_base, &load);
	pc = (uint64_t)(uintptr_t)lp_test_vfork_like_popped - load;
	regs = (struct user_regs){ .ip = pc, .sp = base, .bp = 0xb0, .link = 0x401234 };
	ok(c && cfi__step(c, pc, &regs, (const uint8_t *)words, sizeof(words), base, &caller) == 0 &&
		   caller.ip == 0x401234 && caller.sp == base && caller.bp == 0xb0 && caller.link == CFI_LINK_UNKNOWN,
	   "the return address in rdi, the stack pointer the caller's");
	regs.link = CFI_LINK_UNKNOWN;
	ok(c && cfi__step(c, pc, &regs, (const uint8_t *)words, sizeof(words), base, &caller) == -ENOTSUP,
	   "in a caller, where rdi is not known, no caller is made up");
	cfi__free(c);
}
#endif

#if defined(__x86_64__)
/*
 * glibc's _dl_runtime_resolve's shape: the stack realigned, the frame's
 * address kept in rbx, and a callee that saves rbx before using it.
 */
void lp_test_resolve_like(void);
extern const char lp_test_resolve_like_called[], lp_test_saves_rbx_body[];
__asm__(".text\n"
	".globl lp_test_resolve_like\n"
	".type lp_test_resolve_like, @function\n"
	"lp_test_resolve_like:\n"
	".cfi_startproc\n"
	"	pushq %rbx\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	.cfi_rel_offset rbx, 0\n"
	"	movq %rsp, %rbx\n"
	"	.cfi_def_cfa_register rbx\n"
	"	andq $-64, %rsp\n"
	"	call lp_test_saves_rbx\n"
	".globl lp_test_resolve_like_called\n"
	"lp_test_resolve_like_called:\n"
	"	movq %rbx, %rsp\n"
	"	.cfi_def_cfa_register rsp\n"
	"	popq %rbx\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	.cfi_restore rbx\n"
	"	ret\n"
	".cfi_endproc\n"
	".size lp_test_resolve_like, .-lp_test_resolve_like\n"
	".type lp_test_saves_rbx, @function\n"
	"lp_test_saves_rbx:\n"
	".cfi_startproc\n"
	"	pushq %rbx\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	.cfi_rel_offset rbx, 0\n"
	"	xorl %ebx, %ebx\n"
	".globl lp_test_saves_rbx_body\n"
	"lp_test_saves_rbx_body:\n"
	"	popq %rbx\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	.cfi_restore rbx\n"
	"	ret\n"
	".cfi_endproc\n"
	".size lp_test_saves_rbx, .-lp_test_saves_rbx\n");

/* Its rule and libdw's, each step taken with cfi_rule__step where the rule is simple. */
static int step_at(struct cfi *c, uint64_t pc, const struct user_regs *regs, const uint64_t *words, size_t size,
		   uint64_t base, struct user_regs *caller)
{
	struct cfi_rule rule;
	int ret = cfi__rule(c, pc, &rule);

	if (ret < 0)
		return ret;
	if (rule.simple)
		return cfi_rule__step(&rule, regs, (const uint8_t *)words, size, base, caller);
	return cfi__step(c, pc, regs, (const uint8_t *)words, size, base, caller);
}

static void frame_kept_in_rbx(const char *path)
{
	const uint64_t base = 0x7ffd0000, frame = base + 64;
	/* the callee's saved rbx and return address; padding to the realigned frame; its saved rbx and return address */
	uint64_t words[12] = { frame, 0, 0, 0, 0, 0, 0, 0, 0x5555, 0x401234, 0, 0 }, load = 0;
	struct user_regs regs, resolver, caller;
	struct cfi *c = cfi__open(path);
	uint64_t body, called;

	dl_iterate_phdr(main_program_base, &load);
	body = (uint64_t)(uintptr_t)lp_test_saves_rbx_body - load;
	called = (uint64_t)(uintptr_t)lp_test_resolve_like_called - load;
	words[1] = (uint64_t)(uintptr_t)lp_test_resolve_like_called;
	/* in the callee, where rbx is 0: the resolver's rbx comes back from the callee's frame */
	regs = (struct user_regs){ .ip = body, .sp = base, .bp = 0xb0, .alt = 0 };
	ok(c && step_at(c, body, &regs, words, sizeof(words), base, &resolver) == 0 &&
		   resolver.ip == words[1] && resolver.sp == base + 16 && resolver.alt == frame,
	   "a callee that saved rbx gives it back to its caller");
	resolver.ip = called;
	ok(c && step_at(c, called - 1, &resolver, words, sizeof(words), base, &caller) == 0 &&
		   caller.ip == 0x401234 && caller.sp == frame + 16 && caller.alt == 0x5555 && caller.bp == 0xb0,
	   "a frame whose CFA is rbx + 16 gives its caller, and the caller's own rbx");
	resolver.alt = CFI_ALT_UNKNOWN;
	ok(c && step_at(c, called - 1, &resolver, words, sizeof(words), base, &caller) == -ERANGE,
	   "where rbx is not known, no caller is made up");
	cfi__free(c);
}
#endif

/* The file address of this program's section name, 0 when it has none. */
static uint64_t section_addr(const char *path, const char *name, uint64_t *size)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint64_t addr = 0;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *n;

			if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) && !strcmp(n, name)) {
				addr = sh.sh_addr;
				*size = sh.sh_size;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return addr;
}

int main(void)
{
	epilogue();
#if defined(__x86_64__)
	char path[4096];
	ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 1);
	uint64_t plt_size = 0, plt = 0, words[4] = { 0x1111, 0x2222, 0x3333, 0x4444 };
	const uint64_t base = 0x7ffd0000;
	struct user_regs regs, caller;
	struct cfi *c;

	if (len > 0)
		path[len] = 0;
	if (len > 0)
		return_address_in_a_register(path);
	if (len > 0)
		frame_kept_in_rbx(path);
	if (len > 0)
		plt = section_addr(path, ".plt", &plt_size);
	if (!plt || plt_size < 32 || plt % 16) {
		printf("# skip the PLT: this test program has no lazy PLT entries\n");
		return tap_done();
	}
	c = cfi__open(path);
	ok(c != NULL, "this program's CFI");
	/* the second entry (the first is the resolver's): at its jmp, then after its push */
	regs = (struct user_regs){ .ip = plt + 16 + 3, .sp = base, .bp = 0xb0 };
	ok(c && cfi__step(c, plt + 16 + 3, &regs, (const uint8_t *)words, sizeof(words), base, &caller) == 0 &&
		   caller.ip == 0x1111 && caller.sp == base + 8 && caller.bp == 0xb0,
	   "before its push: the return address on top of the stack");
	regs.ip = plt + 16 + 12;
	ok(c && cfi__step(c, plt + 16 + 12, &regs, (const uint8_t *)words, sizeof(words), base, &caller) == 0 &&
		   caller.ip == 0x2222 && caller.sp == base + 16,
	   "after it: the return address under the pushed index");
	cfi__free(c);
	return tap_done();
#else
	printf("# skip the PLT: its expression is x86-64's\n");
	return tap_done();
#endif
}
