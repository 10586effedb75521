/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One root for a process's stacks. A frame-pointer chain ends at the first
 * caller without a frame pointer, which in most programs is libc's own
 * thread entry (__libc_start_call_main, start_thread): stacks of JIT code,
 * Rust programs and other code CFI cannot unwind then start there, while
 * the process's unwound stacks start at _start or clone3, and one program
 * draws as two towers. Those entries have one caller each, so what was seen
 * rootward of one (from any address in it, in the same process) is what is
 * rootward of it every time.
 */
#ifndef LP_STACKROOT_H
#define LP_STACKROOT_H

#include <sys/types.h>

#include "base/strbuf.h"

struct stack_roots;

struct stack_roots *stack_roots__new(void);
void stack_roots__free(struct stack_roots *r);

/* What stack_roots__complete did */
enum stack_roots_result {
	STACK_ROOTS_KEPT,	/* left the stack as it is, and would every time */
	STACK_ROOTS_COMPLETED,	/* put the callers of its first entry in front */
	/* left it, as it starts at an entry whose callers are not known yet */
	STACK_ROOTS_NOT_YET,
};

/* stack_roots__complete reads no more than a stack's first STACK_ROOTS_ITEMS items (root first) */
enum { STACK_ROOTS_ITEMS = 4 };

/*
 * Given a user stack of pid (STACK and LOCS lists of an S record, root
 * first): learns its frames rootward of an entry, or, when it starts at an
 * entry whose callers were seen, puts them in front. A stack_roots_result,
 * or -ENOMEM.
 */
int stack_roots__complete(struct stack_roots *r, pid_t pid, struct strbuf *stack, struct strbuf *locs);

/* Forgets what was seen of pid: it exec'd or exited, and its pid may come back as another program. */
void stack_roots__forget(struct stack_roots *r, pid_t pid);

#endif
