/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "symbols/stackroot.h"
#include "tap.h"

/* a list built here against the literal expected */
#define is_list(buf, want, name) is_mem((buf).s, (buf).len, want, sizeof(want) - 1, name)

static struct strbuf stack = STRBUF_INIT, locs = STRBUF_INIT;

/* Sets the stack being completed. */
static void set(const char *names, const char *places)
{
	stack.len = locs.len = 0;
	strbuf__add(&stack, names, strlen(names));
	strbuf__add(&locs, places, strlen(places));
}

int main(void)
{
	struct stack_roots *r = stack_roots__new();

	ok(r != NULL, "a table of roots");
	set("__libc_start_call_main;main;work", "libc.so+0x10;app+0x20;app+0x30");
	ok(stack_roots__complete(r, 7, &stack, &locs) == STACK_ROOTS_NOT_YET, "nothing seen yet: nothing to complete, yet");
	is_mem(stack.s, stack.len, "__libc_start_call_main;main;work", 32, "and the stack is left alone");

	set("_start;__libc_start_main;__libc_start_call_main;main;spin", "app+0x5;libc.so+0x8;libc.so+0x10;app+0x20;app+0x40");
	ok(stack_roots__complete(r, 7, &stack, &locs) == STACK_ROOTS_KEPT, "a whole stack teaches, and is left alone");

	set("__libc_start_call_main;main;work", "libc.so+0x10;app+0x20;app+0x30");
	ok(stack_roots__complete(r, 7, &stack, &locs) == STACK_ROOTS_COMPLETED, "a stack starting at the entry is completed");
	is_list(stack, "_start;__libc_start_main;__libc_start_call_main;main;work", "names rootward of it");
	is_list(locs, "app+0x5;libc.so+0x8;libc.so+0x10;app+0x20;app+0x30", "and their places");

	set("__libc_start_main;__libc_start_call_main;main", "libc.so+0x8;libc.so+0x10;app+0x20");
	ok(stack_roots__complete(r, 7, &stack, &locs) == STACK_ROOTS_COMPLETED, "every entry of a whole stack was learned");
	is_list(stack, "_start;__libc_start_main;__libc_start_call_main;main", "from the outermost one");

	set("__libc_start_call_main;exit;work", "libc.so+0x99;libc.so+0x20;libc.so+0x30");
	ok(stack_roots__complete(r, 7, &stack, &locs) == STACK_ROOTS_COMPLETED,
	   "another return address in the entry has the same callers");
	is_list(locs, "app+0x5;libc.so+0x8;libc.so+0x99;libc.so+0x20;libc.so+0x30", "its own place kept");
	set("__libc_start_call_main;main;work", "other.so+0x10;app+0x20;app+0x30");
	ok(stack_roots__complete(r, 7, &stack, &locs) == STACK_ROOTS_NOT_YET, "an entry of that name in another file does not");
	set("__libc_start_call_main;main;work", "libc.so+0x10;app+0x20;app+0x30");
	ok(stack_roots__complete(r, 8, &stack, &locs) == STACK_ROOTS_NOT_YET, "nor is another process");
	set("main;work", "app+0x20;app+0x30");
	ok(stack_roots__complete(r, 7, &stack, &locs) == STACK_ROOTS_KEPT, "nor a stack that does not start at an entry");
	set("[unwind stopped];start_thread;worker", "-;libc.so+0x50;app+0x60");
	ok(stack_roots__complete(r, 7, &stack, &locs) == STACK_ROOTS_NOT_YET && stack.len == 36,
	   "a stack after the marker teaches nothing and is left alone");
	set("[unwind stopped];__libc_start_main;__libc_start_call_main;main", "-;libc.so+0x8;libc.so+0x10;app+0x20");
	ok(stack_roots__complete(r, 7, &stack, &locs) == STACK_ROOTS_COMPLETED, "unknown callers of an entry whose callers are known");
	is_list(stack, "_start;__libc_start_main;__libc_start_call_main;main", "the marker gives way to them");
	is_list(locs, "app+0x5;libc.so+0x8;libc.so+0x10;app+0x20", "in both lists");
	set("[unwind stopped];main;work", "-;app+0x20;app+0x30");
	ok(stack_roots__complete(r, 7, &stack, &locs) == STACK_ROOTS_KEPT, "the marker before what is not an entry stays");
	is_list(stack, "[unwind stopped];main;work", "untouched");
	set("start_thread;worker", "libc.so+0x50;app+0x60");
	ok(stack_roots__complete(r, 7, &stack, &locs) == STACK_ROOTS_NOT_YET, "so start_thread has no known caller");

	stack_roots__forget(r, 7);
	set("__libc_start_call_main;main;work", "libc.so+0x10;app+0x20;app+0x30");
	ok(stack_roots__complete(r, 7, &stack, &locs) == STACK_ROOTS_NOT_YET, "after exec the process's roots are forgotten");

	stack_roots__free(r);
	stack_roots__free(NULL);
	strbuf__release(&stack);
	strbuf__release(&locs);
	return tap_done();
}
