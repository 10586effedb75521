/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The merged tree against a plain count of the same stacks: random stacks
 * over a few names, some of them prefixes of others ("f" and "f!x" sort
 * apart from "f;..."), added sorted, shuffled and repeated, come out as the
 * same stacks with the same sums.
 */
#include <stdlib.h>
#include <string.h>

#include "picture/flametree.h"
#include "base/stackmap.h"
#include "base/strbuf.h"
#include "tap.h"

static const char *const frame_names[] = { "f", "f!x", "fa", "g", "g h", "main", "\xc3\xa9" };
enum { NAMES = sizeof(frame_names) / sizeof(frame_names[0]) };

static unsigned rng = 12345;

static unsigned next_random(void)
{
	rng = rng * 1103515245u + 12345u;
	return rng >> 8;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every node with a self value as "path value": what the tree holds. */
static struct stackmap *flatten(const struct flametree *t)
{
	struct stackmap *m = stackmap__new();
	struct strbuf path = STRBUF_INIT;
	size_t count = flametree__count(t);

	for (uint32_t id = 1; m && id < count; id++) {
		const struct flame_node *n = flametree__node(t, id);
		uint64_t self = n->total[0];
		uint32_t up[256], depth = 0;

		for (uint32_t c = n->first_child; c != FLAME_NONE; c = flametree__node(t, c)->next_sibling)
			self -= flametree__node(t, c)->total[0];
		if (!self)
			continue;
		for (uint32_t a = id; a != 0 && depth < 256; a = flametree__node(t, a)->parent)
			up[depth++] = a;
		strbuf__reset(&path);
		while (depth-- > 0) {
			size_t len;
			const char *name = flametree__name(t, flametree__node(t, up[depth])->name, &len);

			strbuf__add(&path, name, len);
			if (depth)
				strbuf__addc(&path, ';');
		}
		stackmap__add(m, path.s, path.len, 0, self);
	}
	strbuf__release(&path);
	return m;
}

/* Merged means no two children of a node share a name. */
static int siblings_distinct(const struct flametree *t)
{
	for (uint32_t id = 0; id < flametree__count(t); id++)
		for (uint32_t a = flametree__node(t, id)->first_child; a != FLAME_NONE;
		     a = flametree__node(t, a)->next_sibling)
			for (uint32_t b = flametree__node(t, a)->next_sibling; b != FLAME_NONE;
			     b = flametree__node(t, b)->next_sibling)
				if (flametree__node(t, a)->name == flametree__node(t, b)->name)
					return 0;
	return 1;
}

/* Node ids are the preorder, children in sibling order (what flamesvg's data relies on). */
static int ids_are_preorder(const struct flametree *t)
{
	uint32_t next = 0;
	uint32_t *stack = malloc(sizeof(*stack) * flametree__count(t));
	size_t top = 0;
	int good = stack != NULL;

	if (good)
		stack[top++] = 0;
	while (good && top > 0) {
		uint32_t id = stack[--top];
		size_t first = top;

		good = id == next++;
		for (uint32_t c = flametree__node(t, id)->first_child; c != FLAME_NONE;
		     c = flametree__node(t, c)->next_sibling)
			stack[top++] = c;
		for (size_t a = first, b = top; a + 1 < b; a++, b--) {
			uint32_t tmp = stack[a];

			stack[a] = stack[b - 1];
			stack[b - 1] = tmp;
		}
	}
	free(stack);
	return good && next == flametree__count(t);
}

static int same_stacks(const struct stackmap *a, const struct stackmap *b)
{
	if (stackmap__size(a) != stackmap__size(b))
		return 0;
	for (size_t i = 0; i < stackmap__size(a); i++) {
		const struct stack_entry *e = stackmap__entry(a, (uint32_t)i);
		const struct stack_entry *f = stackmap__find(b, e->key, e->len);

		if (!f || f->count[0] != e->count[0])
			return 0;
	}
	return 1;
}

int main(void)
{
	enum { STACKS = 3000 };
	char *stacks[STACKS];
	uint64_t values[STACKS];
	struct stackmap *want = stackmap__new();
	const char *order[] = { "sorted", "shuffled", "shuffled, each twice" };

	for (int i = 0; i < STACKS; i++) {
		struct strbuf b = STRBUF_INIT;
		int depth = 1 + (int)(next_random() % 12);

		for (int d = 0; d < depth; d++) {
			const char *name = frame_names[next_random() % (d < 3 ? 3 : NAMES)];

			if (d)
				strbuf__addc(&b, ';');
			strbuf__add(&b, name, strlen(name));
		}
		strbuf__addc(&b, '\0');
		stacks[i] = b.s;
		values[i] = 1 + next_random() % 50;
	}
	for (int round = 0; round < 3; round++) {
		struct flametree *t = flametree__new();
		struct stackmap *got;
		int good = 1;

		if (round == 0) {
			qsort(stacks, STACKS, sizeof(*stacks), by_string);
		} else {
			for (int i = STACKS - 1; i > 0; i--) {
				int j = (int)(next_random() % (unsigned)(i + 1));
				char *s = stacks[i];

				stacks[i] = stacks[j];
				stacks[j] = s;
			}
		}
		stackmap__free(want);
		want = stackmap__new();
		for (int rep = 0; rep < (round == 2 ? 2 : 1); rep++)
			for (int i = 0; i < STACKS; i++) {
				stackmap__add(want, stacks[i], strlen(stacks[i]), 0, values[i % 7]);
				if (flametree__add_merged(t, stacks[i], strlen(stacks[i]), values[i % 7], 0) < 0)
					good = 0;
			}
		ok(good && flametree__finish(t) == 0, order[round]);
		got = flatten(t);
		ok(got && same_stacks(want, got), "the tree holds the stacks added, with their sums");
		ok(siblings_distinct(t), "each frame once under its parent");
		ok(flametree__sort(t) == 0 && ids_are_preorder(t), "sorted, the node ids are the preorder");
		stackmap__free(got);
		flametree__free(t);
	}
	{
		/* a flame chart's tree, stacks in time order, merged with the one before only */
		struct flametree *t = flametree__new();
		int good = t != NULL;

		for (int i = 0; good && i < STACKS; i++)
			good = flametree__add(t, stacks[i], strlen(stacks[i]), 1, 0) == 0;
		ok(good && flametree__finish(t) == 0 && ids_are_preorder(t), "a flame chart's node ids are the preorder");
		flametree__free(t);
	}
	for (int i = 0; i < STACKS; i++)
		free(stacks[i]);
	stackmap__free(want);
	return tap_done();
}
