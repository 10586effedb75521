/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lp_format__detect: each input's format from its structure, or why it has none. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/detect.h"
#include "base/lines.h"
#include "tap.h"

static const struct {
	const char *input;
	int ret;	/* 0, or the error */
	enum lp_format format;
	long line;	/* of the error */
	const char *name;
} cases[] = {
	{ "", 0, LP_FORMAT_LP, 0, "an empty input goes to the lp reader, which refuses it" },
	{ "# a\n\n# b\n", 0, LP_FORMAT_LP, 0, "comments and blank lines alone too" },
	{ "#lp-stream 1\nS\t1\n", 0, LP_FORMAT_LP, 0, "the lp version line" },
	{ "# made by hand\n#lp-stream 1\n", 0, LP_FORMAT_LP, 0, "the version line after comments" },
	{ "S\t1\t2\n", 0, LP_FORMAT_LP, 0, "a record without the version line is still lp (its reader says what is missing)" },
	{ "a;b 1\n", 0, LP_FORMAT_FOLDED, 0, "one folded line" },
	{ "a;b 1 2\n", 0, LP_FORMAT_FOLDED, 0, "a differential folded line" },
	{ "a;b 1.5\nc 2\n", 0, LP_FORMAT_FOLDED, 0, "a bad folded line before a good one: folded (its reader names line 1)" },
	{ "app 1 [000] 1.0: 5 cycles:\n\t400 main (/app)\n\n", 0, LP_FORMAT_PERF, 0, "default fields" },
	{ "app 1 [000] 1.0: 5 cycles:\n\n", 0, LP_FORMAT_PERF, 0, "an event header and a blank line: a sample without stack" },
	{ "app 1 [000] 1.0: 5 cycles:", 0, LP_FORMAT_PERF, 0, "an event header at the end" },
	{ "ls 29419/29419 \n\t1469e handle_amd (/ld.so)\n\n", 0, LP_FORMAT_PERF, 0, "-F comm,pid,tid,ip,sym,dso: no event" },
	{ "ls 29419 \n\t1469e handle_amd+0x7e (/ld.so)\n\n", 0, LP_FORMAT_PERF, 0, "-F comm,tid,...: one id" },
	{ "ls 29419\n\t1469e handle_amd (/ld.so)\n\n", -EINVAL, 0, 1,
	  "a folded line with a frame under it (no header: perf ends a header's ids with a space)" },
	{ "perf-exec 0 0.000000: PERF_RECORD_COMM: perf-exec:1/1\n", 0, LP_FORMAT_PERF, 0, "a side-band line" },
	{ "\t400 main (/app)\n\nls 1 \n\t400 main (/app)\n", 0, LP_FORMAT_PERF, 0, "frames cut from their header first" },
	{ "a;b \x01\xff\n", -EINVAL, 0, 1, "a line that is none of them" },
	{ "# c\n\nxyz\n", -EINVAL, 0, 3, "the error names the first line that is not a comment" },
	{ "app 1 1.0: 5 cycles: 400 main (/app)\napp 1 1.1: 5 cycles: 400 main (/app)\n", -EINVAL, 0, 1,
	  "perf script without call stacks" },
	{ "ls 1 \nls 2 \n", -EINVAL, 0, 1, "headers without frames" },
};

static int input(const char *data, size_t len)
{
	int fd = memfd_create("detect", 0);

	if (fd < 0 || write(fd, data, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	return fd;
}

static void table(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fd = input(cases[i].input, strlen(cases[i].input));
		struct lines *r = lines__new(fd);
		enum lp_format f = LP_FORMAT_AUTO;
		struct lp_error err;
		char *line;
		size_t len;
		int ret;

		lp_error__clear(&err);
		ret = lp_format__detect(r, &f, &err);
		if (cases[i].ret == 0)
			ok(ret == 0 && f == cases[i].format, cases[i].name);
		else
			ok(ret == cases[i].ret && err.line == cases[i].line && err.msg[0], cases[i].name);
		ok(strlen(cases[i].input) == 0 || (lines__next(r, &line, &len) == 1 && lines__lineno(r) == 1),
		   "nothing was consumed");
		lines__free(r);
		close(fd);
	}
}

/* Side-band lines before the first sample: more than a look-ahead by a few lines would see. */
static void far_ahead(void)
{
	size_t n = 20000, cap = n * 80 + 200, len = 0;
	char *data = malloc(cap);
	struct lines *r;
	enum lp_format f = LP_FORMAT_AUTO;
	int fd;

	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(data + len, cap - len, "# header line %zu\n", i);
	len += (size_t)snprintf(data + len, cap - len, "app 1 [000] 1.0: 5 cycles:\n\t400 main (/app)\n\n");
	fd = input(data, len);
	r = lines__new(fd);
	ok(lp_format__detect(r, &f, NULL) == 0 && f == LP_FORMAT_PERF, "a sample after 20000 comment lines");
	lines__free(r);
	close(fd);
	free(data);
}

int main(void)
{
	table();
	far_ahead();
	return tap_done();
}
