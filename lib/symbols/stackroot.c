/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "symbols/stackroot.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/htab.h"
#include "stream/lpstream.h"
#include "symbols/symbolizer.h"

/* libc functions a thread's stack starts from, each called from one place only (glibc, musl) */
static const char *const entries[] = {
	"__libc_start_call_main", "__libc_start_main", "start_thread", "libc_start_main_stage2", "start",
};

/* How far rootward of an entry the process's stacks go: _start, clone3 and the like */
enum { MAX_PREFIX = STACK_ROOTS_ITEMS - 1 };

struct root {
	struct htab_entry head;
	pid_t pid;
	char *loc;		/* the entry's file (its LOCS item's), then its name */
	size_t loc_len, name_len;
	char *stack, *locs;	/* what is rootward of it, each list ending in ';' */
	size_t stack_len, locs_len;
};

struct stack_roots {
	struct htab roots;
};

struct stack_roots *stack_roots__new(void)
{
	struct stack_roots *r = calloc(1, sizeof(*r));

	if (r)
		r->roots = HTAB_INIT(struct root);
	return r;
}

/* Leaves e a tombstone: used, matching nothing. */
static void root__release(struct root *e)
{
	free(e->loc);
	free(e->stack);	/* e->locs lives in the same block */
	e->loc = e->stack = e->locs = NULL;
}

void stack_roots__free(struct stack_roots *r)
{
	struct root *e;

	if (!r)
		return;
	for (size_t i = 0; (e = htab__next(&r->roots, &i));)
		root__release(e);
	htab__release(&r->roots);
	free(r);
}

static bool is_entry(struct lp_span name)
{
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		if (lp_span__eq(name, entries[i], strlen(entries[i])))
			return true;
	return false;
}

static uint64_t key_hash(pid_t pid, struct lp_span loc)
{
	return hash_word(hash_bytes(loc.s, loc.len), (uint64_t)(uint32_t)pid);
}

/*
 * The entry's file, without its offset: an entry has one caller wherever in
 * it the stack is (start_thread calls the thread's function, and at its end
 * the functions that free the thread, from other addresses), so what one
 * place showed is rootward of all of them. The name tells the entries of one
 * file apart.
 */
static struct lp_span entry_file(struct lp_span loc)
{
	for (size_t i = loc.len; i-- > 0;)
		if (loc.s[i] == '+')
			return (struct lp_span){ loc.s, i };
	return loc;
}

/* The entry name of pid in the file of loc; NULL when none (and with add, when out of memory). */
static struct root *find(struct stack_roots *r, pid_t pid, struct lp_span name, struct lp_span loc, bool add)
{
	struct root *e;
	uint64_t h;

	loc = entry_file(loc);
	h = hash_word(key_hash(pid, loc), hash_bytes(name.s, name.len));

	if (add && htab__reserve(&r->roots) < 0)
		return NULL;
	if (!r->roots.n && !add)
		return NULL;
	for (size_t i = h; (e = htab__at(&r->roots, i))->head.used; i++)
		if (e->head.hash == h && e->pid == pid && e->loc && e->loc_len == loc.len &&
		    !memcmp(e->loc, loc.s, loc.len) && e->name_len == name.len && !memcmp(e->loc + loc.len, name.s, name.len))
			return e;
	if (!add)
		return NULL;
	htab__insert(&r->roots, e, h);
	e->pid = pid;
	/* the file then the name, in one block */
	if ((e->loc = malloc(loc.len + name.len + 1))) {
		memcpy(e->loc, loc.s, loc.len);
		memcpy(e->loc + loc.len, name.s, name.len);
		e->loc[loc.len + name.len] = 0;
	}
	e->loc_len = loc.len;
	e->name_len = name.len;
	e->stack = e->locs = NULL;
	return e;
}

/* Puts prefix (len bytes) in place of the first cut bytes of b, moving the rest once. */
static int replace_head(struct strbuf *b, size_t cut, const char *prefix, size_t len)
{
	int ret;

	if (len > cut && b->cap - b->len <= len - cut && (ret = strbuf__grow(b, len - cut)) < 0)
		return ret;
	memmove(b->s + len, b->s + cut, b->len - cut);
	memcpy(b->s, prefix, len);
	b->len += len - cut;
	return 0;
}

int stack_roots__complete(struct stack_roots *r, pid_t pid, struct strbuf *stack, struct strbuf *locs)
{
	struct lp_list_iter names, places;
	struct lp_span name, loc;
	const char *stack_start = stack->s, *locs_start = locs->s;
	struct root *e;
	int ret;

	bool stopped = false;

	lp_list_iter__init(&names, lp_span__of(stack));
	lp_list_iter__init(&places, lp_span__of(locs));
	for (size_t depth = 0; depth <= MAX_PREFIX; depth++) {
		if (!lp_list_iter__next(&names, &name, NULL) || !lp_list_iter__next(&places, &loc, NULL))
			return STACK_ROOTS_KEPT;
		/* unknown callers of an entry whose callers are known: the marker gives way to them */
		if (depth == 0 && lp_span__eq(name, SYM_UNWIND_STOPPED, sizeof(SYM_UNWIND_STOPPED) - 1)) {
			stopped = true;
			continue;
		}
		if (!is_entry(name)) {
			if (stopped)
				return STACK_ROOTS_KEPT;
			continue;
		}
		if (depth == 0 || stopped) {
			e = find(r, pid, name, loc, false);
			if (!e || !e->stack)
				return STACK_ROOTS_NOT_YET;
			/* in place of "[unwind stopped];" and "-;" when stopped */
			if ((ret = replace_head(stack, (size_t)(name.s - stack->s), e->stack, e->stack_len)) < 0 ||
			    (ret = replace_head(locs, (size_t)(loc.s - locs->s), e->locs, e->locs_len)) < 0)
				return ret;
			return STACK_ROOTS_COMPLETED;
		}
		/* the first time only: an entry's callers do not change */
		e = find(r, pid, name, loc, true);
		if (!e || !e->loc)
			return -ENOMEM;
		if (e->stack)
			continue;
		e->stack_len = (size_t)(name.s - stack_start);
		e->locs_len = (size_t)(loc.s - locs_start);
		e->stack = malloc(e->stack_len + e->locs_len + 2);
		if (!e->stack)
			return -ENOMEM;
		e->locs = e->stack + e->stack_len + 1;
		memcpy(e->stack, stack_start, e->stack_len);
		memcpy(e->locs, locs_start, e->locs_len);
	}
	return STACK_ROOTS_KEPT;
}

void stack_roots__forget(struct stack_roots *r, pid_t pid)
{
	struct root *e;

	/* rare (exec, exit of a process): a walk of every entry */
	for (size_t i = 0; (e = htab__next(&r->roots, &i));)
		if (e->pid == pid)
			root__release(e);
}
