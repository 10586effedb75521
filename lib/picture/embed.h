/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Data a picture's script reads back: deflated (zlib) and base64-encoded in
 * lines of 76, written out as it is produced so that no copy of the whole
 * data is kept. The script inflates it with the browser's DecompressionStream.
 */
#ifndef LP_EMBED_H
#define LP_EMBED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <zlib.h>

#include "base/strbuf.h"

struct embed {
	FILE *out;
	z_stream zs;
	unsigned char carry[3];	/* bytes waiting for a full base64 quantum */
	size_t ncarry;
	char line[80];
	size_t linelen;
	int err;
};

/* Starts deflating at level (1-9) into out. -ENOMEM. */
int embed__start(struct embed *e, FILE *out, int level);
/* Adds len bytes. -EINVAL (zlib), -EIO (out). */
int embed__write(struct embed *e, const void *p, size_t len);
/* Moves b into the stream once it holds at least min bytes (0: whatever it holds), emptying it. */
int embed__drain(struct embed *e, struct strbuf *b, size_t min);
/* Flushes what is left and ends the stream; frees zlib's state whatever happens. */
int embed__finish(struct embed *e);
/* Frees zlib's state after a failure, writing nothing more. */
void embed__abort(struct embed *e);

/* Appends v as an unsigned LEB128 varint: 7 bits a byte, low first. -ENOMEM. */
int embed__varint(struct strbuf *b, uint64_t v);

#endif
