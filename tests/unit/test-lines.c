/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <unistd.h>

#include "base/lines.h"
#include "tap.h"

/* A pipe-free input: a temporary file holding data. */
static int input(const char *data, size_t len)
{
	char path[] = "/tmp/lp-test-lines-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, data, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	unlink(path);
	return fd;
}

static void short_lines(void)
{
	int fd = input("a\n\nbc\nlast", 10);
	struct lines *r = lines__new(fd);
	const char *p;
	char *line;
	size_t len, at = 0;

	ok(lines__peek_next(r, &at, &p, &len) == 1 && lines__peek_next(r, &at, &p, &len) == 1 &&
	   lines__peek_next(r, &at, &p, &len) == 1 && len == 2 && memcmp(p, "bc", 2) == 0,
	   "peek sees the third line");
	ok(lines__next(r, &line, &len) == 1 && len == 1 && strcmp(line, "a") == 0, "first line");
	ok(lines__next(r, &line, &len) == 1 && len == 0, "empty line");
	ok(lines__next(r, &line, &len) == 1 && strcmp(line, "bc") == 0 && lines__lineno(r) == 3,
	   "third line, numbered 3");
	at = 0;
	ok(lines__peek_next(r, &at, &p, &len) == 1 && lines__peek_next(r, &at, &p, &len) == 0,
	   "no line after the last one to peek");
	ok(lines__next(r, &line, &len) == 1 && strcmp(line, "last") == 0,
	   "an unterminated last line is still a line");
	ok(lines__next(r, &line, &len) == 0 && lines__missing_newline(r), "end, newline missing");
	lines__free(r);
	close(fd);
}

static void long_lines(void)
{
	size_t big = 3 << 20;	/* well past the initial buffer */
	char *data = malloc(2 * big + 4);
	struct lines *r;
	char *line;
	size_t len;
	int fd;

	memset(data, 'x', 2 * big + 4);
	data[big] = '\n';
	data[big + 1] = 'y';
	data[2 * big + 3] = '\n';
	fd = input(data, 2 * big + 4);
	r = lines__new(fd);
	ok(lines__next(r, &line, &len) == 1 && len == big && line[big - 1] == 'x',
	   "a 3 MiB line comes out whole");
	ok(lines__next(r, &line, &len) == 1 && len == big + 2 && line[0] == 'y',
	   "the next long line too");
	ok(lines__next(r, &line, &len) == 0 && !lines__missing_newline(r), "then the end");
	lines__free(r);
	close(fd);
	free(data);
}

static void many_lines(void)
{
	size_t n = 200000, count = 0, bad = 0;
	char *data = malloc(n * 8 + 1), *line;
	struct lines *r;
	size_t len;
	int fd;

	for (size_t i = 0; i < n; i++)
		snprintf(data + i * 8, 9, "%07zu\n", i);
	fd = input(data, n * 8);
	r = lines__new(fd);
	while (lines__next(r, &line, &len) == 1) {
		if (len != 7 || (size_t)atol(line) != count)
			bad++;
		count++;
	}
	ok(count == n && bad == 0, "200000 lines across buffer refills, in order");
	lines__free(r);
	close(fd);
	free(data);
}

/* Looking far ahead in one pass, past the buffer's first size, consumes nothing. */
static void peek_far(void)
{
	size_t n = 100000, len = 0, at = 0, seen = 0;
	char *data = malloc(n * 8);
	struct lines *r;
	const char *p;
	char *line;
	size_t plen, llen;
	int fd, ret;

	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(data + len, "%zu\n", i);
	fd = input(data, len);
	r = lines__new(fd);
	while ((ret = lines__peek_next(r, &at, &p, &plen)) == 1 && plen == (size_t)snprintf(NULL, 0, "%zu", seen))
		seen++;
	ok(ret == 0 && seen == n, "every line peeked once, then the end");
	ok(lines__next(r, &line, &llen) == 1 && strcmp(line, "0") == 0 && lines__lineno(r) == 1,
	   "then read from the first");
	lines__free(r);
	close(fd);
	free(data);
}

int main(void)
{
	peek_far();
	short_lines();
	long_lines();
	many_lines();
	lines__free(NULL);
	ok(1, "lines__free(NULL) is a no-op");
	return tap_done();
}
