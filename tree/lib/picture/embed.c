/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "picture/embed.h"

#include <errno.h>
#include <string.h>

int embed__varint(struct strbuf *b, uint64_t v)
{
	char buf[10];
	size_t n = 0;

	do {
		buf[n] = (char)(v & 127);
		v >>= 7;
		if (v)
			buf[n] |= (char)128;
		n++;
	} while (v);
	return strbuf__add(b, buf, n);
}

static void put_line(struct embed *e)
{
	e->line[e->linelen++] = '\n';
	if (fwrite_unlocked(e->line, 1, e->linelen, e->out) != e->linelen)
		e->err = -EIO;
	e->linelen = 0;
}

static void b64_quantum(struct embed *e, const unsigned char *b, size_t n)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uint32_t v = (uint32_t)b[0] << 16 | (n > 1 ? (uint32_t)b[1] << 8 : 0) | (n > 2 ? b[2] : 0);

	e->line[e->linelen++] = b64[v >> 18 & 63];
	e->line[e->linelen++] = b64[v >> 12 & 63];
	e->line[e->linelen++] = n > 1 ? b64[v >> 6 & 63] : '=';
	e->line[e->linelen++] = n > 2 ? b64[v & 63] : '=';
	if (e->linelen == 76)
		put_line(e);
}

static void b64_bytes(struct embed *e, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		e->carry[e->ncarry++] = p[i];
		if (e->ncarry == 3) {
			b64_quantum(e, e->carry, 3);
			e->ncarry = 0;
		}
	}
}

int embed__start(struct embed *e, FILE *out, int level)
{
	memset(e, 0, sizeof(*e));
	e->out = out;
	return deflateInit(&e->zs, level) == Z_OK ? 0 : -ENOMEM;
}

static int deflate_some(struct embed *e, const void *p, size_t len, int flush)
{
	unsigned char buf[1 << 16];

	e->zs.next_in = (Bytef *)p;
	e->zs.avail_in = (uInt)len;
	do {
		e->zs.next_out = buf;
		e->zs.avail_out = sizeof(buf);
		if (deflate(&e->zs, flush) == Z_STREAM_ERROR)
			return -EINVAL;
		b64_bytes(e, buf, sizeof(buf) - e->zs.avail_out);
	} while (e->zs.avail_out == 0);
	return e->err;
}

int embed__write(struct embed *e, const void *p, size_t len)
{
	const char *s = p;
	int ret = 0;

	/* zlib counts in uInt */
	while (ret == 0 && len > 0) {
		size_t n = len > (1u << 30) ? (1u << 30) : len;

		ret = deflate_some(e, s, n, Z_NO_FLUSH);
		s += n;
		len -= n;
	}
	return ret;
}

int embed__drain(struct embed *e, struct strbuf *b, size_t min)
{
	int ret;

	if (b->len < min || b->len == 0)
		return 0;
	ret = embed__write(e, b->s, b->len);
	strbuf__reset(b);
	return ret;
}

int embed__finish(struct embed *e)
{
	int ret = deflate_some(e, "", 0, Z_FINISH);

	if (ret == 0) {
		if (e->ncarry)
			b64_quantum(e, e->carry, e->ncarry);
		if (e->linelen)
			put_line(e);
		ret = e->err;
	}
	deflateEnd(&e->zs);
	return ret;
}

void embed__abort(struct embed *e)
{
	deflateEnd(&e->zs);
}
