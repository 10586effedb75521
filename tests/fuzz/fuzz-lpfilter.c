/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: lp-filter's whole path (lp stream or folded input, a
 * regex filter, --mark, deny or allow) on one input; what it writes from an
 * lp stream must still be a valid stream: every sample's STACK and LOCS in step.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "filter/lpfilter.h"
#include "stream/lpstream.h"
#include "filter/stackfilter.h"

static struct stackfilter *filter;
static bool allow;

static int decide(void *ctx, const struct filter_frame *frames, size_t n, bool *keep, struct lp_error *err)
{
	(void)ctx;
	(void)err;
	for (size_t i = 0; i < n; i++) {
		int m = stackfilter__match(filter, frames[i].sym, frames[i].symlen, frames[i].exec, frames[i].execlen);

		if (m < 0)
			return m;
		keep[i] = allow ? m : !m;
	}
	return 0;
}

static void load_filter(void)
{
	static const char rules[] = "SYM ^a\nOR\nEXEC libc\nOR\nANY x.*y\nSYM b\n";
	char path[] = "/tmp/lp-fuzz-filter.XXXXXX";
	struct lp_error err;
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, rules, sizeof(rules) - 1) != (ssize_t)(sizeof(rules) - 1))
		abort();
	close(fd);
	filter = stackfilter__load(path, &err);
	unlink(path);
	if (!filter)
		abort();
}

/* Every S record of a filtered lp stream parses: STACK and LOCS were cut in step. */
static void check_output(const char *out, size_t len)
{
	struct lp_fields f = { 0 };
	const char *p = out, *end = out + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct lp_sample s;
		struct lp_error err;

		if (n > 0 && p[0] == 'S' && lp_fields__split(&f, p, n) == 0 &&
		    lp_sample__parse(&f, &s, &err) < 0) {
			fprintf(stderr, "filtered S record does not parse: %s\n", err.msg);
			abort();
		}
		p += n + 1;
	}
	lp_fields__release(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lpfilter_opts o = { .decide = decide, .needs_exec = false, .pure = true };
	struct lp_error err;
	char *out = NULL;
	size_t outlen = 0;
	FILE *sink;
	int fd, ret;

	if (!filter)
		load_filter();
	/* the last byte picks options (the first is the stream's '#') */
	if (size > 0) {
		o.mark = data[size - 1] & 1;
		allow = data[size - 1] & 2;
		o.needs_offsets = data[size - 1] & 4;
		o.pure = !(data[size - 1] & 8);
	}
	fd = memfd_create("fuzz", 0);
	sink = open_memstream(&out, &outlen);
	if (fd < 0 || !sink || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	ret = lpfilter__run(&o, fd, "fuzz", sink, &err);
	fclose(sink);
	close(fd);
	/* input it accepted as an lp stream comes out as one */
	if (ret == 0 && size >= 10 && memcmp(data, LP_STREAM_MAGIC, 10) == 0)
		check_output(out, outlen);
	free(out);
	return 0;
}
