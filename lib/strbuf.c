#include "strbuf.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

int strbuf__grow(struct strbuf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 64;
	char *s;

	if (n > SIZE_MAX / 2 - b->len)
		return -ENOMEM;
	while (cap - b->len <= n)
		cap *= 2;
	if (cap == b->cap)
		return 0;
	s = realloc(b->s, cap);
	if (!s)
		return -ENOMEM;
	b->s = s;
	b->cap = cap;
	return 0;
}

void strbuf__release(struct strbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}
