/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tree of a flame graph: frames merged along common stack prefixes, with
 * two value columns (on-/off-CPU time, or the two profiles of a difference).
 * Stacks are merged only with the stack added just before them, so sorted
 * stacks make a flame graph and time-ordered stacks make a flame chart.
 *
 * Node ids are the tree's preorder: a node's children, in sibling order,
 * each followed by its own subtree, come after it. flametree__add keeps it
 * as it goes (it only ever extends the path of the last stack);
 * flametree__sort makes it after flametree__add_merged.
 */
#ifndef LP_FLAMETREE_H
#define LP_FLAMETREE_H

#include <stddef.h>
#include <stdint.h>

#define FLAME_NONE UINT32_MAX

struct flame_node {
	uint64_t total[2];	/* this frame and everything above it (after flametree__finish) */
	uint32_t name;
	uint32_t parent;
	uint32_t first_child;
	uint32_t next_sibling;
};

struct flametree;

/* The root, node 0, is named "all". NULL+ENOMEM. */
struct flametree *flametree__new(void);
void flametree__free(struct flametree *t);

/* Adds one folded stack (frames joined by ';') with its two values. -ENOMEM, -EOVERFLOW. */
int flametree__add(struct flametree *t, const char *stack, size_t len, uint64_t v0, uint64_t v1);

/*
 * Adds one stack merged into the whole tree (not only into the previous
 * stack), for a flame graph built while reading unsorted stacks. Call
 * flametree__sort before drawing. Do not mix with flametree__add.
 */
int flametree__add_merged(struct flametree *t, const char *stack, size_t len, uint64_t v0, uint64_t v1);

/* Sums the values up the tree: call once after the last add, before reading totals. -EOVERFLOW. */
int flametree__finish(struct flametree *t);

/*
 * Orders every node's children by name (bytes) and numbers the nodes in
 * that order, depth first (node ids change). -ENOMEM.
 */
int flametree__sort(struct flametree *t);

size_t flametree__count(const struct flametree *t);
const struct flame_node *flametree__node(const struct flametree *t, uint32_t id);
size_t flametree__names(const struct flametree *t);
const char *flametree__name(const struct flametree *t, uint32_t name, size_t *len);
/* Deepest depth of any node. */
uint32_t flametree__max_depth(const struct flametree *t);

#endif
