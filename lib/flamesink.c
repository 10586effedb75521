#include "flamesink.h"

#include <errno.h>

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

int flame_sink__add(void *ctx, const char *stack, size_t len, int col, uint64_t weight)
{
	struct flame_sink *s = ctx;

	if (s->reverse) {
		if (reverse_frames(&s->reversed, stack, len) < 0)
			return -ENOMEM;
		stack = s->reversed.s;
		len = s->reversed.len;
	}
	return flametree__add_merged(s->tree, stack, len, col == 0 ? weight : 0, col == 1 ? weight : 0);
}

void flame_sink__release(struct flame_sink *s)
{
	strbuf__release(&s->reversed);
}

static int add_timed(void *tree, const char *stack, size_t len, uint64_t count)
{
	return flametree__add(tree, stack, len, count, 0);
}

int flametree__add_timed(struct flametree *t, struct profile *p)
{
	return profile__each_timed(p, add_timed, t);
}

enum flame_coloring flame_coloring__choose(const struct flametree *t, int ninputs, bool lp_input)
{
	const struct flame_node *root = flametree__node(t, 0);

	if (ninputs == 2 || (!lp_input && root->total[1] > 0))
		return COLORING_DIFF;
	return root->total[1] > 0 ? COLORING_ONOFF : COLORING_PALETTE;
}
