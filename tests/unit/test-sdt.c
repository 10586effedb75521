/* SPDX-License-Identifier: GPL-2.0-or-later */
/* USDT probes: read from this test's own ELF notes, and their operands parsed. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/sdt.h>

#include "symbols/sdt.h"
#include "tap.h"

/* a probe of this binary, its argument where the compiler put it */
__attribute__((noinline)) static int probed(int x)
{
	STAP_PROBE1(lptest, here, x);
	return x + 1;
}

struct found {
	int n;
	char args[64];
	uint64_t offset;
};

static int note(void *ctx, const struct sdt_probe *p)
{
	struct found *f = ctx;

	if (strcmp(p->provider, "lptest") == 0 && strcmp(p->name, "here") == 0) {
		f->n++;
		snprintf(f->args, sizeof(f->args), "%s", p->args);
		f->offset = p->offset;
	}
	return 0;
}

static void own_notes(void)
{
	struct found f = { 0 };
	struct sdt_arg a;

	ok(probed(1) == 2, "the probe runs as a nop");
	ok(sdt__each("/proc/self/exe", note, &f) == 0 && f.n == 1, "the test's own probe is found once");
	ok(f.offset > 0, "at an offset in the file");
	ok(sdt_arg__parse(f.args, 0, &a) == 0 && (a.size == 4 || a.size == -4), "its argument: an int");
	ok(sdt__each("/proc/self/cmdline", note, &f) == -ENOEXEC, "what is not ELF has no probes (-ENOEXEC)");
	ok(sdt__each("/nonexistent/file", note, &f) == -ENOENT, "a missing file: -ENOENT");
}

static void operands(void)
{
	struct sdt_arg a;

	ok(sdt_arg__parse("", 0, &a) == -ENOENT, "no arguments");
	ok(sdt_arg__parse("8@%rax", 1, &a) == -ENOENT, "fewer arguments than asked for");
	ok(sdt_arg__parse("8", 0, &a) == -EINVAL, "no @: refused");
	ok(sdt_arg__parse("9@%rax", 0, &a) == -EINVAL, "a size past 8: refused");
	ok(sdt_arg__parse("-4@$-12", 0, &a) == 0 && a.kind == SDT_ARG_CONST && a.value == -12 && a.size == -4,
	   "a constant");
#if defined(__x86_64__)
	ok(sdt_arg__parse("8@%rax", 0, &a) == 0 && a.kind == SDT_ARG_REG && a.reg == 0 && a.size == 8, "%rax: perf's 0");
	ok(sdt_arg__parse("4@%edi 8@%r12", 1, &a) == 0 && a.kind == SDT_ARG_REG && a.reg == 20, "the second: %r12, 20");
	ok(sdt_arg__parse("4@%r9d", 0, &a) == 0 && a.reg == 17, "%r9d: 17");
	ok(sdt_arg__parse("8@-24(%rbp)", 0, &a) == 0 && a.kind == SDT_ARG_MEM && a.reg == 6 && a.value == -24,
	   "memory at %rbp - 24");
	ok(sdt_arg__parse("8@(%rsp)", 0, &a) == 0 && a.kind == SDT_ARG_MEM && a.reg == 7 && a.value == 0,
	   "memory at %rsp");
	ok(sdt_arg__parse("8@%xmm0", 0, &a) == -EINVAL, "a register lp does not sample: refused");
#elif defined(__aarch64__)
	ok(sdt_arg__parse("8@x0", 0, &a) == 0 && a.kind == SDT_ARG_REG && a.reg == 0, "x0");
	ok(sdt_arg__parse("8@x1 8@[sp, 16]", 1, &a) == 0 && a.kind == SDT_ARG_MEM && a.reg == 31 && a.value == 16,
	   "the second: [sp, 16]");
	ok(sdt_arg__parse("4@w3", 0, &a) == 0 && a.reg == 3, "w3");
#endif
}

int main(void)
{
	own_notes();
	operands();
	return tap_done();
}
