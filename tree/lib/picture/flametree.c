/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "picture/flametree.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/hugemem.h"
#include "base/stackmap.h"
#include "base/strbuf.h"

/*
 * A child in the table: found from the hash of its whole path (child_hash),
 * which a walk computes for all the frames of a stack before it looks any
 * up, so their slots are fetched from memory together, not one after the
 * other. The key is checked on the parent and name ids alone.
 */
struct child_slot {
	uint32_t hash;
	uint32_t parent;
	uint32_t name;
	uint32_t node;	/* FLAME_NONE: empty */
};

/* A frame of the stack being added, before the walk. */
struct pending_frame {
	uint64_t hash;	/* of the path down to it */
	uint32_t name;
	size_t end;	/* where it ends in the stack */
};

struct path_step {
	uint32_t node;
	uint32_t last_child;
	uint64_t hash;	/* merged mode: of the path down to node */
	size_t end;	/* merged mode: where node's frame ends in the last stack */
};

enum { ROOT_HASH = 0x2545f491 };

struct flametree {
	struct flame_node *nodes;
	size_t n, cap;
	struct stackmap *names;
	struct path_step *path;	/* the nodes of the last stack added, root first */
	size_t depth, path_cap;
	struct strbuf last;	/* the last stack added */
	uint32_t max_depth;
	/*
	 * Merged mode: (parent, name) -> node, open addressing, holding the
	 * children of the parents that have been searched: a chain of frames
	 * new in one stack (most nodes of a big profile) is never searched
	 * under until a later stack parts from it, which indexes that parent.
	 */
	struct child_slot *children;
	size_t children_mask, children_used;
	uint64_t *indexed;	/* a bit per node: its children are in the table */
	size_t indexed_words;
	bool finished;
	struct pending_frame *pending;
	size_t pending_cap;
	/*
	 * Merged mode: the leaves of recent stacks, by hash. A recording's
	 * samples repeat their stacks in no order, and walking a deep stack's
	 * frames through the children table is a cache miss a frame; input in
	 * sorted order (folded files) shares prefixes instead and rarely hits, so
	 * the cache switches itself off when it does not pay. A stack is known
	 * by two independent 64-bit hashes and its length, not by a copy: the
	 * cache's memory stays a fixed 2 MB, and the chance that two different
	 * stacks of a profile pass for each other is about 2^-128 a lookup.
	 */
	struct leaf_slot *leaves;
	uint64_t leaf_tries, leaf_hits;
	bool leaves_off;
};

enum { LEAF_SLOTS = 65536, LEAF_TRIAL = 16384 };

struct leaf_slot {
	uint64_t hash, check;	/* hash_bytes and a second, independent hash */
	uint32_t len;
	uint32_t leaf;		/* FLAME_NONE: the slot is empty */
};

static int new_node(struct flametree *t, uint32_t name, uint32_t parent, uint32_t depth)
{
	struct flame_node *node;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap + t->cap / 2 : 4096;
		/* in huge pages (a tree of a big profile is hundreds of MB): grown without a copy */
		struct flame_node *v = hugemem__realloc(t->nodes, t->cap * sizeof(*v), cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->nodes = v;
		t->cap = cap;
	}
	if (t->n / 64 >= t->indexed_words) {
		size_t words = t->indexed_words ? t->indexed_words * 2 : 64;
		uint64_t *v = realloc(t->indexed, words * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + t->indexed_words, 0, (words - t->indexed_words) * sizeof(*v));
		t->indexed = v;
		t->indexed_words = words;
	}
	if (t->n >= FLAME_NONE)
		return -EOVERFLOW;
	node = &t->nodes[t->n];
	memset(node, 0, sizeof(*node));
	node->name = name;
	node->parent = parent;
	node->first_child = node->next_sibling = FLAME_NONE;
	if (depth > t->max_depth)
		t->max_depth = depth;
	return (int)(t->n++);
}

static int push(struct flametree *t, uint32_t node, uint64_t hash, size_t end)
{
	if (t->depth == t->path_cap) {
		size_t cap = t->path_cap ? t->path_cap * 2 : 256;
		struct path_step *v = realloc(t->path, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->path = v;
		t->path_cap = cap;
	}
	t->path[t->depth].node = node;
	t->path[t->depth].last_child = FLAME_NONE;
	t->path[t->depth].hash = hash;
	t->path[t->depth].end = end;
	t->depth++;
	return 0;
}

struct flametree *flametree__new(void)
{
	struct flametree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->names = stackmap__new();
	if (!t->names || !stackmap__add(t->names, "all", 3, 0, 0) || new_node(t, 0, FLAME_NONE, 0) < 0 ||
	    push(t, 0, ROOT_HASH, 0) < 0) {
		flametree__free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

static void free_children(struct flametree *t)
{
	if (t->children)
		hugemem__free(t->children, (t->children_mask + 1) * sizeof(*t->children));
	t->children = NULL;
}

void flametree__free(struct flametree *t)
{
	if (!t)
		return;
	hugemem__free(t->nodes, t->cap * sizeof(*t->nodes));
	free(t->path);
	free_children(t);
	free(t->indexed);
	free(t->pending);
	hugemem__free(t->leaves, LEAF_SLOTS * sizeof(*t->leaves));
	stackmap__free(t->names);
	strbuf__release(&t->last);
	free(t);
}

/* How many leading frames of b are the same frames as in a. */
static size_t shared_frames(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t n = alen < blen ? alen : blen, lcp = 0, frames = 0;

	while (lcp < n && a[lcp] == b[lcp])
		lcp++;
	for (size_t i = 0; i < lcp; i++)
		frames += b[i] == ';';
	if ((lcp == alen || a[lcp] == ';') && (lcp == blen || b[lcp] == ';'))
		frames++;
	return frames;
}

static int add_value(uint64_t *to, uint64_t v)
{
	if (*to > UINT64_MAX - v)
		return -EOVERFLOW;
	*to += v;
	return 0;
}

int flametree__add(struct flametree *t, const char *stack, size_t len, uint64_t v0, uint64_t v1)
{
	size_t keep = t->n > 1 ? shared_frames(t->last.s, t->last.len, stack, len) : 0;
	const char *p = stack, *end = stack + len;
	size_t frame = 0;
	struct flame_node *leaf;
	int ret;

	if (keep + 1 < t->depth)
		t->depth = keep + 1;
	/* skip the shared frames, create the rest */
	while (p <= end) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *stop = semi ? semi : end;

		if (frame >= keep) {
			struct path_step *parent = &t->path[t->depth - 1];
			struct stack_entry *name = stackmap__add(t->names, p, (size_t)(stop - p), 0, 0);
			int id;

			if (!name)
				return -ENOMEM;
			id = new_node(t, name->id, parent->node, (uint32_t)t->depth);
			if (id < 0)
				return id;
			if (parent->last_child == FLAME_NONE)
				t->nodes[parent->node].first_child = (uint32_t)id;
			else
				t->nodes[parent->last_child].next_sibling = (uint32_t)id;
			parent->last_child = (uint32_t)id;
			if ((ret = push(t, (uint32_t)id, 0, 0)) < 0)
				return ret;
		}
		frame++;
		p = stop + 1;
	}
	/* self values for now: flametree__finish sums them up the tree */
	leaf = &t->nodes[t->path[t->depth - 1].node];
	if ((ret = add_value(&leaf->total[0], v0)) < 0 || (ret = add_value(&leaf->total[1], v1)) < 0)
		return ret;
	strbuf__reset(&t->last);
	return strbuf__add(&t->last, stack, len);
}

static uint64_t child_hash(uint64_t parent_hash, uint32_t name)
{
	return hash_mix(parent_hash ^ ((uint64_t)name + 1) * 0x9e3779b97f4a7c15ULL);
}

static void put_child(struct child_slot *table, size_t mask, struct child_slot slot)
{
	size_t j;

	for (j = slot.hash & mask; table[j].node != FLAME_NONE; j = (j + 1) & mask)
		;
	table[j] = slot;
}

static int grow_children(struct flametree *t)
{
	size_t mask = t->children_mask ? t->children_mask * 2 + 1 : 4095;
	struct child_slot *v;

	if (mask > UINT32_MAX)
		return -EOVERFLOW;
	if (!(v = hugemem__alloc((mask + 1) * sizeof(*v))))
		return -ENOMEM;
	for (size_t i = 0; i <= mask; i++)
		v[i].node = FLAME_NONE;
	for (size_t i = 0; t->children && i <= t->children_mask; i++)
		if (t->children[i].node != FLAME_NONE)
			put_child(v, mask, t->children[i]);
	free_children(t);
	t->children = v;
	t->children_mask = mask;
	return 0;
}

static bool is_indexed(const struct flametree *t, uint32_t node)
{
	return t->indexed[node / 64] >> (node % 64) & 1;
}

static int index_child(struct flametree *t, uint32_t parent, uint64_t parent_hash, uint32_t node)
{
	uint32_t name = t->nodes[node].name;

	put_child(t->children, t->children_mask,
		  (struct child_slot){ (uint32_t)child_hash(parent_hash, name), parent, name, node });
	if (++t->children_used * 8 > t->children_mask * 7)
		return grow_children(t);
	return 0;
}

/* Puts the children of parent into the table, from now on kept there. */
static int index_children(struct flametree *t, uint32_t parent, uint64_t parent_hash)
{
	int ret = 0;

	if (!t->children && (ret = grow_children(t)) < 0)
		return ret;
	for (uint32_t c = t->nodes[parent].first_child; ret == 0 && c != FLAME_NONE;
	     c = t->nodes[c].next_sibling)
		ret = index_child(t, parent, parent_hash, c);
	t->indexed[parent / 64] |= (uint64_t)1 << (parent % 64);
	return ret;
}

static int add_named_child(struct flametree *t, uint32_t parent, uint64_t parent_hash, uint32_t depth,
			   uint32_t name)
{
	int id = new_node(t, name, parent, depth), ret;

	if (id < 0)
		return id;
	t->nodes[id].next_sibling = t->nodes[parent].first_child;
	t->nodes[parent].first_child = (uint32_t)id;
	if (is_indexed(t, parent) && (ret = index_child(t, parent, parent_hash, (uint32_t)id)) < 0)
		return ret;
	return id;
}

/* The child of parent named f->name, or FLAME_NONE (as an int: -1 is not an error here). */
static int64_t find_child(struct flametree *t, uint32_t parent, uint64_t parent_hash,
			  const struct pending_frame *f)
{
	uint32_t hash = (uint32_t)f->hash;
	int ret;

	if (!is_indexed(t, parent) && (ret = index_children(t, parent, parent_hash)) < 0)
		return ret;
	for (size_t i = hash & t->children_mask; t->children[i].node != FLAME_NONE;
	     i = (i + 1) & t->children_mask) {
		const struct child_slot *s = &t->children[i];

		if (s->hash == hash && s->parent == parent && s->name == f->name)
			return s->node;
	}
	return FLAME_NONE;
}

static int add_pending(struct flametree *t, size_t k, struct pending_frame f)
{
	if (k >= t->pending_cap) {
		size_t cap = t->pending_cap ? t->pending_cap * 2 : 256;
		struct pending_frame *v = realloc(t->pending, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->pending = v;
		t->pending_cap = cap;
	}
	t->pending[k] = f;
	return 0;
}

/* Length of the common prefix of a and b, a word at a time. */
static size_t common_prefix(const char *a, const char *b, size_t n)
{
	size_t i = 0;
	uint64_t x, y;

	for (; i + 8 <= n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return i + (size_t)(__builtin_ctzll(x ^ y) / 8);
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

static void clear_leaves(struct flametree *t)
{
	for (size_t i = 0; t->leaves && i < LEAF_SLOTS; i++)
		t->leaves[i].leaf = FLAME_NONE;
}

/* The leaf of a stack added lately, or NULL; *slot is where to remember it. */
static struct flame_node *recent_leaf(struct flametree *t, const char *stack, size_t len, struct leaf_slot **slot)
{
	uint64_t h, check;
	struct leaf_slot *s;

	*slot = NULL;
	if (t->leaves_off || len > UINT32_MAX)
		return NULL;
	if (t->leaf_tries == LEAF_TRIAL && t->leaf_hits * 4 < t->leaf_tries) {
		/* under a quarter hit: the input shares prefixes, not whole stacks */
		hugemem__free(t->leaves, LEAF_SLOTS * sizeof(*t->leaves));
		t->leaves = NULL;
		t->leaves_off = true;
		return NULL;
	}
	if (!t->leaves) {
		if (!(t->leaves = hugemem__alloc(LEAF_SLOTS * sizeof(*t->leaves))))
			return NULL;
		clear_leaves(t);
	}
	t->leaf_tries++;
	h = hash_bytes(stack, len);
	check = hash_bytes_seeded(stack, len, 0x6c70);
	s = &t->leaves[h & (LEAF_SLOTS - 1)];
	if (s->leaf != FLAME_NONE && s->hash == h && s->check == check && s->len == len) {
		t->leaf_hits++;
		return &t->nodes[s->leaf];
	}
	*s = (struct leaf_slot){ h, check, (uint32_t)len, FLAME_NONE };
	*slot = s;
	return NULL;
}

int flametree__add_merged(struct flametree *t, const char *stack, size_t len, uint64_t v0, uint64_t v1)
{
	size_t keep = 0, frame = 0, lcp, names_before;
	const char *p = stack, *end = stack + len;
	struct flame_node *leaf;
	struct leaf_slot *slot;
	uint64_t hash;
	bool fresh = false;
	int ret;

	/* a stack seen lately: its leaf, with no walk (the walk's state stays the last walked stack's) */
	if ((leaf = recent_leaf(t, stack, len, &slot)))
		return add_value(&leaf->total[0], v0) ?: add_value(&leaf->total[1], v1);

	/* frames of the last stack that end inside the common prefix, at a boundary of both */
	if (t->n > 1) {
		lcp = common_prefix(t->last.s, stack, t->last.len < len ? t->last.len : len);
		while (keep + 1 < t->depth && t->path[keep + 1].end <= lcp &&
		       (t->path[keep + 1].end == len || stack[t->path[keep + 1].end] == ';'))
			keep++;
	}
	if (keep + 1 < t->depth)
		t->depth = keep + 1;
	if (keep > 0)
		p = stack + t->path[keep].end + 1;
	/*
	 * First the frames' names and path hashes, fetching their slots; a name
	 * new to the tree, and all below it, cannot be there yet.
	 */
	names_before = stackmap__size(t->names);
	hash = t->path[t->depth - 1].hash;
	for (frame = keep; p <= end; frame++) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *stop = semi ? semi : end;
		struct stack_entry *e = stackmap__add(t->names, p, (size_t)(stop - p), 0, 0);

		if (!e)
			return -ENOMEM;
		hash = child_hash(hash, e->id);
		if ((ret = add_pending(t, frame - keep, (struct pending_frame){ hash, e->id, (size_t)(stop - stack) })) < 0)
			return ret;
		if (t->children)
			__builtin_prefetch(&t->children[hash & t->children_mask]);
		p = stop + 1;
	}
	/* then the walk: under a node this stack has just made, every frame is new */
	for (size_t k = 0; keep + k < frame; k++) {
		const struct pending_frame *f = &t->pending[k];
		const struct path_step *parent = &t->path[t->depth - 1];
		int64_t id = FLAME_NONE;

		if (!fresh && f->name < names_before && (id = find_child(t, parent->node, parent->hash, f)) < 0)
			return (int)id;
		if (id == FLAME_NONE) {
			fresh = true;
			id = add_named_child(t, parent->node, parent->hash, (uint32_t)t->depth, f->name);
			if (id < 0)
				return (int)id;
		}
		if ((ret = push(t, (uint32_t)id, f->hash, f->end)) < 0)
			return ret;
	}
	/* self values for now: flametree__finish sums them up the tree */
	leaf = &t->nodes[t->path[t->depth - 1].node];
	if ((ret = add_value(&leaf->total[0], v0)) < 0 || (ret = add_value(&leaf->total[1], v1)) < 0)
		return ret;
	if (slot)
		slot->leaf = t->path[t->depth - 1].node;
	strbuf__reset(&t->last);
	return strbuf__add(&t->last, stack, len);
}

int flametree__finish(struct flametree *t)
{
	if (t->finished)
		return 0;
	/* a parent always comes before its children */
	for (size_t id = t->n; id-- > 1;) {
		struct flame_node *n = &t->nodes[id], *p = &t->nodes[n->parent];

		if (add_value(&p->total[0], n->total[0]) < 0 || add_value(&p->total[1], n->total[1]) < 0)
			return -EOVERFLOW;
	}
	t->finished = true;
	/* the lookup table of merged children is no longer needed */
	free_children(t);
	t->children_mask = t->children_used = 0;
	memset(t->indexed, 0, t->indexed_words * sizeof(*t->indexed));
	return 0;
}

static const struct flametree *sort_tree;

static int cmp_by_name(const void *a, const void *b)
{
	const struct flame_node *x = &sort_tree->nodes[*(const uint32_t *)a];
	const struct flame_node *y = &sort_tree->nodes[*(const uint32_t *)b];

	return stack_entry__cmp(stackmap__entry(sort_tree->names, x->name),
				stackmap__entry(sort_tree->names, y->name));
}

/*
 * Numbers the nodes in preorder, in place: a tree built from unsorted stacks
 * has its nodes all over memory, and every later walk (sums, drawing, the
 * embedded data) would miss the cache at each step.
 */
static int renumber_preorder(struct flametree *t)
{
	uint32_t *map = malloc(sizeof(*map) * t->n), *stack = malloc(sizeof(*stack) * t->n);
	size_t top = 0, next = 0;
	int ret = 0;

	if (!map || !stack) {
		ret = -ENOMEM;
		goto cleanup;
	}
	/* map: old id -> preorder id; a node's first child comes out first */
	stack[top++] = 0;
	while (top > 0) {
		uint32_t id = stack[--top];
		size_t first = top;

		map[id] = (uint32_t)next++;
		for (uint32_t c = t->nodes[id].first_child; c != FLAME_NONE; c = t->nodes[c].next_sibling)
			stack[top++] = c;
		for (size_t a = first, b = top; a + 1 < b; a++, b--) {
			uint32_t tmp = stack[a];

			stack[a] = stack[b - 1];
			stack[b - 1] = tmp;
		}
	}
	for (size_t id = 0; id < t->n; id++) {
		struct flame_node *n = &t->nodes[id];

		if (id > 0)
			n->parent = map[n->parent];
		if (n->first_child != FLAME_NONE)
			n->first_child = map[n->first_child];
		if (n->next_sibling != FLAME_NONE)
			n->next_sibling = map[n->next_sibling];
	}
	/* each node to its place, following the permutation's cycles */
	for (size_t id = 0; id < t->n; id++) {
		while (map[id] != id) {
			uint32_t to = map[id], tmp = map[to];
			struct flame_node n = t->nodes[to];

			t->nodes[to] = t->nodes[id];
			t->nodes[id] = n;
			map[to] = to;
			map[id] = tmp;
		}
	}
cleanup:
	free(map);
	free(stack);
	return ret;
}

int flametree__sort(struct flametree *t)
{
	uint32_t *kids = NULL;
	size_t cap = 0;

	sort_tree = t;
	for (size_t id = 0; id < t->n; id++) {
		size_t n = 0;

		for (uint32_t c = t->nodes[id].first_child; c != FLAME_NONE; c = t->nodes[c].next_sibling) {
			if (n == cap) {
				uint32_t *v = realloc(kids, (cap = cap ? cap * 2 : 64) * sizeof(*v));

				if (!v) {
					free(kids);
					return -ENOMEM;
				}
				kids = v;
			}
			kids[n++] = c;
		}
		if (n < 2)
			continue;
		qsort(kids, n, sizeof(*kids), cmp_by_name);
		t->nodes[id].first_child = kids[0];
		for (size_t i = 0; i + 1 < n; i++)
			t->nodes[kids[i]].next_sibling = kids[i + 1];
		t->nodes[kids[n - 1]].next_sibling = FLAME_NONE;
	}
	free(kids);
	/* a new stack must not merge into the reordered tree: what pointed into it is dropped */
	t->depth = 1;
	strbuf__reset(&t->last);
	free_children(t);
	t->children_mask = t->children_used = 0;
	memset(t->indexed, 0, t->indexed_words * sizeof(*t->indexed));
	clear_leaves(t);
	return renumber_preorder(t);
}

size_t flametree__count(const struct flametree *t)
{
	return t->n;
}

const struct flame_node *flametree__node(const struct flametree *t, uint32_t id)
{
	return id < t->n ? &t->nodes[id] : NULL;
}

size_t flametree__names(const struct flametree *t)
{
	return stackmap__size(t->names);
}

const char *flametree__name(const struct flametree *t, uint32_t name, size_t *len)
{
	struct stack_entry *e = stackmap__entry(t->names, name);

	*len = e->len;
	return e->key;
}

uint32_t flametree__max_depth(const struct flametree *t)
{
	return t->max_depth;
}
