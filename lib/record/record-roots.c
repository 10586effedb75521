/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What each thread's stacks showed: where its stack ends (how big a copy
 * reaches its roots, for lp-record's advice), and its last stack that
 * reached its root, which gives the callers of its stacks deeper than the copy.
 */
#include "record/writer-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "symbols/symbolizer.h"

struct stack_top *writer__stack_top(struct writer *w, pid_t tid)
{
	uint64_t h = hash_mix((uint64_t)(uint32_t)tid);
	struct stack_top *e;

	if (htab__reserve(&w->stack_tops) < 0)
		return NULL;
	for (size_t i = h; (e = htab__at(&w->stack_tops, i))->head.used; i++)
		if (e->head.hash == h && e->tid == tid)
			return e;
	htab__insert(&w->stack_tops, e, h);
	*e = (struct stack_top){ .head = e->head, .tid = tid };
	return e;
}

/*
 * Keeps the n user frames (leaf first, with their places) of a stack of tid
 * that ends where its unwinding could go no further, not where the copy did
 * (root_unknown: at a frame whose callers the learned roots give), for
 * writer__complete_root.
 */
int writer__remember_root(struct writer *w, pid_t tid, const struct sym_frame *frames, const uint64_t *cfas, size_t n,
			 bool root_unknown)
{
	struct stack_top *t = writer__stack_top(w, tid);

	if (!t)
		return -ENOMEM;
	if (n > t->root_cap) {
		/* frames and places in one block */
		void *p = realloc(t->root_frames, n * (sizeof(*t->root_frames) + sizeof(*t->root_cfas)));

		if (!p)
			return -ENOMEM;
		t->root_frames = p;
		t->root_cap = n;
	}
	t->root_cfas = (uint64_t *)(t->root_frames + t->root_cap);
	memcpy(t->root_frames, frames, n * sizeof(*frames));
	memcpy(t->root_cfas, cfas, n * sizeof(*cfas));
	t->root_n = n;
	t->root_unknown = root_unknown;
	return 0;
}

/*
 * A stack of tid whose unwinding stopped at frames[n - 1] (returning to
 * cfas[n - 1]) past the copy, completed with the callers its thread's last
 * whole stack showed for a frame returning to the same place in the same
 * function: while that frame is live, what is rootward of it cannot have
 * changed (a deep recursion's root, when a shallower sample saw it). The
 * new count of frames, or 0 when no such stack was seen; -errno.
 */
ssize_t writer__complete_root(struct writer *w, pid_t pid, pid_t tid, struct frame_buf *buf, size_t n,
			     bool *root_unknown)
{
	struct stack_top *t = writer__stack_top(w, tid);
	uint64_t place = buf->cfas[n - 1], ip = buf->v[n - 1].ip;
	size_t j;
	int ret;

	if (!t)
		return -ENOMEM;
	if (!place)
		return 0;
	for (j = 0; j < t->root_n && t->root_cfas[j] < place; j++)
		;
	/*
	 * The same activation: the frame returning to the same place, into the
	 * same function (it may have called another since: a recursion's level
	 * first spins, then goes down).
	 */
	if (j >= t->root_n - (t->root_n > 0) || t->root_cfas[j] != place ||
	    !symbolizer__same_function(w->sym, pid, t->root_frames[j].ip, ip))
		return 0;
	if ((ret = writer__frames_reserve(buf, n + t->root_n - j + 1)) < 0)
		return ret;
	memcpy(&buf->v[n], &t->root_frames[j + 1], (t->root_n - j - 1) * sizeof(*buf->v));
	memcpy(&buf->cfas[n], &t->root_cfas[j + 1], (t->root_n - j - 1) * sizeof(*buf->cfas));
	*root_unknown = t->root_unknown;
	return (ssize_t)(n + t->root_n - j - 1);
}

void writer__forget_stacks(struct writer *w, pid_t tid)
{
	uint64_t h = hash_mix((uint64_t)(uint32_t)tid);
	struct stack_top *e;

	if (!w->stack_tops.n)
		return;
	for (size_t i = h; (e = htab__at(&w->stack_tops, i))->head.used; i++)
		if (e->head.hash == h && e->tid == tid) {
			e->root_n = 0;
			return;
		}
}

uint64_t writer__stack_needed(const struct writer *w)
{
	const struct stack_top *t;
	uint64_t needed = 0;

	for (size_t i = 0; (t = htab__next(&w->stack_tops, &i));)
		if (t->deepest_stopped && t->top > t->deepest_stopped && t->top - t->deepest_stopped > needed)
			needed = t->top - t->deepest_stopped;
	return needed;
}
