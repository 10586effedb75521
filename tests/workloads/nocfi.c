/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Code without CFI that keeps a frame pointer, as gcc builds crtstuff's
 * __do_global_dtors_aux (which runs every program's destructors at exit):
 * spin_nocfi sets its frame pointer, spins (a leaf whose %rbp is %rsp), then
 * calls called_from_nocfi, which spins with CFI of its own. Both stacks are
 * main;spin_nocfi[;called_from_nocfi] to _start.
 *
 *   nocfi [ROUNDS]   (default 40: about a second here)
 */
#include <stdlib.h>

void spin_nocfi(unsigned long spins);

static volatile unsigned long sink;

void __attribute__((noinline)) called_from_nocfi(void)
{
	for (unsigned long i = 0; i < 25000000; i++)
		sink = sink * 6364136223846793005UL + i;
}

#if defined(__x86_64__)
/* no .cfi_* directives: no FDE */
__asm__(".text\n"
	".globl spin_nocfi\n"
	".type spin_nocfi, @function\n"
	"spin_nocfi:\n"
	"	pushq %rbp\n"
	"	movq %rsp, %rbp\n"
	"1:	decq %rdi\n"
	"	jnz 1b\n"
	"	call called_from_nocfi\n"
	"	popq %rbp\n"
	"	ret\n"
	".size spin_nocfi, .-spin_nocfi\n");
#else
/* (elsewhere the test skips: this one has CFI) */
void spin_nocfi(unsigned long spins)
{
	while (spins--)
		__asm__ volatile("");
	called_from_nocfi();
}
#endif

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 40;

	for (int r = 0; r < rounds; r++)
		spin_nocfi(25000000);
	return 0;
}
