/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/lines.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { LINES_INITIAL = 1 << 18 };

struct lines {
	int fd;
	int eof;
	int missing_newline;
	long lineno;
	char *buf;
	size_t cap;
	size_t start;   /* first byte not yet handed out */
	size_t end;     /* one past the last byte read */
	uint64_t pos;	/* bytes read from fd so far */
	uint64_t limit;	/* read no more than this */
	int64_t at;	/* -1: read(2) from fd's offset; else pread(2) from at + pos */
};

struct lines *lines__new(int fd)
{
	struct lines *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->fd = fd;
	r->limit = UINT64_MAX;
	r->at = -1;
	r->cap = LINES_INITIAL;
	r->buf = malloc(r->cap + 1);
	if (!r->buf) {
		free(r);
		return NULL;
	}
	return r;
}

void lines__free(struct lines *r)
{
	if (!r)
		return;
	free(r->buf);
	free(r);
}

/* Reads more input after what is buffered; 0 at end of input, -errno. */
static int fill(struct lines *r)
{
	ssize_t n;

	if (r->eof)
		return 0;
	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	if (r->end == r->cap) {
		size_t cap = r->cap * 2;
		char *buf = realloc(r->buf, cap + 1);

		if (!buf)
			return -ENOMEM;
		r->buf = buf;
		r->cap = cap;
	}
	{
		size_t want = r->cap - r->end;

		if (r->limit - r->pos < want)
			want = (size_t)(r->limit - r->pos);
		do
			n = want == 0 ? 0 : r->at < 0 ? read(r->fd, r->buf + r->end, want) :
				pread(r->fd, r->buf + r->end, want, (off_t)(r->at + (int64_t)r->pos));
		while (n < 0 && errno == EINTR);
	}
	if (n < 0)
		return -errno;
	if (n == 0) {
		r->eof = 1;
		return 0;
	}
	r->end += (size_t)n;
	r->pos += (uint64_t)n;
	return 1;
}

struct lines *lines__new_range(int fd, uint64_t from, uint64_t to, long lineno)
{
	struct lines *r = lines__new(fd);

	if (!r)
		return NULL;
	r->at = (int64_t)from;
	r->limit = to > from ? to - from : 0;
	r->lineno = lineno;
	return r;
}

int lines__stop_at(struct lines *r, uint64_t offset)
{
	if (r->pos > offset) {
		uint64_t excess = r->pos - offset;

		/* what was handed out already cannot be taken back */
		if (excess > r->end - r->start)
			return -EINVAL;
		r->end -= (size_t)excess;
		r->pos = offset;
	}
	r->limit = offset;
	return 0;
}

/*
 * Finds the end of the line starting at offset `from` relative to start,
 * reading more as needed. Sets *eol to the offset of '\n' (or of the end of
 * input for an unterminated last line). 1 found, 0 no line, -errno.
 */
static int find_line(struct lines *r, size_t from, size_t *eol)
{
	size_t scanned = from;

	for (;;) {
		size_t base = r->start;
		char *nl = memchr(r->buf + base + scanned, '\n', r->end - base - scanned);
		int ret;

		if (nl) {
			*eol = (size_t)(nl - (r->buf + base));
			return 1;
		}
		scanned = r->end - base;
		ret = fill(r);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			if (scanned == from)
				return 0;
			*eol = scanned;
			return 1;
		}
	}
}

int lines__next(struct lines *r, char **line, size_t *len)
{
	size_t eol;
	int ret = find_line(r, 0, &eol);

	if (ret <= 0)
		return ret;
	*line = r->buf + r->start;
	*len = eol;
	(*line)[eol] = '\0';	/* buf has one spare byte past cap */
	if (r->start + eol == r->end) {
		r->missing_newline = 1;
		r->start = r->end;
	} else {
		r->start += eol + 1;
	}
	r->lineno++;
	return 1;
}

int lines__peek_next(struct lines *r, size_t *at, const char **line, size_t *len)
{
	size_t eol;
	int ret;

	if (r->start + *at >= r->end && r->eof)
		return 0;
	ret = find_line(r, *at, &eol);
	if (ret <= 0)
		return ret;
	*line = r->buf + r->start + *at;
	*len = eol - *at;
	*at = eol + 1;
	return 1;
}

long lines__lineno(const struct lines *r)
{
	return r->lineno;
}

int lines__missing_newline(const struct lines *r)
{
	return r->missing_newline;
}
