/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "picture/flamesink.h"

#include <errno.h>
#include <string.h>

/* The frames of stack in the other order, into out. */
static int reverse_frames(struct strbuf *out, const char *stack, size_t len)
{
	const char *end = stack + len;

	strbuf__reset(out);
	for (;;) {
		const char *start = end;

		while (start > stack && start[-1] != ';')
			start--;
		if ((out->len && strbuf__addc(out, ';') < 0) || strbuf__add(out, start, (size_t)(end - start)) < 0)
			return -ENOMEM;
		if (start == stack)
			return 0;
		end = start - 1;
	}
}

/*
 * A stack of more than max_depth frames keeps its first max_depth, and one
 * FLAME_DEEPER frame stands for the rest: a picture of a runaway recursion
 * stays drawable (a 25M-frame stack made a 3 GB SVG). 1 when it was cut.
 */
static int cap_depth(struct flame_sink *s, const char **stack, size_t *len)
{
	const char *p = *stack, *end = *stack + *len;
	size_t frames = 1;

	/* a frame is at least a byte and a ';': a stack this short has max_depth frames at most */
	if (!s->max_depth || *len / 2 < s->max_depth)
		return 0;
	while ((p = memchr(p, ';', (size_t)(end - p))) && frames < s->max_depth) {
		p++;
		frames++;
	}
	if (!p)
		return 0;	/* max_depth frames or fewer */
	strbuf__reset(&s->capped);
	if (strbuf__add(&s->capped, *stack, (size_t)(p - *stack) + 1) < 0 ||
	    strbuf__add(&s->capped, FLAME_DEEPER, sizeof(FLAME_DEEPER) - 1) < 0)
		return -ENOMEM;
	*stack = s->capped.s;
	*len = s->capped.len;
	return 1;
}

int flame_sink__add(void *ctx, const char *stack, size_t len, int col, uint64_t weight, uint64_t samples)
{
	struct flame_sink *s = ctx;
	int cut;

	if (s->reverse) {
		if (reverse_frames(&s->reversed, stack, len) < 0)
			return -ENOMEM;
		stack = s->reversed.s;
		len = s->reversed.len;
	}
	if ((cut = cap_depth(s, &stack, &len)) < 0)
		return cut;
	s->folded += cut ? samples : 0;
	return flametree__add_merged(s->tree, stack, len, col == 0 ? weight : 0, col == 1 ? weight : 0);
}

void flame_sink__release(struct flame_sink *s)
{
	strbuf__release(&s->reversed);
	strbuf__release(&s->capped);
}

static int add_timed(void *ctx, const char *stack, size_t len, uint64_t count)
{
	struct flame_sink *s = ctx;
	int cut = cap_depth(s, &stack, &len);

	if (cut < 0)
		return cut;
	s->folded += (uint64_t)cut;
	return flametree__add(s->tree, stack, len, count, 0);
}

int flame_sink__add_timed(struct flame_sink *s, struct profile *p)
{
	return profile__each_timed(p, add_timed, s);
}

enum flame_coloring flame_coloring__choose(const struct flametree *t, int ninputs, bool lp_input)
{
	const struct flame_node *root = flametree__node(t, 0);

	if (ninputs == 2 || (!lp_input && root->total[1] > 0))
		return COLORING_DIFF;
	return root->total[1] > 0 ? COLORING_ONOFF : COLORING_PALETTE;
}
