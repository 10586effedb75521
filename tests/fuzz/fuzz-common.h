/* Shared by the libFuzzer targets: run the whole collapse path on one input. */
#ifndef LP_FUZZ_COMMON_H
#define LP_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collapse.h"

static void ignore_warning(void *ctx, const char *file, long line, const char *msg)
{
	(void)ctx, (void)file, (void)line, (void)msg;
}

static int collapse_input(const uint8_t *data, size_t size, struct collapse_opts *o)
{
	static FILE *sink;
	struct collapse_error err;
	struct collapse_output out = { .diff = o->diff };
	struct collapser *c;
	int fd = memfd_create("fuzz", 0);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	if (!sink)
		sink = fopen("/dev/null", "w");
	o->warn = ignore_warning;
	c = collapser__new(o);
	if (collapser__read(c, fd, "fuzz", 0, &err) == 0)
		collapser__write(c, sink, &out);
	collapser__free(c);
	close(fd);
	return 0;
}

#endif
